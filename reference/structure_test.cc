// Tests of the structural ops on the examples of the JAX lax docstrings and small cases
// worked by hand, plus the errors they must raise.
#include <gtest/gtest.h>

#include <stdexcept>

#include "reference/reference.h"

namespace tandem::ref {
namespace {

using Shape = std::vector<int64_t>;
using Values = std::vector<double>;

// [n] i32 holding 0..n-1, reshaped to shape.
Array arange(Shape shape) { return reshape(iota(DType::i32, {shape_numel(shape)}, 0), shape); }

TEST(BroadcastInDim, DocstringExamples) {
  const Array x = make({3}, DType::i32, {1, 2, 3});
  const Array cols = broadcast_in_dim(x, {3, 3}, {0});  // x[i] along rows
  EXPECT_EQ(cols.shape, (Shape{3, 3}));
  EXPECT_EQ(cols.data, (Values{1, 1, 1, 2, 2, 2, 3, 3, 3}));
  EXPECT_EQ(broadcast_in_dim(x, {2, 3}, {1}).data, (Values{1, 2, 3, 1, 2, 3}));
  // A size-1 operand dim repeats: [2,1] -> [2,3,2] with out[i,j,k] = y[i,0].
  const Array y = make({2, 1}, DType::f32, {5, 6});
  EXPECT_EQ(broadcast_in_dim(y, {2, 3, 2}, {0, 2}).data, (Values{5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6}));
  EXPECT_EQ(broadcast_in_dim(scalar(DType::f32, 7), {2}, {}).data, (Values{7, 7}));
  EXPECT_EQ(broadcast_in_dim(x, {3, 0}, {0}).numel(), 0);
}

TEST(BroadcastInDim, RejectsBadDimensions) {
  const Array x = make({2, 3}, DType::f32, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(broadcast_in_dim(x, {3, 2}, {1, 0}), std::invalid_argument);  // not increasing
  EXPECT_THROW(broadcast_in_dim(x, {2, 4}, {0, 1}), std::invalid_argument);  // 3 vs 4
  EXPECT_THROW(broadcast_in_dim(x, {2, 3}, {0}), std::invalid_argument);     // rank
  EXPECT_THROW(broadcast_in_dim(x, {2, 3}, {0, 2}), std::invalid_argument);  // out of range
}

TEST(Reshape, KeepsRowMajorOrder) {
  const Array r = reshape(arange({2, 3}), {3, 2});
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  EXPECT_EQ(r.data, (Values{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(reshape(scalar(DType::f32, 1), {1, 1}).shape, (Shape{1, 1}));
  EXPECT_THROW(reshape(arange({2, 3}), {4, 2}), std::invalid_argument);
}

TEST(Transpose, MatrixAndRank3) {
  const Array t = transpose(arange({2, 3}), {1, 0});
  EXPECT_EQ(t.shape, (Shape{3, 2}));
  EXPECT_EQ(t.data, (Values{0, 3, 1, 4, 2, 5}));
  // x[i,j,k] = 12i + 4j + k with shape [2,3,4]; out = transpose(x, (2,0,1)): out[k,i,j].
  const Array x = arange({2, 3, 4});
  const Array o = transpose(x, {2, 0, 1});
  EXPECT_EQ(o.shape, (Shape{4, 2, 3}));
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(o.data[k * 6 + i * 3 + j], 12 * i + 4 * j + k);
  EXPECT_THROW(transpose(x, {0, 0, 1}), std::invalid_argument);
  EXPECT_THROW(transpose(x, {0, 1}), std::invalid_argument);
  EXPECT_THROW(transpose(x, {0, 1, 3}), std::invalid_argument);
}

TEST(Slice, DocstringExamples) {
  const Array x = arange({3, 4});  // [[0,1,2,3],[4,5,6,7],[8,9,10,11]]
  const Array s = slice(x, {1, 0}, {3, 3}, {});
  EXPECT_EQ(s.shape, (Shape{2, 3}));
  EXPECT_EQ(s.data, (Values{4, 5, 6, 8, 9, 10}));
  const Array strided = slice(x, {0, 0}, {3, 4}, {2, 3});
  EXPECT_EQ(strided.shape, (Shape{2, 2}));
  EXPECT_EQ(strided.data, (Values{0, 3, 8, 11}));
  EXPECT_EQ(slice(arange({10}), {1}, {8}, {3}).data, (Values{1, 4, 7}));
  EXPECT_EQ(slice(x, {1, 2}, {1, 4}, {}).shape, (Shape{0, 2}));
}

TEST(Slice, RejectsOutOfRange) {
  const Array x = arange({3, 4});
  EXPECT_THROW(slice(x, {0, 0}, {4, 4}, {}), std::invalid_argument);
  EXPECT_THROW(slice(x, {2, 0}, {1, 4}, {}), std::invalid_argument);
  EXPECT_THROW(slice(x, {-1, 0}, {1, 4}, {}), std::invalid_argument);
  EXPECT_THROW(slice(x, {0, 0}, {3, 4}, {1, 0}), std::invalid_argument);
  EXPECT_THROW(slice(x, {0}, {3}, {}), std::invalid_argument);
}

TEST(DynamicSlice, DocstringExamplesAndClamping) {
  const Array x = arange({3, 4});
  EXPECT_EQ(dynamic_slice(x, {1, 1}, {2, 3}).data, (Values{5, 6, 7, 9, 10, 11}));
  // Out of bounds: the start is moved back so the slice stays inside.
  EXPECT_EQ(dynamic_slice(x, {1, 1}, {2, 4}).data, (Values{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(dynamic_slice(x, {5, -3}, {1, 2}).data, (Values{8, 9}));
  EXPECT_EQ(dynamic_slice(arange({5}), {-1}, {2}).data, (Values{0, 1}));
  EXPECT_THROW(dynamic_slice(x, {0, 0}, {4, 1}), std::invalid_argument);
  EXPECT_THROW(dynamic_slice(x, {0}, {1, 1}), std::invalid_argument);
}

TEST(DynamicUpdateSlice, DocstringExamplesAndClamping) {
  const Array x = full({6}, DType::f32, 0);
  const Array y = full({3}, DType::f32, 1);
  EXPECT_EQ(dynamic_update_slice(x, y, {2}).data, (Values{0, 0, 1, 1, 1, 0}));
  EXPECT_EQ(dynamic_update_slice(x, y, {4}).data, (Values{0, 0, 0, 1, 1, 1}));  // clamped to 3
  EXPECT_EQ(dynamic_update_slice(x, y, {-2}).data, (Values{1, 1, 1, 0, 0, 0}));
  const Array m = full({3, 3}, DType::i32, 0);
  const Array u = make({2, 1}, DType::i32, {7, 8});
  EXPECT_EQ(dynamic_update_slice(m, u, {1, 2}).data, (Values{0, 0, 0, 0, 0, 7, 0, 0, 8}));
  EXPECT_THROW(dynamic_update_slice(x, full({7}, DType::f32, 1), {0}), std::invalid_argument);
  EXPECT_THROW(dynamic_update_slice(x, full({3}, DType::f16, 1), {0}), std::invalid_argument);
}

TEST(Concatenate, AlongEachDimension) {
  const Array a = make({2, 2}, DType::f32, {1, 2, 3, 4});
  const Array b = make({2, 1}, DType::f32, {5, 6});
  const Array c = concatenate({a, b}, 1);
  EXPECT_EQ(c.shape, (Shape{2, 3}));
  EXPECT_EQ(c.data, (Values{1, 2, 5, 3, 4, 6}));
  const Array r = concatenate({a, make({1, 2}, DType::f32, {7, 8}), make({0, 2}, DType::f32, {})}, 0);
  EXPECT_EQ(r.shape, (Shape{3, 2}));
  EXPECT_EQ(r.data, (Values{1, 2, 3, 4, 7, 8}));
  EXPECT_EQ(concatenate({arange({3})}, 0).data, (Values{0, 1, 2}));
  EXPECT_THROW(concatenate({a, b}, 0), std::invalid_argument);
  EXPECT_THROW(concatenate({a, a}, 2), std::invalid_argument);
  EXPECT_THROW(concatenate({}, 0), std::invalid_argument);
  EXPECT_THROW(concatenate({a, make({2, 2}, DType::f16, {1, 2, 3, 4})}, 0), std::invalid_argument);
}

TEST(Iota, DocstringExamples) {
  EXPECT_EQ(iota(DType::i32, {2, 3}, 1).data, (Values{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(iota(DType::i32, {2, 3}, 0).data, (Values{0, 0, 0, 1, 1, 1}));
  const Array big = iota(DType::bf16, {300}, 0);  // bf16 spacing is 2 from 256 on
  EXPECT_EQ(big.data[257], 256);
  EXPECT_EQ(big.data[259], 260);
  EXPECT_THROW(iota(DType::f32, {3}, 1), std::invalid_argument);
  EXPECT_THROW(iota(DType::pred, {3}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tandem::ref
