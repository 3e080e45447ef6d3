# tandem_nvidia_wheel_dirs(<package> <out-var>): the folders where pip wheels of NVIDIA's
# libraries put <package>'s include/ and lib/ (with versioned .so names only):
# <dir>/nvidia/<package> (cuDNN, and NCCL up to CUDA 12) and the shared <dir>/nvidia/cu13
# (cu12) tree of the CUDA 13 wheels, for each folder <dir> on one Python's sys.path. Empty
# when there is none. PyTorch and JAX install cuDNN and NCCL this way, so a GPU machine
# without system copies usually has these — in some venv (/opt/torch/.venv on the lent GPU
# machines) whose python3 need not be first on PATH. So the Python asked is, in order:
#   TANDEM_WHEEL_PYTHON (-DTANDEM_WHEEL_PYTHON=/path/to/venv/bin/python3, or the environment
#   variable of that name, which ci/gpu_validate.sh reads too), the Python of the venv holding
#   the wheels;
#   TANDEM_PYTHON (cmake/ProjectPython.cmake), the project's Python;
#   the python3 on PATH, only when neither is set (a project that does not include
#   ProjectPython, such as cmake/find_modules_test).
# Which Python and which folders were searched is printed, so a missed wheel is explained.
function(tandem_nvidia_wheel_python out_python out_why)
  if(NOT TANDEM_WHEEL_PYTHON AND DEFINED ENV{TANDEM_WHEEL_PYTHON})
    set(TANDEM_WHEEL_PYTHON "$ENV{TANDEM_WHEEL_PYTHON}")
  endif()
  if(TANDEM_WHEEL_PYTHON)
    if(NOT EXISTS "${TANDEM_WHEEL_PYTHON}")
      message(FATAL_ERROR "TANDEM_WHEEL_PYTHON='${TANDEM_WHEEL_PYTHON}' does not exist\n"
                          "  hint: pass the python3 of the venv holding the nvidia-* wheels, e.g. /opt/torch/.venv/bin/python3")
    endif()
    set(${out_python} "${TANDEM_WHEEL_PYTHON}" PARENT_SCOPE)
    set(${out_why} "TANDEM_WHEEL_PYTHON" PARENT_SCOPE)
  elseif(TANDEM_PYTHON)
    set(${out_python} "${TANDEM_PYTHON}" PARENT_SCOPE)
    set(${out_why} "TANDEM_PYTHON" PARENT_SCOPE)
  else()
    find_program(TANDEM_PYTHON3 NAMES python3 python)
    set(${out_python} "${TANDEM_PYTHON3}" PARENT_SCOPE)
    set(${out_why} "the python3 on PATH" PARENT_SCOPE)
  endif()
endfunction()

function(tandem_nvidia_wheel_dirs package out)
  tandem_nvidia_wheel_python(py why)
  set(path "")
  if(py)
    # sys.path's folders; CMake looks for nvidia/<package> in each (a fake venv python that
    # prints its site-packages folder is enough for the test).
    execute_process(COMMAND ${py} -c "import os, sys; print(';'.join(p for p in sys.path if p and os.path.isdir(p)))"
                    OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      set(path "")
    endif()
  endif()
  set(dirs "")
  foreach(p IN LISTS path)
    foreach(sub ${package} cu13 cu12)
      if(IS_DIRECTORY "${p}/nvidia/${sub}")
        list(APPEND dirs "${p}/nvidia/${sub}")
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  string(REPLACE ";" ", " shown "${dirs}")
  if(NOT shown)
    set(shown "none")
  endif()
  message(STATUS "tandem: ${package} pip wheels: searched the sys.path of ${py} (${why}): ${shown}")
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()
