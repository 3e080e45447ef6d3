// CUDA dot_general against the CPU engine on the same inputs, preset by preset, in batched,
// transposed and permuted layouts, with dtype casts, Inf through the split presets and empty
// shapes; plus the GPU-less contract: without a device every CUDA entry point reports
// ErrorKind::unsupported instead of crashing. GPU tests skip when no device is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/core/error.h"
#include "engine/core/test_values.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/prims/dot_algorithm.h"

namespace tandem {
namespace {

Tensor run_dot(Device d, const Tensor& l, const Tensor& r, const DotDims& dims,
               const std::string& prec, std::optional<DType> pref = std::nullopt) {
  Builder b;
  Value x = b.input(l.shape(), l.dtype()), y = b.input(r.shape(), r.dtype());
  Program p = b.build({dot_general(x, y, dims, prec, pref)});
  return Executor(d).run(p, {l, r})[0];
}

// Σ_k |a||b| per output element, the scale every tolerance below is relative to.
std::vector<double> abs_scale(const Tensor& l, const Tensor& r, const DotDims& dims) {
  auto abs_f64 = [](const Tensor& t) {
    std::vector<double> v = t.to_f64();
    for (double& x : v) x = std::abs(x);
    return Tensor::from_f64(v, t.shape(), DType::f64);
  };
  return run_dot(Device::cpu(), abs_f64(l), abs_f64(r), dims, "F64_F64_F64").to_f64();
}

// CPU and CUDA run the same preset, so they differ only where they may: accumulation order
// (and tensor-core rounding), tf32 input conversion, narrow accumulators. Relative to Σ|a||b|.
double tolerance(DotAlgorithm a, int64_t k) {
  using A = DotAlgorithm;
  switch (a) {
    case A::F64_F64_F64: return 0x1p-44;
    case A::F32_F32_F32: case A::BF16_BF16_F32_X6: case A::BF16_BF16_F32_X9:
      return 0x1p-22 * std::max(1.0, std::sqrt(double(k)) / 8);
    case A::BF16_BF16_F32: case A::F16_F16_F32:  // inputs rounded identically on both sides
      return 0x1p-20 * std::max(1.0, std::sqrt(double(k)) / 8);
    case A::BF16_BF16_F32_X3: case A::TF32_TF32_F32_X3: return 0x1p-16;
    case A::TF32_TF32_F32: return 0x1p-11;
    case A::F16_F16_F16: return 0x1p-11 * std::sqrt(double(k));
    case A::BF16_BF16_BF16: return 0.0;  // same rounding after every add, same order: exact
    default: return 0x1p-8 * std::sqrt(double(k));
  }
}

// got vs want elementwise: non-finite values must match in kind, finite ones within
// rel · scale plus rounding of the output dtype.
void expect_close(const Tensor& got_t, const Tensor& want_t, const std::vector<double>& scale,
                  double rel, const std::string& what) {
  ASSERT_EQ(got_t.type(), want_t.type()) << what;
  EXPECT_EQ(got_t.device().kind, DeviceKind::cuda) << what;
  auto got = got_t.to_f64(), want = want_t.to_f64();
  double out_u = unit_roundoff(got_t.dtype());
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(want[i]) || !std::isfinite(got[i])) {
      bool same = std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i];
      ASSERT_TRUE(same) << what << ": index " << i << " expected " << want[i] << " got " << got[i];
      continue;
    }
    double tol = rel * scale[i] + 2 * out_u * std::abs(want[i]);
    ASSERT_LE(std::abs(got[i] - want[i]), tol)
        << what << ": first bad index " << i << " expected " << want[i] << " got " << got[i]
        << " (Σ|a||b| = " << scale[i] << ", rel tol " << rel << ")";
  }
}

struct Layout {
  const char* name;
  Shape lhs, rhs;
  DotDims dims;
  int64_t k;
};

// B=3, M=17, K=64, N=11 in layouts that take each path: GEMM-ready, transposed (cuBLAS op
// flags), permuted (gather kernel), and several contracting axes with no batch.
std::vector<Layout> layouts() {
  return {
      {"canonical", {3, 17, 64}, {3, 64, 11}, {{2}, {1}, {0}, {0}}, 64},
      {"transposed", {3, 64, 17}, {3, 11, 64}, {{1}, {2}, {0}, {0}}, 64},
      {"permuted", {17, 3, 64}, {64, 11, 3}, {{2}, {0}, {1}, {2}}, 64},
      {"multi_contract_transposed_rhs", {17, 4, 16}, {11, 4, 16}, {{1, 2}, {1, 2}, {}, {}}, 64},
  };
}

