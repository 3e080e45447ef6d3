// conv_general_dilated's CPU impl where im2col and XLA part ways: a padded tap is skipped, not
// a zero multiplied by the weight, so an Inf or NaN weight leaves a window made of padding at
// 0 (JAX: conv of ones(1, 1, 2) with an Inf kernel and padding (1, 0) gives [0, inf, inf]).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "engine/ir/executor.h"
#include "engine/prims/conv.h"

namespace tandem {
namespace {

ConvSpec one_d(int64_t pad_lo) {
  ConvSpec s;
  s.window_strides = {1}, s.pad_lo = {pad_lo}, s.pad_hi = {0}, s.lhs_dilation = {1}, s.rhs_dilation = {1};
  s.lhs_spec = {0, 1, 2}, s.rhs_spec = {0, 1, 2}, s.out_spec = {0, 1, 2};
  return s;
}

std::vector<double> run_conv(DType t, double weight) {
  Builder b;
  Value x = b.input({1, 1, 2}, t), w = b.input({1, 1, 1}, t);
  Program p = b.build({conv_general_dilated(x, w, one_d(1))});
  return Executor().run(p, {Tensor::from_f64({1, 1}, {1, 1, 2}, t), Tensor::from_f64({weight}, {1, 1, 1}, t)})[0].to_f64();
}

TEST(ConvCpu, PaddingIsSkippedNotMultiplied) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (DType t : {DType::f32, DType::f64}) {
    EXPECT_EQ(run_conv(t, inf), (std::vector<double>{0, inf, inf})) << dtype_name(t);
    const std::vector<double> n = run_conv(t, nan);
    EXPECT_EQ(n[0], 0) << dtype_name(t);
    EXPECT_TRUE(std::isnan(n[1]) && std::isnan(n[2])) << dtype_name(t);
    EXPECT_EQ(run_conv(t, 2.5), (std::vector<double>{0, 2.5, 2.5})) << dtype_name(t);
  }
}

}  // namespace
}  // namespace tandem
