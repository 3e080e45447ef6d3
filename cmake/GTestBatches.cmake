# tandem_gtest_batches(TARGET LABELS labels [PREFIX p] [FILTER gtest_filter] [GROUP_BY regex]
#                      [MAX_CASES n]) (PREFIX of the names: default "TARGET:"): the ctest tests of a GoogleTest binary as batches of cases,
# each run in one process by cmake/gtest_batch_run.py, which names every case's outcome (a
# failure, a crash, a skip with its reason). gtest_discover_tests made one ctest test and one
# process per case: ~3,600 process starts that cost ~0.15 s each where the cases themselves
# cost ~3 s together. Grouping and naming: cmake/gtest_batches.py. Like gtest_discover_tests
# the list is written after each build of the binary (or when ctest starts, with
# CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST), through the cross-compiling emulator
# when there is one.
set(_tandem_gtest_batches_dir ${CMAKE_CURRENT_LIST_DIR})

function(tandem_gtest_batches target)
  cmake_parse_arguments(B "" "PREFIX;FILTER;GROUP_BY;MAX_CASES" "LABELS" ${ARGN})
  if(NOT B_PREFIX)  # names unique across binaries (two have an F8 suite), and `-R binary` selects one
    set(B_PREFIX "${target}:")
  endif()
  if(NOT B_MAX_CASES)
    set(B_MAX_CASES 100)
  endif()
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}[batches]")
  get_property(emulator TARGET ${target} PROPERTY CROSSCOMPILING_EMULATOR)
  set(executor "")
  foreach(word IN LISTS emulator)
    list(APPEND executor --executor ${word})
  endforeach()
  list(JOIN B_LABELS "," labels)  # a ';' would split the command's argument
  set(write ${TANDEM_PYTHON} ${_tandem_gtest_batches_dir}/gtest_batches.py
      --out "${base}_tests.cmake" --runner ${_tandem_gtest_batches_dir}/gtest_batch_run.py
      --python ${TANDEM_PYTHON} --workdir ${CMAKE_CURRENT_BINARY_DIR} ${executor}
      "--prefix=${B_PREFIX}" "--filter=${B_FILTER}" "--group-by=${B_GROUP_BY}"
      --max-cases ${B_MAX_CASES} "--labels=${labels}" $<TARGET_FILE:${target}>)
  if(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE STREQUAL "PRE_TEST")
    # Listed when ctest starts, as gtest_discover_tests does in this mode (ci/aarch64.sh: a
    # cross build would otherwise start QEMU for every binary it links).
    list(JOIN write "]==] [==[" quoted)
    string(CONCAT content
      "if(NOT EXISTS \"$<TARGET_FILE:${target}>\")\n  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
      "else()\n  if(NOT EXISTS \"${base}_tests.cmake\" OR \"$<TARGET_FILE:${target}>\" IS_NEWER_THAN \"${base}_tests.cmake\")\n"
      "    execute_process(COMMAND [==[${quoted}]==] COMMAND_ERROR_IS_FATAL ANY)\n  endif()\n"
      "  include(\"${base}_tests.cmake\")\nendif()\n")
    file(GENERATE OUTPUT "${base}_include.cmake" CONTENT "${content}")
  else()
    add_custom_command(TARGET ${target} POST_BUILD BYPRODUCTS "${base}_tests.cmake" COMMAND ${write} VERBATIM)
    file(WRITE "${base}_include.cmake"
      "if(EXISTS \"${base}_tests.cmake\")\n  include(\"${base}_tests.cmake\")\n"
      "else()\n  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
  endif()
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${base}_include.cmake")
endfunction()

# The runner and the writer, tested on a binary whose cases pass, skip, fail and abort.
if(TANDEM_BUILD_TESTS)
  add_executable(gtest_batch_selftest_cases ${CMAKE_CURRENT_LIST_DIR}/gtest_batch_selftest_cases.cc)
  target_link_libraries(gtest_batch_selftest_cases PRIVATE GTest::gtest GTest::gtest_main)
  add_test(NAME gtest_batches_selftest COMMAND ${TANDEM_PYTHON} -m pytest -q -p no:cacheprovider
           ${CMAKE_CURRENT_LIST_DIR}/gtest_batch_run_test.py)
  set_tests_properties(gtest_batches_selftest PROPERTIES LABELS unit TIMEOUT 300
    ENVIRONMENT GTEST_BATCH_SELFTEST_CASES=$<TARGET_FILE:gtest_batch_selftest_cases>)
endif()
