# tandem_probe_config_package(NAME OUT_OK OUT_WHY): does find_package(NAME CONFIG REQUIRED)
# succeed, nested dependencies included? Runs it in a throw-away CMake project, because a
# package's config may itself call find_package(... REQUIRED) (Debian's oneDNN requires
# OpenCL), which stops the whole configure even under QUIET. OUT_WHY gets the probe's first
# error line when it fails, so the caller can fall back with a one-line notice.
function(tandem_probe_config_package name out_ok out_why)
  set(dir ${CMAKE_BINARY_DIR}/probe_${name})
  # A fresh probe each configure: a cache left by an earlier one keeps paths it found then
  # (CMake does not look again), so a dependency removed since would pass the probe and stop
  # the real find (seen when the GPU rehearsal reconfigured without the OpenCL packages).
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${dir}/CMakeLists.txt
    "cmake_minimum_required(VERSION 3.25)\nproject(probe_${name} LANGUAGES CXX)\n"
    "find_package(${name} CONFIG REQUIRED)\n")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${dir} -B ${dir}/build -G ${CMAKE_GENERATOR}
            -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} "-DCMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH}"
            "-DCMAKE_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE}"  # a cross build probes the target's package
            "-D${name}_DIR=${${name}_DIR}"
    RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE err)
  set(${out_ok} OFF PARENT_SCOPE)
  if(code EQUAL 0)
    set(${out_ok} ON PARENT_SCOPE)
    set(${out_why} "" PARENT_SCOPE)
    return()
  endif()
  # The first line of CMake's message that says something (not "CMake Error at ...:").
  string(REGEX REPLACE "CMake Error at [^\n]*\n" "" err "${err}")
  string(REGEX MATCH "[^\n ][^\n]*" first "${err}")
  set(${out_why} "${first}" PARENT_SCOPE)
endfunction()
