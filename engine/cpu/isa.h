// Which code the CPU kernels dispatch to on this machine: the TANDEM_VECTOR_CLONES clone
// (vector_clones.h), oneDNN's effective ISA and OpenBLAS's kernel set. Each is chosen per CPU
// at run time, so the same binary computes other bits (the order of a GEMM's sums) and other
// timings on another CPU; the run context records them (harness/context.cc) and `tandem gate`
// refuses a baseline recorded with other ones (reports/cpu_match.py).
#pragma once
#include <string>

namespace tandem::cpu {

struct CpuIsa {
  std::string vector_clones;  // "x86-64-v4" | "x86-64-v3" | "default" | "none" (built without clones)
  std::string onednn;         // "avx512_core_bf16", "avx2", ...; "" without oneDNN
  std::string openblas_core;  // "Zen", "Haswell", "SkylakeX", ...; "" with another BLAS
};

CpuIsa cpu_isa();

}  // namespace tandem::cpu
