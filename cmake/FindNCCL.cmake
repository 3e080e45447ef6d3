# Finds NCCL (nccl.h + libnccl); defines NCCL::nccl and NCCL_VERSION. NCCL ships no CMake
# package config. Looks, in order, in NCCL_ROOT (CMake or environment variable), the CUDA
# toolkit, the system, and the pip wheel layouts (site-packages/nvidia/nccl, nvidia/cu13), and accepts the
# versioned soname (libnccl.so.2) that wheels ship without the unversioned dev link.
include(${CMAKE_CURRENT_LIST_DIR}/NvidiaWheel.cmake)
tandem_nvidia_wheel_dirs(nccl _nccl_wheel)
set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_INCLUDE_DIRS}
    ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda ${_nccl_wheel})
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR
  HINTS ${_nccl_hints} PATH_SUFFIXES lib64 lib lib/x86_64-linux-gnu)
if(NCCL_INCLUDE_DIR)
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _v REGEX "#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*" "\\1" _maj "${_v}")
  string(REGEX REPLACE ".*NCCL_MINOR ([0-9]+).*" "\\1" _min "${_v}")
  string(REGEX REPLACE ".*NCCL_PATCH ([0-9]+).*" "\\1" _pat "${_v}")
  set(NCCL_VERSION "${_maj}.${_min}.${_pat}")
endif()
string(REPLACE ";" ", " _nccl_wheel_list "${_nccl_wheel}")
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION
  REASON_FAILURE_MESSAGE "looked in NCCL_ROOT='${NCCL_ROOT}$ENV{NCCL_ROOT}', the CUDA toolkit, the system and the pip wheel folders '${_nccl_wheel_list}' - set NCCL_ROOT to the folder holding include/nccl.h and lib/libnccl.so*")
if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
