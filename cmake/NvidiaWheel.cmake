# tandem_nvidia_wheel_dir(<package> <out-var>): the folder of a pip wheel's NVIDIA library
# (site-packages/nvidia/<package>, holding include/ and lib/ with versioned .so names), as the
# python3 interpreters on PATH see it; empty when none has the wheel. PyTorch and JAX install
# cuDNN and NCCL this way (nvidia-cudnn-cu12, nvidia-nccl-cu12), so a GPU machine that has no
# system copy usually has these.
function(tandem_nvidia_wheel_dir package out)
  set(dir "")
  find_program(_tandem_python3 NAMES python3 python)
  if(_tandem_python3)
    execute_process(
      COMMAND ${_tandem_python3} -c
        "import importlib.util as u; s = u.find_spec('nvidia.${package}'); print(list(s.submodule_search_locations)[0] if s else '')"
      OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      set(dir "")
    endif()
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()
