// CUDA dot_general results checked bit for bit, on a GPU (ctest label gpu):
//  - The same GEMM twice gives the same bits, with CUBLAS_WORKSPACE_CONFIG set before the
//    first handle (cublas_env.h) — the setting this determinism rests on.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/half.h"  // f32_bits
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

void expect_same_bits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.numel(), want.numel()) << what;
  for (int64_t i = 0; i < got.numel(); ++i)
    ASSERT_EQ(f32_bits(got.data<float>()[i]), f32_bits(want.data<float>()[i]))
        << what << ": index " << i << " got " << got.data<float>()[i] << " want " << want.data<float>()[i];
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
