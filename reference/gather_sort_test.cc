// Tests of the reference gather, scatter_add and sort on cases worked by hand from JAX's
// semantics: x[i] with a clamped index, take_along_axis through batching dims, fills and
// drops of out-of-range windows, and sort's order for -0.0, NaN and ties (stable).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/gather.h"
#include "reference/reference.h"
#include "reference/sort.h"

namespace tandem::ref {
namespace {

using Shape = std::vector<int64_t>;
using Values = std::vector<double>;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// jnp's x[i] on a [3,2] operand: rows by index, the index vector of one entry.
const GatherDims kRows{{1}, {0}, {0}, {}, {}};

TEST(Gather, RowsClampOrFill) {
  const Array x = make({3, 2}, DType::f32, {0, 1, 2, 3, 4, 5});
  const Array i = make({3, 1}, DType::i32, {2, 0, 5});
  const Array clip = gather(x, i, kRows, {1, 2}, IndexMode::promise_in_bounds, 0);
  EXPECT_EQ(clip.shape, (Shape{3, 2}));
  EXPECT_EQ(clip.data, (Values{4, 5, 0, 1, 4, 5}));  // 5 clamps to the last row, as XLA's gather
  EXPECT_EQ(gather(x, make({1, 1}, DType::i32, {-3}), kRows, {1, 2}, IndexMode::clip, 0).data, (Values{0, 1}));
  const Array fill = gather(x, i, kRows, {1, 2}, IndexMode::fill_or_drop, -1);
  EXPECT_EQ(fill.data, (Values{4, 5, 0, 1, -1, -1}));
  const Array nan = gather(x, i, kRows, {1, 2}, IndexMode::fill_or_drop, default_fill(DType::f32));
  EXPECT_TRUE(std::isnan(nan.data[4]) && std::isnan(nan.data[5]));
  EXPECT_EQ(default_fill(DType::i32), -2147483648.0);
}

TEST(Gather, WindowOfTwoClampsItsStart) {
  // A window of 2 rows starting at 2 of 3 rows clamps to start 1 (or is filled).
  const Array x = make({3}, DType::f32, {7, 8, 9});
  const GatherDims d{{1}, {}, {0}, {}, {}};
  const Array i = make({2, 1}, DType::i32, {2, 0});
  EXPECT_EQ(gather(x, i, d, {2}, IndexMode::clip, 0).data, (Values{8, 9, 7, 8}));
  EXPECT_EQ(gather(x, i, d, {2}, IndexMode::fill_or_drop, 0).data, (Values{0, 0, 7, 8}));
}

TEST(Gather, TakeAlongAxisThroughBatchingDims) {
  // jnp.take_along_axis(x, idx[:, None], axis=1): row b reads x[b, idx[b]].
  const Array x = make({2, 3}, DType::f32, {1, 2, 3, 4, 5, 6});
  const GatherDims d{{}, {1}, {1}, {0}, {0}};
  const Array g = gather(x, make({2, 1, 1}, DType::i32, {2, 0}), d, {1, 1}, IndexMode::fill_or_drop, kNaN);
  EXPECT_EQ(g.shape, (Shape{2, 1}));
  EXPECT_EQ(g.data, (Values{3, 4}));
}

TEST(ScatterAdd, SumsDuplicatesDropsOrClamps) {
  const Array x = full({3, 2}, DType::f32, 0);
  const Array i = make({4, 1}, DType::i32, {2, 0, 2, 7});
  const Array u = make({4, 2}, DType::f32, {1, 2, 10, 20, 100, 200, 1000, 2000});
  const ScatterDims d{{1}, {0}, {0}, {}, {}};
  EXPECT_EQ(scatter_add(x, i, u, d, IndexMode::fill_or_drop).data, (Values{10, 20, 0, 0, 101, 202}));
  EXPECT_EQ(scatter_add(x, i, u, d, IndexMode::promise_in_bounds).data, (Values{10, 20, 0, 0, 101, 202}));
  EXPECT_EQ(scatter_add(x, i, u, d, IndexMode::clip).data, (Values{10, 20, 0, 0, 1101, 2202}));
}

TEST(ScatterAdd, BatchingDimsAddPerRow) {
  // x.at[b, idx[b]].add(u[b]) for each row b.
  const Array x = make({2, 3}, DType::f64, {1, 1, 1, 1, 1, 1});
  const ScatterDims d{{}, {1}, {1}, {0}, {0}};
  const Array r = scatter_add(x, make({2, 1, 1}, DType::i32, {2, 0}), make({2, 1}, DType::f64, {5, 6}), d,
                              IndexMode::fill_or_drop);
  EXPECT_EQ(r.data, (Values{1, 1, 6, 7, 1, 1}));
}

TEST(Scatter, LastUpdateWinsDropsOrClamps) {
  // x.at[i].set(u, mode=...): row 2 is written twice (the later update stays); row 7 is out of
  // range: dropped, or clamped onto row 2 after the others under CLIP.
  const Array x = full({3, 2}, DType::f32, -1);
  const Array i = make({4, 1}, DType::i32, {2, 0, 2, 7});
  const Array u = make({4, 2}, DType::f32, {1, 2, 10, 20, 100, 200, 1000, 2000});
  const ScatterDims d{{1}, {0}, {0}, {}, {}};
  EXPECT_EQ(scatter(x, i, u, d, IndexMode::fill_or_drop).data, (Values{10, 20, -1, -1, 100, 200}));
  EXPECT_EQ(scatter(x, i, u, d, IndexMode::clip).data, (Values{10, 20, -1, -1, 1000, 2000}));
  // take_along_axis's layout: x.at[b, idx[b]].set(u[b]).
  const Array b = scatter(make({2, 3}, DType::f64, {1, 1, 1, 1, 1, 1}), make({2, 1, 1}, DType::i32, {2, 0}),
                          make({2, 1}, DType::f64, {5, 6}), ScatterDims{{}, {1}, {1}, {0}, {0}}, IndexMode::clip);
  EXPECT_EQ(b.data, (Values{1, 1, 5, 6, 1, 1}));
}

TEST(Sort, JaxFloatOrderIsStable) {
  // -0.0 and 0.0 tie (stable: -0.0 stays first), NaN after +inf.
  const Array x = make({6}, DType::f32, {3, -0.0, kNaN, 0.0, -kInf, 1});
  const Array pos = iota(DType::i32, {6}, 0);
  const std::vector<Array> s = sort({x, pos}, 0, 1);
  EXPECT_EQ(s[1].data, (Values{4, 1, 3, 5, 0, 2}));
  EXPECT_EQ(s[0].data[0], -kInf);
  EXPECT_TRUE(std::signbit(s[0].data[1]) && !std::signbit(s[0].data[2]));
  EXPECT_TRUE(std::isnan(s[0].data[5]));
}

TEST(Sort, TwoKeysAndAnInnerDimension) {
  const Array k1 = make({4}, DType::i32, {1, 0, 1, 0}), k2 = make({4}, DType::f32, {3, 2, 1, 0});
  EXPECT_EQ(sort({k1, k2, iota(DType::i32, {4}, 0)}, 0, 2)[2].data, (Values{3, 1, 2, 0}));
  // Along dim 0 of [3,2]: each column on its own.
  const Array x = make({3, 2}, DType::f32, {5, 0, 4, 2, 6, 1});
  EXPECT_EQ(sort({x}, 0, 1)[0].data, (Values{4, 0, 5, 1, 6, 2}));
  EXPECT_EQ(sort_permutation({x}, 1), (std::vector<int64_t>{1, 0, 3, 2, 5, 4}));
}

TEST(GatherSort, BadInputThrows) {
  EXPECT_THROW(index_mode("ONE_HOT"), std::invalid_argument);
  EXPECT_THROW(sort({make({2}, DType::f32, {1, 2})}, 1, 1), std::invalid_argument);
  EXPECT_THROW(gather(make({2}, DType::f32, {1, 2}), make({1, 1}, DType::i32, {0}), kRows, {1}, IndexMode::clip, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace tandem::ref