std::vector<DotAlgorithm> runnable_presets() {
  std::vector<DotAlgorithm> r;
  for (const AlgorithmInfo& i : all_algorithms())
    if (algorithm_support(i.algorithm, DeviceKind::cuda).support != Support::unsupported &&
        i.algorithm != DotAlgorithm::DEFAULT)
      r.push_back(i.algorithm);
  return r;
}

TEST(DotCuda, EveryPresetMatchesCpuInEveryLayout) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
  unsigned seed = 10;
  for (const Layout& lay : layouts()) {
    for (DotAlgorithm alg : runnable_presets()) {
      const AlgorithmInfo& info = algorithm_info(alg);
      DType in = info.storage == DType::f64 ? DType::f64 : DType::f32;
      Tensor l = Tensor::from_f64(random_values(num_elements(lay.lhs), ++seed), lay.lhs, in);
      Tensor r = Tensor::from_f64(random_values(num_elements(lay.rhs), ++seed), lay.rhs, in);
      Tensor want = run_dot(Device::cpu(), l, r, lay.dims, info.name);
      Tensor got = run_dot(Device::cuda(0), l, r, lay.dims, info.name);
      expect_close(got, want, abs_scale(l, r, lay.dims), tolerance(alg, lay.k),
                   std::string(info.name) + " / " + lay.name);
    }
  }
}

TEST(DotCuda, CastsInputsAndOutputs) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
  const Layout lay = layouts()[2];  // permuted: the gather kernel converts as it reads
  auto l64 = random_values(num_elements(lay.lhs), 1), r64 = random_values(num_elements(lay.rhs), 2);
  struct Case { DType l, r; const char* prec; std::optional<DType> pref; DotAlgorithm as_if; };
  std::vector<Case> cases = {
      {DType::bf16, DType::bf16, "DEFAULT", std::nullopt, DotAlgorithm::BF16_BF16_F32},
      {DType::bf16, DType::bf16, "DEFAULT", DType::f32, DotAlgorithm::BF16_BF16_F32},
      {DType::f16, DType::bf16, "HIGHEST", std::nullopt, DotAlgorithm::F32_F32_F32},
      {DType::f32, DType::f32, "BF16_BF16_F32", DType::bf16, DotAlgorithm::BF16_BF16_F32},
      {DType::f16, DType::f16, "F16_F16_F16", std::nullopt, DotAlgorithm::F16_F16_F16},
      {DType::f64, DType::f32, "BF16_BF16_F32_X6", DType::f32, DotAlgorithm::BF16_BF16_F32_X6},
  };
  for (const Case& c : cases) {
    Tensor l = Tensor::from_f64(l64, lay.lhs, c.l), r = Tensor::from_f64(r64, lay.rhs, c.r);
    Tensor want = run_dot(Device::cpu(), l, r, lay.dims, c.prec, c.pref);
    Tensor got = run_dot(Device::cuda(0), l, r, lay.dims, c.prec, c.pref);
    expect_close(got, want, abs_scale(l, r, lay.dims), tolerance(c.as_if, lay.k),
                 cat(dtype_name(c.l), "x", dtype_name(c.r), " ", c.prec));
  }
  // f32 DEFAULT: XLA:GPU runs TF32 where the CPU runs full f32.
  Tensor l = Tensor::from_f64(l64, lay.lhs, DType::f32), r = Tensor::from_f64(r64, lay.rhs, DType::f32);
  expect_close(run_dot(Device::cuda(0), l, r, lay.dims, "DEFAULT"),
               run_dot(Device::cpu(), l, r, lay.dims, "TF32_TF32_F32"), abs_scale(l, r, lay.dims),
               tolerance(DotAlgorithm::TF32_TF32_F32, lay.k), "f32 DEFAULT");
}

// An Inf in hi meets a zero lo in the cross terms (Inf·0 = NaN); the split presets must zero
// those NaNs and still deliver the Inf through hi·hi. A real NaN input stays NaN.
TEST(DotCuda, InfAndNanPropagateThroughSplits) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
  const double inf = INFINITY, nan = NAN;
  Tensor l = Tensor::from_f64({inf, 1, 1, 1, -inf, 2, nan, 1}, {4, 2}, DType::f32);
  Tensor r = Tensor::from_f64({1, 2, 3, 4}, {2, 2}, DType::f32);
  DotDims dims{{1}, {0}, {}, {}};
  for (DotAlgorithm alg : runnable_presets()) {
    const char* name = algorithm_info(alg).name;
    std::vector<double> got = run_dot(Device::cuda(0), l, r, dims, name).to_f64();
    EXPECT_EQ(got[0], inf) << name;
    EXPECT_EQ(got[1], inf) << name;
    EXPECT_EQ(got[2], 4.0) << name;
    EXPECT_EQ(got[3], 6.0) << name;
    EXPECT_EQ(got[4], -inf) << name;
    EXPECT_EQ(got[5], -inf) << name;
    EXPECT_TRUE(std::isnan(got[6]) && std::isnan(got[7])) << name;
  }
}

