// CUDA dot_general results checked bit for bit, on a GPU (ctest label gpu):
//  - TF32_TF32_F32 (and DEFAULT / HIGH, which resolve to it on CUDA) rounds its operands to
//    tf32 to nearest even before cuBLAS, at shapes small enough for cuBLAS to choose a SIMT
//    kernel: with K = 1 each output is one product of two tf32 values, exact in f32 whatever
//    kernel or accumulator cuBLAS uses, so it must equal the CPU emulation bit for bit.
//    Operands left f32, truncated, or rounded half away fail (the inputs have non-tie dropped
//    bits and exact ties).
//  - The same GEMM twice gives the same bits, with CUBLAS_WORKSPACE_CONFIG set before the
//    first handle (cublas_env.h) — the setting this determinism rests on.
// The rounding function itself is CPU-tested bit for bit (suites/dot/tf32_rounding_test.cc).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/half.h"
#include "engine/core/test_values.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"

namespace tandem {
namespace {

Tensor matmul(Device d, const Tensor& l, const Tensor& r, const std::string& precision) {
  Builder b;
  Value x = b.input(l.shape(), l.dtype()), y = b.input(r.shape(), r.dtype());
  Program p = b.build({dot_general(x, y, DotDims{{1}, {0}, {}, {}}, precision)});
  return Executor(d).run(p, {l, r})[0].to(Device::cpu());
}

// f32 values whose 13 dropped bits are, by index: random (no tie), an exact tie with an even
// kept part, an exact tie with an odd kept part, and 1 ulp under a tie.
Tensor tf32_probe_values(const Shape& s, unsigned seed) {
  std::vector<double> v = random_values(num_elements(s), seed);
  Tensor t = Tensor::from_f64(v, s, DType::f32);
  float* x = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint32_t u = f32_bits(x[i]) & ~0x1fffu;
    switch (i % 4) {
      case 0: u |= (f32_bits(x[i]) & 0x1fffu) | 0x1u; break;  // random low bits, never 0x1000
      case 1: u = (u & ~0x2000u) | 0x1000u; break;             // tie, kept part even
      case 2: u = u | 0x2000u | 0x1000u; break;                // tie, kept part odd
      case 3: u |= 0x0fffu; break;                              // just under the tie
    }
    x[i] = f32_from_bits(u);
  }
  return t;
}

void expect_same_bits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.numel(), want.numel()) << what;
  for (int64_t i = 0; i < got.numel(); ++i)
    ASSERT_EQ(f32_bits(got.data<float>()[i]), f32_bits(want.data<float>()[i]))
        << what << ": index " << i << " got " << got.data<float>()[i] << " want " << want.data<float>()[i];
}

TEST(DotCudaTf32, SmallShapesRoundOperandsToNearestEvenLikeTheCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
  const int64_t k = 1;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1, 1}, {4, 3}, {33, 17}, {128, 96}}) {
    Tensor l = tf32_probe_values({m, k}, unsigned(m)), r = tf32_probe_values({k, n}, unsigned(100 + n));
    for (const char* prec : {"TF32_TF32_F32", "DEFAULT", "HIGH"}) {
      std::string what = std::string(prec) + " M=" + std::to_string(m) + " N=" + std::to_string(n);
      expect_same_bits(matmul(Device::cuda(0), l, r, prec), matmul(Device::cpu(), l, r, "TF32_TF32_F32"), what);
    }
  }
}

TEST(DotCuda, SameGemmTwiceGivesTheSameBits) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
  const char* user = std::getenv("CUBLAS_WORKSPACE_CONFIG");
  std::string before = user ? user : "";
  Tensor l = Tensor::from_f64(random_values(256 * 4096, 1), {256, 4096}, DType::f32);
  Tensor r = Tensor::from_f64(random_values(4096 * 192, 2), {4096, 192}, DType::f32);
  for (const char* prec : {"F32_F32_F32", "TF32_TF32_F32", "BF16_BF16_F32_X3"}) {
    Tensor a = matmul(Device::cuda(0), l, r, prec), b = matmul(Device::cuda(0), l, r, prec);
    const char* cfg = std::getenv("CUBLAS_WORKSPACE_CONFIG");
    ASSERT_NE(cfg, nullptr) << "no CUBLAS_WORKSPACE_CONFIG after the first cuBLAS handle";
    EXPECT_EQ(std::string(cfg), user ? before : std::string(":4096:8"));
    expect_same_bits(b, a, std::string(prec) + " run 2 vs run 1");
  }
}

}  // namespace
}  // namespace tandem
