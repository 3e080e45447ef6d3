# tandem_nvidia_wheel_dirs(<package> <out-var>): the folders where pip wheels of NVIDIA's
# libraries put <package>'s include/ and lib/ (with versioned .so names only), as the python3
# on PATH sees them: site-packages/nvidia/<package> (cuDNN, and NCCL up to CUDA 12) and the
# shared site-packages/nvidia/cu13 (cu12) tree of the CUDA 13 wheels. Empty when there is none.
# PyTorch and JAX install cuDNN and NCCL this way, so a GPU machine without system copies
# usually has these.
function(tandem_nvidia_wheel_dirs package out)
  set(dirs "")
  find_program(TANDEM_PYTHON3 NAMES python3 python)
  if(TANDEM_PYTHON3)
    execute_process(
      COMMAND ${TANDEM_PYTHON3} -c "
import importlib.util as u, os
s = u.find_spec('nvidia')
roots = list(s.submodule_search_locations) if s else []
print(';'.join(d for r in roots for d in (os.path.join(r, x) for x in ('${package}', 'cu13', 'cu12')) if os.path.isdir(d)))"
      OUTPUT_VARIABLE dirs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      set(dirs "")
    endif()
  endif()
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()
