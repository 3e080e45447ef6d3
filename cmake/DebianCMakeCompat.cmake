# Work-arounds for Debian 12's unmodified CMake 3.25.1, the CMake a fresh machine gets.
#
# tandem_find_cuda_toolkit(): find_package(CUDAToolkit REQUIRED). CMake 3.25.1's
# FindCUDAToolkit tags CUDA::nvToolsExt deprecated whenever cmake_minimum_required is >= 3.25
# and the toolkit is >= 10, without checking the target exists; CUDA 12.9+ ships no
# libnvToolsExt (nvtx3 is header-only), so configure stops at "set_property could not find
# TARGET CUDA::nvToolsExt" (fixed upstream in 3.25.2). The module sees the minimum version as
# 3.24 for the duration of the call, which skips only that branch. A macro, so the
# CUDAToolkit_* variables land in the caller's scope.
macro(tandem_find_cuda_toolkit)
  set(_tandem_min_version ${CMAKE_MINIMUM_REQUIRED_VERSION})
  if(CMAKE_VERSION VERSION_LESS 3.25.2)
    set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
  endif()
  find_package(CUDAToolkit REQUIRED)
  set(CMAKE_MINIMUM_REQUIRED_VERSION ${_tandem_min_version})
endmacro()
