# TANDEM_PYTHON: the one Python every tool and test of the project runs with. Default: the
# venv ci/python_env.sh makes at <repo>/.venv (JAX and the NumPy stack, pinned); without one
# (an offline bundle, a GPU machine's own venv) the python3 on PATH. Says at configure time
# whether it has JAX, since the JAX oracle tests skip without it.
if(EXISTS ${PROJECT_SOURCE_DIR}/.venv/bin/python3)
  set(_tandem_python_default ${PROJECT_SOURCE_DIR}/.venv/bin/python3)
else()
  find_program(_tandem_python_default NAMES python3 NO_CACHE)
endif()
set(TANDEM_PYTHON "${_tandem_python_default}" CACHE FILEPATH "the Python of tandem's tools and tests")
if(NOT TANDEM_PYTHON OR NOT EXISTS "${TANDEM_PYTHON}")
  message(FATAL_ERROR "tandem: no Python found (TANDEM_PYTHON='${TANDEM_PYTHON}')\n"
                      "  hint: run ci/install_deps.sh (it makes .venv), or -DTANDEM_PYTHON=/path/to/python3")
endif()
execute_process(COMMAND ${TANDEM_PYTHON} -c "import jax; print('JAX', jax.__version__)"
                OUTPUT_VARIABLE _tandem_python_jax OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT _tandem_python_jax)
  set(_tandem_python_jax "no JAX: the JAX oracle tests will skip (ci/python_env.sh installs it)")
endif()
message(STATUS "tandem: Python ${TANDEM_PYTHON} (${_tandem_python_jax})")
get_filename_component(TANDEM_PYTHON_BIN_DIR ${TANDEM_PYTHON} DIRECTORY)

# Every test ctest runs (gtest's discovered ones included) sees TANDEM_PYTHON's folder first on
# PATH and TANDEM_PYTHON set, so scripts that call `python3` and `tandem report` get this
# Python: ctest includes this file before it runs the top directory's tests.
# JAX's persistent compilation cache too (in the build, so per machine: an XLA:CPU executable is
# compiled for this CPU; JAX_COMPILATION_CACHE_DIR set outside wins, as CI's kept cache): the JAX
# oracle tests compile the same small programs again and again, and a warm cache cut
# dot_vs_jax.py --quick from 19.4 s to 11.3 s of CPU. The cache key holds the program, the
# compile options, XLA_FLAGS and JAX's version, so an answer never comes from another program.
file(WRITE ${CMAKE_BINARY_DIR}/tandem_python_env.cmake
  "set(ENV{PATH} \"${TANDEM_PYTHON_BIN_DIR}:\$ENV{PATH}\")\nset(ENV{TANDEM_PYTHON} \"${TANDEM_PYTHON}\")\n"
  "if(NOT DEFINED ENV{JAX_COMPILATION_CACHE_DIR})\n"
  "  set(ENV{JAX_COMPILATION_CACHE_DIR} \"${CMAKE_BINARY_DIR}/jax-cache\")\nendif()\n"
  "set(ENV{JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS} 0)\n")
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES
             ${CMAKE_BINARY_DIR}/tandem_python_env.cmake)
