# Finds cuDNN (headers + libcudnn); defines CUDNN::cudnn and CUDNN_VERSION. cuDNN ships no
# CMake package config, so this module is the find_package entry point. Looks, in order, in
# CUDNN_ROOT (CMake or environment variable), the CUDA toolkit, the system, and the pip wheel
# layouts (site-packages/nvidia/cudnn, nvidia/cu13), and accepts the versioned soname (libcudnn.so.9) that
# wheels and runtime-only installs ship without the unversioned dev link. NAMES_PER_DIR: the
# first folder wins with any name, so a hint never loses to a dev link further down the list.
include(${CMAKE_CURRENT_LIST_DIR}/NvidiaWheel.cmake)
tandem_nvidia_wheel_dirs(cudnn _cudnn_wheel)
set(_cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_INCLUDE_DIRS}
    ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda ${_cudnn_wheel})
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${_cudnn_hints} PATH_SUFFIXES include)
find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 libcudnn.so.8 NAMES_PER_DIR
  HINTS ${_cudnn_hints} PATH_SUFFIXES lib64 lib lib/x86_64-linux-gnu)
if(CUDNN_INCLUDE_DIR AND EXISTS "${CUDNN_INCLUDE_DIR}/cudnn_version.h")
  file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _v REGEX "#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ")
  string(REGEX REPLACE ".*CUDNN_MAJOR ([0-9]+).*" "\\1" _maj "${_v}")
  string(REGEX REPLACE ".*CUDNN_MINOR ([0-9]+).*" "\\1" _min "${_v}")
  string(REGEX REPLACE ".*CUDNN_PATCHLEVEL ([0-9]+).*" "\\1" _pat "${_v}")
  set(CUDNN_VERSION "${_maj}.${_min}.${_pat}")
endif()
string(REPLACE ";" ", " _cudnn_wheel_list "${_cudnn_wheel}")
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUDNN REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR VERSION_VAR CUDNN_VERSION
  REASON_FAILURE_MESSAGE "looked in CUDNN_ROOT='${CUDNN_ROOT}$ENV{CUDNN_ROOT}', the CUDA toolkit, the system and the pip wheel folders '${_cudnn_wheel_list}' - set CUDNN_ROOT to the folder holding include/cudnn.h and lib/libcudnn.so*")
if(CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn UNKNOWN IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES IMPORTED_LOCATION "${CUDNN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
endif()
