// Tensor and Allocator: live and peak bytes are counted per device, buffers free on last
// release, conversions to and from f64 are exact or round to nearest even.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/core/tensor.h"

namespace tandem {
namespace {

TEST(Allocator, CountsLiveAndPeakBytes) {
  Allocator& a = Allocator::instance();
  int64_t live0 = a.stats(Device::cpu()).live_bytes;
  a.reset_peak(Device::cpu());
  {
    Tensor x = Tensor::empty({256}, DType::f32);    // 1 KiB
    Tensor y = Tensor::empty({128}, DType::f64);    // 1 KiB
    EXPECT_EQ(a.stats(Device::cpu()).live_bytes, live0 + 2048);
    Tensor z = x;                                   // shares the buffer
    EXPECT_EQ(a.stats(Device::cpu()).live_bytes, live0 + 2048);
  }
  EXPECT_EQ(a.stats(Device::cpu()).live_bytes, live0);
  EXPECT_EQ(a.stats(Device::cpu()).peak_bytes, live0 + 2048);
  { Tensor w = Tensor::empty({10}, DType::bf16); }
  EXPECT_EQ(a.stats(Device::cpu()).peak_bytes, live0 + 2048);
}

TEST(Tensor, F64RoundTripPerDtype) {
  std::vector<double> v = {0, 1.5, -2.25, 3};
  for (DType t : {DType::f64, DType::f32, DType::bf16, DType::f16, DType::i32}) {
    Tensor x = Tensor::from_f64(v, {2, 2}, t);
    EXPECT_EQ(x.nbytes(), size_t(4 * dtype_size(t)));
    std::vector<double> back = x.to_f64();
    if (t == DType::i32) EXPECT_EQ(back[1], 1.0);
    else EXPECT_EQ(back, v) << dtype_name(t);
  }
  Tensor b = Tensor::from_f64({0, 2, -1}, {3}, DType::pred);
  EXPECT_EQ(b.to_f64(), (std::vector<double>{0, 1, 1}));
}

TEST(Tensor, RoundsToDtype) {
  Tensor x = Tensor::from_f64({1.0 + 1.0 / 512}, {1}, DType::bf16);
  EXPECT_EQ(x.to_f64()[0], 1.0);
}

TEST(Tensor, BadShapesAreClearErrors) {
  EXPECT_THROW(Tensor::empty({-1, 2}, DType::f32), Error);
  EXPECT_THROW(Tensor::from_f64({1, 2, 3}, {2, 2}, DType::f32), Error);
}

TEST(Tensor, ZeroSizeAndScalar) {
  Tensor e = Tensor::zeros({0, 3}, DType::f32);
  EXPECT_EQ(e.numel(), 0);
  Tensor s = Tensor::scalar(2.5, DType::f32);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.to_f64()[0], 2.5);
}

TEST(Tensor, NoCudaCopyWithoutBackend) {
#ifndef TANDEM_HAVE_CUDA
  Tensor x = Tensor::zeros({2}, DType::f32);
  try {
    x.to(Device::cuda(0));
    FAIL() << "expected an unsupported error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
  }
#else
  GTEST_SKIP() << "CUDA backend built: device copies are tested in engine/cuda";
#endif
}

}  // namespace
}  // namespace tandem
