// Tests of the reference reduce_window_max / reduce_window_sum on cases worked by hand and
// checked against JAX 0.10.2's lax.reduce_window (padding, strides, both dilations, NaN).
#include "reference/reduce_window.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tandem::ref {
namespace {
using Values = std::vector<double>;

TEST(ReduceWindow, PaddedStridedMaxAndSum) {
  // x = [[0,-1,2,-3],[4,-5,6,-7],[8,-9,10,-11]], window 2x2, strides (1, 2), padding ((0,0),(1,0)).
  const Array x = make({3, 4}, DType::f32, {0, -1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11});
  const Window w{{2, 2}, {1, 2}, {{0, 0}, {1, 0}}, {1, 1}, {1, 1}};
  EXPECT_EQ(reduce_window_max(x, w).shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(reduce_window_max(x, w).data, (Values{4, 6, 8, 10}));
  EXPECT_EQ(reduce_window_sum(x, w).data, (Values{4, 2, 12, 2}));
}

TEST(ReduceWindow, Dilations) {
  const Array y = make({4}, DType::f64, {1, 5, 2, 4});
  // base_dilation 2: [1,_,5,_,2,_,4] padded by one each side, windows of 2.
  EXPECT_EQ(reduce_window_sum(y, Window{{2}, {1}, {{1, 1}}, {2}, {1}}).data, (Values{1, 1, 5, 5, 2, 2, 4, 4}));
  // window_dilation 2: one window reading y[0] and y[2].
  EXPECT_EQ(reduce_window_max(y, Window{{2}, {2}, {{0, 0}}, {1}, {2}}).data, (Values{2}));
}

TEST(ReduceWindow, NanPropagatesAndEmptyWindowsAreInit) {
  const Array y = make({3}, DType::f32, {1, NAN, 2});
  const Array m = reduce_window_max(y, Window{{2}, {1}, {{0, 0}}, {1}, {1}});
  EXPECT_TRUE(std::isnan(m.data[0]) && std::isnan(m.data[1]));
  // A window of padding only: -inf for max, 0 for sum, the lowest i32 for an i32 max.
  const Window pad_only{{1}, {1}, {{2, 0}}, {1}, {1}};
  EXPECT_EQ(reduce_window_max(make({1}, DType::f32, {7}), pad_only).data, (Values{-INFINITY, -INFINITY, 7}));
  EXPECT_EQ(reduce_window_sum(make({1}, DType::f32, {7}), pad_only).data, (Values{0, 0, 7}));
  EXPECT_EQ(reduce_window_max(make({1}, DType::i32, {7}), pad_only).data[0], double(INT32_MIN));
}

}  // namespace
}  // namespace tandem::ref
