# CPU slots for ctest's resource allocation: each test takes one slot of the resource `cpus`,
# except those whose time is spent waiting (on a throttled link, a watchdog's timeout, another
# host), which add themselves to the global property TANDEM_WAITING_TESTS where they are
# defined (runners/cluster, case_workers_signals). ci/test.sh gives ctest one `cpus` slot per
# core and two jobs more than the cores (the cluster's chain and one other), so a waiting test
# runs beside the CPU-bound ones instead of holding one of their cores idle, and the CPU-bound
# ones never outnumber the cores. A plain `ctest -j N` has
# no resource spec and ignores RESOURCE_GROUPS.
# The longest tests carry a COST where they are declared: their seconds in the fresh root's
# ctest (lab/pages/ci.md). A fresh root has no CTestCostData.txt, so ctest would start tests in
# declaration order and one long test declared late (readme_commands) ran on alone at the end.
#
# tandem_cpu_slots(): call once, after every add_subdirectory. Before CMake 3.28 no directory
# can set another's test properties, and ctest reads a directory's TEST_INCLUDE_FILES before
# its tests, so the top directory's include file wraps ctest's add_test: every test defined
# after it (each directory's, the gtest batches', the discovered GPU cases') gets its slot
# as it is added. Each argument is passed on bracket-quoted, so one holding a ';' stays one.
function(tandem_cpu_slots)
  get_property(waiting GLOBAL PROPERTY TANDEM_WAITING_TESTS)
  set(file ${PROJECT_BINARY_DIR}/cpu_slots.cmake)
  # Tests share the cores, so none spins on one: libgomp's threads (oneDNN's products in every
  # `tandem` call, the engine's tests) sleep at a barrier instead of spinning after their work, as
  # the case workers' do (runners/cli/case_workers.cc), and an Open MPI rank waiting on another
  # yields its core (as the cluster's suites' ranks do; not the cluster's fault tests, whose slow
  # links flaked with it: runners/cluster/CMakeLists.txt): lab/pages/ci.md has the CPU each saves.
  # OpenBLAS's threads, started when the library loads, spin for 2^28 cycles (~0.1 s) before they
  # sleep: a `tandem` call of 30 ms spent as much CPU again on them; at 2^4 they sleep at once.
  # The user's choice stands; a test of the policy sets its own.
  file(WRITE ${file} "if(NOT DEFINED ENV{OMP_WAIT_POLICY})
  set(ENV{OMP_WAIT_POLICY} PASSIVE)
endif()
if(NOT DEFINED ENV{OPENBLAS_THREAD_TIMEOUT})
  set(ENV{OPENBLAS_THREAD_TIMEOUT} 4)
endif()
if(NOT DEFINED ENV{OMPI_MCA_mpi_yield_when_idle})
  set(ENV{OMPI_MCA_mpi_yield_when_idle} 1)
endif()
set(_tandem_waiting_tests [==[${waiting}]==])
function(add_test name)
  set(args \"\")
  foreach(i RANGE 1 \${ARGC})
    if(i LESS ARGC)
      string(APPEND args \" [==[\${ARGV\${i}}]==]\")
    endif()
  endforeach()
  cmake_language(EVAL CODE \"_add_test([==[\${name}]==]\${args})\")
  list(FIND _tandem_waiting_tests \"\${name}\" waits)  # not IN_LIST: ctest sets no policies
  if(waits EQUAL -1)
    set_tests_properties(\"\${name}\" PROPERTIES RESOURCE_GROUPS cpus:1)
  endif()
endfunction()
")
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()
