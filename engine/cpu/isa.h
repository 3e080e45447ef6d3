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
  std::string onednn;         // "avx512_core_bf16", "avx2", ...; "all" where oneDNN's API names none
  std::string openblas_core;  // "Zen", "Haswell", "SkylakeX", "NEOVERSEN1", ...; "" with another BLAS
  // Off x86-64 (where there are no clones to name the ISA): the architecture and the CPU's
  // features that change a kernel's code or bits, as the kernel reports them (AT_HWCAP/AT_HWCAP2
  // on aarch64: "fp asimd asimdhp asimddp sve sve2 bf16 i8mm ..."), and SVE's vector length.
  std::string arch;     // "aarch64"; "" on x86-64 (its records keep their fields unchanged)
  std::string hwcaps;   // space-separated, in the kernel's names
  int sve_bits = 0;     // 128..2048 where the CPU has SVE, else 0
};

CpuIsa cpu_isa();

}  // namespace tandem::cpu
