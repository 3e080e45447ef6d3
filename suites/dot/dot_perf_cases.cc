// dot_general throughput: f32 square products at 512, 1024 and 2048 for the plain and split
// presets, next to the BLAS sgemm called directly on the same operands, so one run gives
// dot_general / BLAS and the cost of X3, X6, X9 relative to one pass. On CUDA the baseline is
// cublasGemmEx called directly, at the compute type and math mode the engine uses for
// F32_F32_F32 (and for TF32_TF32_F32 in the tf32 baseline), read from the one table of them
// (engine/cuda/cublas_modes.h). The baseline's TF32 inputs are not pre-rounded: it is cuBLAS
// alone, what the engine's rounding pass costs on top is part of the comparison. Correctness
// is checked on sampled rows (a full naive reference at 2048³ would take minutes).
#include <cblas.h>
#if TANDEM_HAVE_CUDA
#include <cublas_v2.h>

#include <map>
#include <mutex>

#include "engine/core/check_cuda.h"
#include "engine/cuda/cublas_env.h"
#include "engine/cuda/cublas_modes.h"
#endif

#include <cmath>
#include <functional>

#include "bridge/reference_bridge.h"
#include "engine/core/error.h"
#include "engine/cpu/sgemm.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "harness/case.h"
#include "harness/program_case.h"
#include "suites/dot/dot_cases.h"
#include "suites/dot/dot_tolerance.h"

