// Tests of rev, pad and cumsum: values worked by hand (lax.pad's docstring cases: interior,
// negative low/high), zero-size and rank-0 operands, i32 wrap-around, bad input.
#include <gtest/gtest.h>

#include <stdexcept>

#include "reference/reference.h"

namespace tandem::ref {
namespace {
using Values = std::vector<double>;

Array iota23() { return make({2, 3}, DType::f32, {0, 1, 2, 3, 4, 5}); }

TEST(Rev, ReversesTheListedDimensions) {
  EXPECT_EQ(rev(iota23(), {1}).data, (Values{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(rev(iota23(), {0}).data, (Values{3, 4, 5, 0, 1, 2}));
  EXPECT_EQ(rev(iota23(), {1, 0}).data, (Values{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(rev(iota23(), {}).data, iota23().data);
  EXPECT_EQ(rev(scalar(DType::i32, 7), {}).data, (Values{7}));
  EXPECT_EQ(rev(full({0, 2}, DType::f64, 1), {0}).shape, (std::vector<int64_t>{0, 2}));
  EXPECT_THROW(rev(iota23(), {2}), std::invalid_argument);
  EXPECT_THROW(rev(iota23(), {0, 0}), std::invalid_argument);
}

TEST(Pad, LowHighInteriorAndCropping) {
  const Array x = make({3}, DType::f32, {1, 2, 3}), z = scalar(DType::f32, 0), nine = scalar(DType::f32, 9);
  EXPECT_EQ(pad(x, z, {1}, {2}, {0}).data, (Values{0, 1, 2, 3, 0, 0}));
  EXPECT_EQ(pad(x, nine, {0}, {0}, {1}).data, (Values{1, 9, 2, 9, 3}));
  EXPECT_EQ(pad(x, z, {-1}, {1}, {1}).data, (Values{0, 2, 0, 3, 0}));  // low -1 crops the 1
  EXPECT_EQ(pad(x, z, {-2}, {-1}, {0}).data, (Values{}));
  const Array p = pad(iota23(), nine, {1, 0}, {0, -1}, {0, 1});
  EXPECT_EQ(p.shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(p.data, (Values{9, 9, 9, 9, 0, 9, 1, 9, 3, 9, 4, 9}));
  EXPECT_EQ(pad(full({0}, DType::f32, 1), nine, {1}, {1}, {3}).data, (Values{9, 9}));
  EXPECT_EQ(pad(scalar(DType::f32, 4), nine, {}, {}, {}).data, (Values{4}));
  EXPECT_THROW(pad(x, z, {-3}, {-1}, {0}), std::invalid_argument);  // size -1
  EXPECT_THROW(pad(x, z, {0}, {0}, {-1}), std::invalid_argument);
  EXPECT_THROW(pad(x, scalar(DType::f64, 0), {0}, {0}, {0}), std::invalid_argument);
}

TEST(Cumsum, BothDirectionsRoundingAndWrap) {
  EXPECT_EQ(cumsum(iota23(), 1, false).data, (Values{0, 1, 3, 3, 7, 12}));
  EXPECT_EQ(cumsum(iota23(), 1, true).data, (Values{3, 3, 2, 12, 9, 5}));
  EXPECT_EQ(cumsum(iota23(), 0, false).data, (Values{0, 1, 2, 3, 5, 7}));
  // f32 rounds the exact prefix once (2^24 + 1 + 1 is 2^24 + 2); bf16 accumulates in bf16 as
  // XLA does (256 + 1 is 256, and again 256), f16 too.
  EXPECT_EQ(cumsum(make({3}, DType::f32, {16777216, 1, 1}), 0, false).data, (Values{16777216, 16777216, 16777218}));
  EXPECT_EQ(cumsum(make({3}, DType::bf16, {256, 1, 1}), 0, false).data, (Values{256, 256, 256}));
  EXPECT_EQ(cumsum(make({3}, DType::f16, {1, 1, 2048}), 0, true).data, (Values{2048, 2048, 2048}));
  EXPECT_EQ(cumsum(make({2}, DType::i32, {2147483647, 1}), 0, false).data, (Values{2147483647, -2147483648.0}));
  EXPECT_EQ(cumsum(full({2, 0}, DType::f32, 1), 1, false).data, (Values{}));
  EXPECT_THROW(cumsum(iota23(), 2, false), std::invalid_argument);
  EXPECT_THROW(cumsum(make({1}, DType::pred, {1}), 0, false), std::invalid_argument);
}

}  // namespace
}  // namespace tandem::ref
