// cuDNN LSTM on a ragged batch over garbage memory: the outputs at padded steps (t >= seq_lengths[b]) are exactly 0 — y
// of the forward (cuDNN's paddingFill) and dx of the backward (which cuDNN leaves unwritten; lstm_cudnn.cc zeroes it),
// as JAX's masked LSTM gives. The device pool is first filled with NaN and freed, so the outputs land in NaN memory and
// an unwritten padded step reads NaN, not a lucky 0 of fresh driver memory. Skips without a GPU or without cuDNN (ctest
// label gpu).
#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <cmath>

#include "engine/core/test_values.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/lstm_cudnn.h"
#include "engine/prims/lstm.h"

namespace tandem {
namespace {

const LstmConfig kConfig{3, 6, 2, 5, 2, true};  // batch 3, T 6, 2 layers, bidirectional
const std::vector<double> kLens{6, 1, 4};        // ragged: rows 1 and 2 have padded steps

// A device block of `bytes` filled with NaN (all bits set), freed back to the pool; returns its address range so a test
// can tell whether a later tensor landed inside it. The pool's other free memory is released first (the tandem pool is
// the device's default pool, cuda_memory.h), so the NaN block is the only free memory the next allocations can use.
std::pair<const char*, const char*> poison_pool(size_t bytes) {
  cudaMemPool_t pool;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
  EXPECT_EQ(cudaMemPoolTrimTo(pool, 0), cudaSuccess);
  Tensor t = Tensor::empty({int64_t(bytes / 4)}, DType::f32, Device::cuda(0));
  EXPECT_EQ(cudaMemset(t.raw(), 0xff, bytes), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const char* p = static_cast<const char*>(t.raw());
  return {p, p + bytes};
}

Tensor device_random(const Shape& s, unsigned seed, double scale = 1.0) {
  std::vector<double> v = random_values(num_elements(s), seed);
  for (double& x : v) x *= scale;
  return Tensor::from_f64(v, s, DType::f32).to(Device::cuda(0));
}

// Every element of [B, T, width] at t >= lens[b] is exactly 0; valid steps are finite.
void expect_padded_steps_zero(const Tensor& out, const char* what) {
  std::vector<double> v = out.to_f64();
  const int64_t B = out.shape()[0], T = out.shape()[1], W = out.shape()[2];
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t w = 0; w < W; ++w) {
        double x = v[size_t((b * T + t) * W + w)];
        if (t >= int64_t(kLens[size_t(b)]))
          ASSERT_EQ(x, 0.0) << what << "[" << b << ", " << t << ", " << w << "]: padded step";
        else ASSERT_TRUE(std::isfinite(x)) << what << "[" << b << ", " << t << ", " << w << "]";
      }
}

bool inside(const void* p, std::pair<const char*, const char*> r) {
  return static_cast<const char*>(p) >= r.first && static_cast<const char*>(p) < r.second;
}

TEST(LstmCudnn, PaddedStepsAreZeroOverNanMemory) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
#if !TANDEM_HAVE_CUDNN
  GTEST_SKIP() << "built without cuDNN";
#else
  const LstmConfig& c = kConfig;
  const Shape state{c.pseudo_layers(), c.batch, c.hidden};
  const int64_t nw = get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional);
  std::vector<Tensor> f = {device_random({c.batch, c.seq, c.input}, 4), device_random(state, 5),
                           device_random(state, 6), device_random({nw}, 7, 1.0 / std::sqrt(double(c.hidden))),
                           Tensor::from_f64(kLens, {c.batch}, DType::i32).to(Device::cuda(0))};
  const Params p = lstm_params(c, "HIGHEST", /*training=*/true);
  constexpr size_t kPoison = size_t(64) << 20;  // far more than one call's buffers

  auto fwd_poison = poison_pool(kPoison);
  std::vector<Tensor> fwd = cuda_impl::lstm_fwd_cudnn(f, p);
  ASSERT_TRUE(inside(fwd[0].raw(), fwd_poison)) << "y did not land in the NaN block: the check would prove nothing";
  expect_padded_steps_zero(fwd[0], "y");

  std::vector<Tensor> bwd_in = {device_random({c.batch, c.seq, c.dirs() * c.hidden}, 1),
                                device_random(state, 2), device_random(state, 3)};
  bwd_in.insert(bwd_in.end(), f.begin(), f.end());
  bwd_in.push_back(fwd[0]);
  bwd_in.push_back(fwd[3]);
  auto bwd_poison = poison_pool(kPoison);
  std::vector<Tensor> g = cuda_impl::lstm_bwd_cudnn(bwd_in, p);
  ASSERT_TRUE(inside(g[0].raw(), bwd_poison)) << "dx did not land in a NaN block: the check would prove nothing";
  expect_padded_steps_zero(g[0], "dx");
  for (int i : {1, 2})  // dh0, dc0: written for every row (lengths >= 1)
    for (double x : g[size_t(i)].to_f64()) ASSERT_TRUE(std::isfinite(x)) << (i == 1 ? "dh0" : "dc0");
#endif
}

}  // namespace
}  // namespace tandem