namespace tandem {
namespace {

// Rows {0, n/3, 2n/3, n-1} of the product, compared with the reference on those rows.
CaseResult check_sampled_rows(const Tensor& lhs, const Tensor& rhs, const std::vector<double>& got,
                              int64_t n, const ErrorSpec& spec) {
  std::vector<int64_t> rows = {0, n / 3, 2 * n / 3, n - 1};
  ref::Array a = to_ref(lhs), b = to_ref(rhs);
  ref::Array sub{{int64_t(rows.size()), n}, a.dtype, {}};
  for (int64_t r : rows) sub.data.insert(sub.data.end(), a.data.begin() + r * n, a.data.begin() + (r + 1) * n);
  ref::DotDims d{{1}, {0}, {}, {}};
  std::vector<double> want = ref::dot_general(sub, b, d, DType::f64).data;
  ref::Array abs_sub = sub, abs_b = b;
  for (double& v : abs_sub.data) v = std::abs(v);
  for (double& v : abs_b.data) v = std::abs(v);
  std::vector<double> scale = ref::dot_general(abs_sub, abs_b, d, DType::f64).data;
  std::vector<double> got_rows;
  for (int64_t r : rows) got_rows.insert(got_rows.end(), got.begin() + r * n, got.begin() + (r + 1) * n);
  CompareReport rep = compare(want, got_rows, spec, &scale);
  CaseResult res;
  res.correctness["out_sampled_rows"] = rep.to_json();
  if (!rep.pass) { res.verdict = Verdict::fail; res.message = "out: " + rep.text(); }
  return res;
}

// The BLAS sgemm on host operands, allocating its output as dot_general does, so a comparison
// is of the call alone: blas_sgemm's body.
std::function<void()> blas_call(int64_t n, const Tensor& lhs, const Tensor& rhs) {
  return [n, lhs, rhs] {
    Tensor o = Tensor::empty({n, n}, DType::f32);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f, lhs.data<float>(), int(n),
                rhs.data<float>(), int(n), 0.0f, o.data<float>(), int(n));
  };
}

// The CPU presets' anchor: the f32 product on the library the engine's dot calls (cpu::sgemm:
// oneDNN in a oneDNN build, else the BLAS) at its thread count. Not blas_sgemm when that is
// another library: two threading runtimes side by side (OpenMP's and OpenBLAS's) spin in each
// other's timed region, which load moves; on this VM the ratio to OpenBLAS moved 0.4-2.7x
// between A/A runs, to the engine's own library by a few percent.
std::function<void()> engine_library_call(int64_t n, const Tensor& lhs, const Tensor& rhs) {
  return [n, lhs, rhs] {
    Tensor o = Tensor::empty({n, n}, DType::f32);
    cpu::sgemm(false, false, n, n, n, 1.0f, lhs.data<float>(), n, rhs.data<float>(), n, 0.0f, o.data<float>(), n);
  };
}

std::function<void()> cuda_library_call(int64_t n, const Tensor& dl, const Tensor& dr, Device dev, bool tf32);

// The case a preset is measured against on this device.
std::string baseline_name(int64_t n, const std::string& preset, Device dev) {
  if (dev.kind == DeviceKind::cpu) return cat("dot/perf/N:", n, "/blas_sgemm");
  bool tf32 = preset == "TF32_TF32_F32";  // the split presets emulate f32: against f32
  return cat("dot/perf/N:", n, tf32 ? "/cublas_gemm_ex_tf32" : "/cublas_gemm_ex");
}

Case perf_case(int64_t n, const std::string& preset) {
  Case c;
  c.suite = "dot";
  c.name = cat("dot/perf/N:", n, "/alg:", preset);
  c.params = {{"m", n}, {"k", n}, {"n", n}, {"input_dtype", "f32"}, {"algorithm", preset}};
  c.profiles = profiles_from("nightly");
  c.flops = 2.0 * double(n) * double(n) * double(n);
  c.instantiate = [n, preset, name = c.name](Device dev) {
    DotAlgorithm alg = resolve_dot_algorithm(preset, DType::f32, dev.kind);
    Builder b;
    Value x = b.input({n, n}, DType::f32), y = b.input({n, n}, DType::f32);
    auto prog = std::make_shared<Program>(b.build({dot_general(x, y, {{1}, {0}, {}, {}}, preset)}));
    Tensor lhs = seeded_uniform({n, n}, DType::f32, cat("dot/perf/N:", n, "/lhs"));
    Tensor rhs = seeded_uniform({n, n}, DType::f32, cat("dot/perf/N:", n, "/rhs"));
    auto dl = std::make_shared<Tensor>(lhs.to(dev)), dr = std::make_shared<Tensor>(rhs.to(dev));
    CaseInstance inst;
    inst.body = [=] { Executor(dev).run(*prog, {*dl, *dr}); };
    inst.check = [=] {
      auto got = Executor(dev).run(*prog, {*dl, *dr})[0].to_f64();
      return check_sampled_rows(lhs, rhs, got, n, dot_error_spec(alg, DType::f32, DType::f32, n));
    };
    inst.info = {{"algorithm_run", algorithm_info(alg).name}, {"baseline", baseline_name(n, preset, dev)}};
    // The library call timed beside each repetition: the gate's yardstick (harness/anchor.h).
    const bool cpu_dev = dev.kind == DeviceKind::cpu;
    inst.anchor_name = cpu_dev ? cat("sgemm/", cpu::sgemm_library(), "/N:", n) : baseline_name(n, preset, dev);
    inst.anchor = cpu_dev ? engine_library_call(n, lhs, rhs) : cuda_library_call(n, *dl, *dr, dev, preset == "TF32_TF32_F32");
    return inst;
  };
  return c;
}

// The BLAS called directly: what dot_general's F32 path is measured against.
Case blas_case(int64_t n) {
  Case c;
  c.suite = "dot";
  c.name = cat("dot/perf/N:", n, "/blas_sgemm");
  c.params = {{"m", n}, {"k", n}, {"n", n}, {"input_dtype", "f32"}, {"algorithm", "blas_sgemm"}};
  c.profiles = profiles_from("nightly");
  c.flops = 2.0 * double(n) * double(n) * double(n);
  c.instantiate = [n](Device dev) {
    if (dev.kind != DeviceKind::cpu)
      throw_unsupported("blas_sgemm is the CPU BLAS baseline", "on CUDA the baseline is dot/perf/N:*/cublas_gemm_ex");
    Tensor lhs = seeded_uniform({n, n}, DType::f32, cat("dot/perf/N:", n, "/lhs"));
    Tensor rhs = seeded_uniform({n, n}, DType::f32, cat("dot/perf/N:", n, "/rhs"));
    auto out = std::make_shared<Tensor>(Tensor::empty({n, n}, DType::f32));
    auto sgemm = [=] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f,
                  lhs.data<float>(), int(n), rhs.data<float>(), int(n), 0.0f, out->data<float>(), int(n));
    };
    CaseInstance inst;
    inst.body = blas_call(n, lhs, rhs);
    inst.check = [=] {
      sgemm();
      return check_sampled_rows(lhs, rhs, out->to_f64(), n,
                                dot_error_spec(DotAlgorithm::F32_F32_F32, DType::f32, DType::f32, n));
    };
    return inst;
  };
  return c;
}

#if TANDEM_HAVE_CUDA
// One cuBLAS handle per device for the direct baseline, created before any timing (the
// engine keeps its own; both use the default stream).
cublasHandle_t baseline_handle(int index) {
  static std::mutex mu;
  static std::map<int, cublasHandle_t> handles;
  std::lock_guard<std::mutex> g(mu);
  cublasHandle_t& h = handles[index];
  if (!h) {
    CUDA_CHECK(cudaSetDevice(index));
    h = create_cublas_handle();  // the engine's workspace configuration too (cublas_env.h)
  }
  return h;
}

// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: B goes first, as in the engine; the
// compute type and math mode are the engine's own for the preset (cublas_modes.h).
void gemm_ex(cublasHandle_t h, int64_t n, const Tensor& a, const Tensor& b, Tensor& c,
             const cuda_impl::CublasMode& mode) {
  const float one = 1.0f, zero = 0.0f;
  int m = int(n);
  cuda_impl::apply_math_mode(h, mode);
  CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, b.raw(), CUDA_R_32F, m, a.raw(), CUDA_R_32F, m,
                            &zero, c.raw(), CUDA_R_32F, m, mode.compute, CUBLAS_GEMM_DEFAULT));
}
#endif

// cublasGemmEx on device operands at the preset's mode, as the cublas_gemm_ex cases time it.
std::function<void()> cuda_library_call(int64_t n, const Tensor& dl, const Tensor& dr, Device dev, bool tf32) {
#if TANDEM_HAVE_CUDA
  cublasHandle_t h = baseline_handle(dev.index);
  const cuda_impl::CublasMode mode = *cuda_impl::cublas_mode(tf32 ? DotAlgorithm::TF32_TF32_F32 : DotAlgorithm::F32_F32_F32);
  return [=] {
    Tensor o = Tensor::empty({n, n}, DType::f32, dev);
    gemm_ex(h, n, dl, dr, o, mode);
  };
#else
  (void)n, (void)dl, (void)dr, (void)dev, (void)tf32;
  return {};  // no CUDA device to run on in this build: no anchor
#endif
}

// cublasGemmEx called directly on device operands: what dot_general's cuBLAS path is
// measured against, in the same run.
Case cublas_case(int64_t n, bool tf32) {
  Case c;
  c.suite = "dot";
  std::string alg = tf32 ? "cublas_gemm_ex_tf32" : "cublas_gemm_ex";
  c.name = cat("dot/perf/N:", n, "/", alg);
  c.params = {{"m", n}, {"k", n}, {"n", n}, {"input_dtype", "f32"}, {"algorithm", alg}};
  c.profiles = profiles_from("nightly");
  c.flops = 2.0 * double(n) * double(n) * double(n);
  c.instantiate = [n, tf32](Device dev) -> CaseInstance {
    if (dev.kind != DeviceKind::cuda)
      throw_unsupported("cublasGemmEx is the CUDA baseline", "on the CPU the baseline is dot/perf/N:*/blas_sgemm");
#if TANDEM_HAVE_CUDA
    Tensor lhs = seeded_uniform({n, n}, DType::f32, cat("dot/perf/N:", n, "/lhs"));
    Tensor rhs = seeded_uniform({n, n}, DType::f32, cat("dot/perf/N:", n, "/rhs"));
    auto dl = std::make_shared<Tensor>(lhs.to(dev)), dr = std::make_shared<Tensor>(rhs.to(dev));
    cublasHandle_t h = baseline_handle(dev.index);
    const DotAlgorithm alg = tf32 ? DotAlgorithm::TF32_TF32_F32 : DotAlgorithm::F32_F32_F32;
    const cuda_impl::CublasMode mode = *cuda_impl::cublas_mode(alg);
    CaseInstance inst;
    inst.body = [=] {
      // Same allocation pattern as dot_general (the pool serves it after the warm-up).
      Tensor o = Tensor::empty({n, n}, DType::f32, dev);
      gemm_ex(h, n, *dl, *dr, o, mode);
    };
    inst.check = [=] {
      Tensor o = Tensor::empty({n, n}, DType::f32, dev);
      gemm_ex(h, n, *dl, *dr, o, mode);
      return check_sampled_rows(lhs, rhs, o.to_f64(), n, dot_error_spec(alg, DType::f32, DType::f32, n));
    };
    inst.info = {{"call", cat("cublasGemmEx, ", mode.compute_name, ", ", mode.math_name)}};
    return inst;
#else
    throw_unsupported("CUDA backend not built", "configure with the CUDA toolkit");
#endif
  };
  return c;
}

}  // namespace

void register_dot_perf_cases(Registry& r) {
  for (int64_t n : {512, 1024, 2048}) {
    r.add(blas_case(n));
    r.add(cublas_case(n, false));
    r.add(cublas_case(n, true));
    for (const char* preset : {"F32_F32_F32", "BF16_BF16_F32", "TF32_TF32_F32", "BF16_BF16_F32_X3",
                               "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32_X3"})
      r.add(perf_case(n, preset));
  }
}

}  // namespace tandem
