// cpu_isa (isa.h): asks the CPU and the libraries which code they run, the same way their
// dispatchers decide it.
#include "engine/cpu/isa.h"

#ifdef TANDEM_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
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
  return isa;
}

}  // namespace tandem::cpu