TEST(DotCuda, EmptyShapesAndIntegers) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
  DotDims mm{{1}, {0}, {}, {}};
  Tensor k0 = run_dot(Device::cuda(0), Tensor::zeros({3, 0}, DType::f32),
                      Tensor::zeros({0, 2}, DType::f32), mm, "HIGHEST");
  EXPECT_EQ(k0.to_f64(), std::vector<double>(6, 0.0));
  Tensor m0 = run_dot(Device::cuda(0), Tensor::zeros({0, 4}, DType::f32),
                      Tensor::zeros({4, 2}, DType::f32), mm, "HIGHEST");
  EXPECT_EQ(m0.shape(), (Shape{0, 2}));
  try {
    run_dot(Device::cuda(0), Tensor::zeros({2, 2}, DType::i32), Tensor::zeros({2, 2}, DType::i32), mm, "DEFAULT");
    FAIL() << "integer dot_general ran on CUDA";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported) << e.what();
  }
}

// Every device buffer goes through the Allocator: scratch is freed, the result is counted.
TEST(DotCuda, DeviceMemoryIsCounted) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
  Allocator& a = Allocator::instance();
  Tensor l = Tensor::zeros({64, 64}, DType::f32).to(Device::cuda(0));
  Tensor r = Tensor::zeros({64, 64}, DType::f32).to(Device::cuda(0));
  int64_t base = a.stats(Device::cuda(0)).live_bytes;
  a.reset_peak(Device::cuda(0));
  {
    Tensor out = run_dot(Device::cuda(0), l, r, {{1}, {0}, {}, {}}, "BF16_BF16_F32_X9");
    EXPECT_EQ(a.stats(Device::cuda(0)).live_bytes - base, 64 * 64 * 4);
    EXPECT_GT(a.stats(Device::cuda(0)).peak_bytes - base, 64 * 64 * 4) << "split parts not counted";
  }
  EXPECT_EQ(a.stats(Device::cuda(0)).live_bytes, base);
  EXPECT_THROW(Tensor::empty({1}, DType::f32, Device::cuda(cuda_device_count())), Error);
}

// ---- runs on every machine: the build and the GPU-less contract -------------------------

TEST(CudaBackend, IsBuiltAndReportsVersions) {
  EXPECT_TRUE(cuda_backend_built());
  EXPECT_FALSE(cuda_runtime_version().empty());
  EXPECT_FALSE(cublas_version().empty());
#if TANDEM_HAVE_CUDNN
  EXPECT_FALSE(cudnn_version().empty());
#endif
  int n = cuda_device_count();
  EXPECT_GE(n, 0);
  EXPECT_EQ(cuda_device_name(n), "");  // past the last device: empty, no throw
  if (n > 0) {
    EXPECT_FALSE(cuda_device_name(0).empty());
    EXPECT_FALSE(cuda_driver_version().empty());
  }
}

void expect_no_device(const std::function<void()>& f, const char* what) {
  try {
    f();
    ADD_FAILURE() << what << " ran without a CUDA device";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported) << what << ": " << e.what();
    EXPECT_NE(e.message().find("no CUDA device"), std::string::npos) << e.what();
  }
}

TEST(CudaBackend, WithoutADeviceEverythingIsUnsupported) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is visible";
  expect_no_device([] { Tensor::empty({4}, DType::f32, Device::cuda(0)); }, "Tensor::empty");
  expect_no_device([] { Tensor::zeros({4}, DType::f32).to(Device::cuda(0)); }, "Tensor::to");
  expect_no_device([] { cuda_synchronize(0); }, "cuda_synchronize");
  expect_no_device(
      [] {
        run_dot(Device::cuda(0), Tensor::zeros({2, 3}, DType::f32),
                Tensor::zeros({3, 2}, DType::f32), {{1}, {0}, {}, {}}, "DEFAULT");
      },
      "Executor(cuda) dot_general");
  EXPECT_EQ(cuda_device_name(0), "");
}

}  // namespace
}  // namespace tandem
