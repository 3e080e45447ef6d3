// Tests of reduce_sum / reduce_max: several axes in any order, zero-size dims, rounding of
// the f64 sum, NaN and integer wrap-around.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/reference.h"

namespace tandem::ref {
namespace {

using Shape = std::vector<int64_t>;
using Values = std::vector<double>;
constexpr double kInf = std::numeric_limits<double>::infinity();

// x[i,j,k] = 12i + 4j + k, shape [2,3,4], f32.
Array cube() { return convert(reshape(iota(DType::i32, {24}, 0), {2, 3, 4}), DType::f32); }

TEST(ReduceSum, SeveralAxesInAnyOrder) {
  // sum over i,k of 12i + 4j + k = 32j + 60.
  for (const Shape& axes : {Shape{0, 2}, Shape{2, 0}}) {
    const Array r = reduce_sum(cube(), axes);
    EXPECT_EQ(r.shape, (Shape{3}));
    EXPECT_EQ(r.data, (Values{60, 92, 124}));
  }
  const Array rows = reduce_sum(cube(), {2});  // 4*(12i + 4j) + 6
  EXPECT_EQ(rows.shape, (Shape{2, 3}));
  EXPECT_EQ(rows.data, (Values{6, 22, 38, 54, 70, 86}));
  const Array all = reduce_sum(cube(), {0, 1, 2});
  EXPECT_TRUE(all.shape.empty());
  EXPECT_EQ(all.data, (Values{276}));
  EXPECT_EQ(reduce_sum(cube(), {}).data, cube().data);
}

TEST(ReduceSum, ZeroSizeDims) {
  const Array empty_mid = full({2, 0, 3}, DType::f32, 1);
  const Array r = reduce_sum(empty_mid, {1});
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  EXPECT_EQ(r.data, (Values(6, 0.0)));
  const Array kept_empty = reduce_sum(full({0, 3}, DType::f32, 1), {1});
  EXPECT_EQ(kept_empty.shape, (Shape{0}));
  EXPECT_TRUE(kept_empty.data.empty());
  EXPECT_EQ(reduce_sum(full({0}, DType::i32, 1), {0}).data, (Values{0}));
}

TEST(ReduceSum, AccumulatesInF64AndRoundsOnce) {
  // Summed in f32 left to right this would stay 1; the exact sum 1 + 2^-23 is an f32.
  EXPECT_EQ(reduce_sum(make({3}, DType::f32, {1, 0x1p-24, 0x1p-24}), {0}).data[0], 1 + 0x1p-23);
  // bf16: exact 1 + 2^-8 is a tie, rounds to even 1.
  EXPECT_EQ(reduce_sum(make({3}, DType::bf16, {1, 0x1p-9, 0x1p-9}), {0}).data[0], 1.0);
  EXPECT_EQ(reduce_sum(make({2}, DType::f16, {60000, 60000}), {0}).data[0], kInf);
  EXPECT_TRUE(std::isnan(reduce_sum(make({2}, DType::f32, {kInf, -kInf}), {0}).data[0]));
  EXPECT_EQ(reduce_sum(make({2}, DType::i32, {2147483647, 1}), {0}).data[0], -2147483648.0);
}

TEST(ReduceSum, RejectsBadAxes) {
  EXPECT_THROW(reduce_sum(cube(), {0, 0}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(cube(), {3}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(cube(), {-1}), std::invalid_argument);
  EXPECT_THROW(reduce_sum(make({1}, DType::pred, {1}), {0}), std::invalid_argument);
}

TEST(ReduceMax, ValuesEmptyAndNan) {
  EXPECT_EQ(reduce_max(cube(), {1, 0}).data, (Values{20, 21, 22, 23}));
  EXPECT_EQ(reduce_max(cube(), {2}).data, (Values{3, 7, 11, 15, 19, 23}));
  EXPECT_EQ(reduce_max(full({2, 0}, DType::f32, 1), {1}).data, (Values{-kInf, -kInf}));
  EXPECT_EQ(reduce_max(full({0}, DType::i32, 1), {0}).data, (Values{-2147483648.0}));
  EXPECT_EQ(reduce_max(full({0}, DType::pred, 1), {0}).data, (Values{0}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Array with_nan = make({2, 3}, DType::f32, {1, nan, 3, 4, 5, -kInf});
  const Array m = reduce_max(with_nan, {1});
  EXPECT_TRUE(std::isnan(m.data[0]));
  EXPECT_EQ(m.data[1], 5);
  EXPECT_TRUE(std::isnan(reduce_max(make({2}, DType::f32, {nan, 7}), {0}).data[0]));
  EXPECT_THROW(reduce_max(cube(), {1, 1}), std::invalid_argument);
  // reduce_min: the mirror image, its own identities on empty axes, NaN propagating.
  EXPECT_EQ(reduce_min(cube(), {1, 0}).data, (Values{0, 1, 2, 3}));
  EXPECT_EQ(reduce_min(cube(), {2}).data, (Values{0, 4, 8, 12, 16, 20}));
  EXPECT_EQ(reduce_min(full({2, 0}, DType::f32, 1), {1}).data, (Values{kInf, kInf}));
  EXPECT_EQ(reduce_min(full({0}, DType::i32, 1), {0}).data, (Values{2147483647.0}));
  EXPECT_EQ(reduce_min(full({0}, DType::pred, 1), {0}).data, (Values{1}));
  EXPECT_TRUE(std::isnan(reduce_min(make({3}, DType::f32, {1, nan, -7}), {0}).data[0]));
  EXPECT_THROW(reduce_min(cube(), {3}), std::invalid_argument);
}

// reduce_prod: f64 products rounded once, i32 wrapping, 1 when empty; reduce_and / reduce_or
// on bool and on i32 bits; argmax / argmin: the first NaN, else the first extremum.
TEST(ReduceProd, ValuesWrapAndEmpty) {
  EXPECT_EQ(reduce_prod(make({2, 3}, DType::f32, {1, 2, 3, -1, 0.5, 4}), {1}).data, (Values{6, -2}));
  EXPECT_EQ(reduce_prod(make({2}, DType::i32, {65536, 65537}), {0}).data, (Values{65536}));  // 2^32 + 2^16 wraps
  EXPECT_EQ(reduce_prod(full({2, 0}, DType::f32, 1), {1}).data, (Values{1, 1}));
  EXPECT_THROW(reduce_prod(make({1}, DType::pred, {1}), {0}), std::invalid_argument);
}

TEST(ReduceLogical, BoolsAndBits) {
  const Array b = make({2, 3}, DType::pred, {1, 1, 0, 1, 1, 1});
  EXPECT_EQ(reduce_and(b, {1}).data, (Values{0, 1}));
  EXPECT_EQ(reduce_or(b, {0}).data, (Values{1, 1, 1}));
  EXPECT_EQ(reduce_and(full({0}, DType::pred, 1), {0}).data, (Values{1}));
  EXPECT_EQ(reduce_or(full({0}, DType::i32, 1), {0}).data, (Values{0}));
  EXPECT_EQ(reduce_and(make({3}, DType::i32, {-1, 6, 12}), {0}).data, (Values{4}));
  EXPECT_EQ(reduce_or(make({2}, DType::i32, {-2147483648.0, 5}), {0}).data, (Values{-2147483643.0}));
  EXPECT_THROW(reduce_or(make({1}, DType::f32, {1}), {0}), std::invalid_argument);
}

TEST(ArgMax, FirstNanThenFirstExtremum) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Array x = make({3, 4}, DType::f32, {1, 3, 3, 2, 5, nan, 7, nan, -0.0, 0.0, -1, -1});
  EXPECT_EQ(argmax(x, 1, DType::i32).data, (Values{1, 1, 0}));
  EXPECT_EQ(argmin(x, 1, DType::i32).data, (Values{0, 1, 2}));
  EXPECT_EQ(argmax(x, 0, DType::i32).data, (Values{1, 1, 1, 1}));
  EXPECT_EQ(argmax(x, 0, DType::i32).dtype, DType::i32);
  EXPECT_THROW(argmax(full({2, 0}, DType::f32, 1), 1, DType::i32), std::invalid_argument);
}

}  // namespace
}  // namespace tandem::ref
