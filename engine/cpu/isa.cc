// cpu_isa (isa.h): asks the CPU and the libraries which code they run, the same way their
// dispatchers decide it; on aarch64 (no clones) the kernel's feature bits and SVE's length.
#include "engine/cpu/isa.h"

#ifdef TANDEM_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif
#ifdef TANDEM_BLAS_OPENBLAS
extern "C" char* openblas_get_corename(void);
#endif

namespace tandem::cpu {
namespace {

// GCC's target_clones resolver picks the first clone of vector_clones.h's list whose arch level
// the CPU supports, as __builtin_cpu_supports answers it: the same question here (and the same
// build condition: no clones outside GCC on x86-64).
std::string vector_clone() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return "x86-64-v4";
  if (__builtin_cpu_supports("x86-64-v3")) return "x86-64-v3";
  return "default";
#else
  return "none";
#endif
}

#if defined(__aarch64__) && defined(__linux__)
// The aarch64 features a numeric kernel's code path depends on (vector width, half/bf16/int8
// arithmetic, dot products), in the kernel's /proc/cpuinfo names. One table: hwcaps() and the
// records read it.
struct HwcapBit {
  int word;  // 1: AT_HWCAP, 2: AT_HWCAP2
  unsigned long bit;
  const char* name;
};
constexpr HwcapBit kHwcaps[] = {
    {1, HWCAP_FP, "fp"},           {1, HWCAP_ASIMD, "asimd"},       {1, HWCAP_FPHP, "fphp"},
    {1, HWCAP_ASIMDHP, "asimdhp"}, {1, HWCAP_ASIMDDP, "asimddp"},   {1, HWCAP_ASIMDFHM, "asimdfhm"},
    {1, HWCAP_SVE, "sve"},         {2, HWCAP2_SVE2, "sve2"},        {2, HWCAP2_SVEBF16, "svebf16"},
    {2, HWCAP2_SVEI8MM, "svei8mm"}, {2, HWCAP2_BF16, "bf16"},       {2, HWCAP2_I8MM, "i8mm"},
    {2, HWCAP2_SME, "sme"},
};

void aarch64_features(CpuIsa* isa) {
  isa->arch = "aarch64";
  const unsigned long words[] = {getauxval(AT_HWCAP), getauxval(AT_HWCAP2)};
  for (const HwcapBit& h : kHwcaps)
    if (words[h.word - 1] & h.bit) isa->hwcaps += (isa->hwcaps.empty() ? "" : " ") + std::string(h.name);
  // The SVE vector length this thread runs with, in bytes (the kernel may cap it below the CPU's).
  if (getauxval(AT_HWCAP) & HWCAP_SVE) {
    const int vl = ::prctl(PR_SVE_GET_VL);
    if (vl > 0) isa->sve_bits = (vl & PR_SVE_VL_LEN_MASK) * 8;
  }
}
#endif

#ifdef TANDEM_HAVE_ONEDNN
// dnnl_cpu_isa_t's names (oneapi/dnnl/dnnl_types.h), as ONEDNN_MAX_CPU_ISA spells them.
std::string onednn_isa() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    // No cap: what an aarch64 build answers (its API names no aarch64 ISA; hwcaps says which).
    case dnnl_cpu_isa_all: return "all";
    default: return "isa_" + std::to_string(int(dnnl_get_effective_cpu_isa()));
  }
}
#endif

}  // namespace

CpuIsa cpu_isa() {
  CpuIsa isa;
  isa.vector_clones = vector_clone();
#ifdef TANDEM_HAVE_ONEDNN
  isa.onednn = onednn_isa();
#endif
#ifdef TANDEM_BLAS_OPENBLAS
  if (const char* core = openblas_get_corename()) isa.openblas_core = core;
#endif
#if defined(__aarch64__) && defined(__linux__)
  aarch64_features(&isa);
#endif
  return isa;
}

}  // namespace tandem::cpu
