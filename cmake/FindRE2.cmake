# Finds RE2, the linear-time regex engine --filter and --fault match names with (std::regex
# backtracked exponentially on patterns such as '(.*.*)*');
# defines RE2::re2. RE2's own CMake config where one is installed (newer RE2, with abseil);
# else re2/re2.h and libre2 by path: Debian 12's libre2-dev ships only re2.pc, and the offline
# bundle's prefix (ci/unpack_debs.sh, on CMAKE_PREFIX_PATH) may have no pkg-config to read it.
find_package(re2 CONFIG QUIET)
if(re2_FOUND)
  set(RE2_LIBRARY re2::re2)
  get_target_property(RE2_INCLUDE_DIR re2::re2 INTERFACE_INCLUDE_DIRECTORIES)
else()
  find_path(RE2_INCLUDE_DIR re2/re2.h HINTS ${RE2_ROOT} $ENV{RE2_ROOT} PATH_SUFFIXES include)
  find_library(RE2_LIBRARY re2 HINTS ${RE2_ROOT} $ENV{RE2_ROOT} PATH_SUFFIXES lib lib64)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(RE2 REQUIRED_VARS RE2_LIBRARY RE2_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install libre2-dev (ci/deps.txt, offline ci/bundle_debs.sh), or set RE2_ROOT to the folder holding include/re2/re2.h and lib/libre2.so")
if(RE2_FOUND AND NOT TARGET RE2::re2)
  add_library(RE2::re2 INTERFACE IMPORTED)
  target_link_libraries(RE2::re2 INTERFACE ${RE2_LIBRARY})
  if(NOT re2_FOUND)
    target_include_directories(RE2::re2 INTERFACE ${RE2_INCLUDE_DIR})
  endif()
endif()
