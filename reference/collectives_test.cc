// The collectives model against the worked examples of the JAX docstrings (psum tables,
// groups, all_gather with [[0,2],[3,1]], psum_scatter, the two-rank ragged_all_to_all,
// all_to_all shapes) and against its own contract checks.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "reference/collectives.h"
#include "reference/reference.h"

namespace tandem::ref {
namespace {

using Values = std::vector<double>;
using Shape = std::vector<int64_t>;

// Row r of x = arange(rows*cols).reshape(rows, cols) as rank r's input.
PerRank rows_of_arange(int rows, int cols, DType t = DType::i32) {
  PerRank xs;
  for (int r = 0; r < rows; ++r) {
    Values v;
    for (int c = 0; c < cols; ++c) v.push_back(r * cols + c);
    xs.push_back(make({cols}, t, v));
  }
  return xs;
}
PerRank scalars(Values v, DType t = DType::i32) {
  PerRank xs;
  for (double x : v) xs.push_back(scalar(t, x));
  return xs;
}
std::vector<Values> values_of(const PerRank& ys) {
  std::vector<Values> d;
  for (const Array& y : ys) d.push_back(y.data);
  return d;
}

TEST(Collectives, PsumDocstring) {
  EXPECT_EQ(values_of(psum(scalars({0, 1, 2, 3}))), (std::vector<Values>{{6}, {6}, {6}, {6}}));
  EXPECT_EQ(values_of(psum(scalars({0, 1, 2, 3}), {{0, 1}, {2, 3}})), (std::vector<Values>{{1}, {1}, {5}, {5}}));
  EXPECT_EQ(values_of(psum(rows_of_arange(4, 4))), (std::vector<Values>(4, {24, 28, 32, 36})));
  EXPECT_EQ(values_of(psum(rows_of_arange(4, 4), {{0, 1}, {2, 3}})),
            (std::vector<Values>{{4, 6, 8, 10}, {4, 6, 8, 10}, {20, 22, 24, 26}, {20, 22, 24, 26}}));
}

TEST(Collectives, PmeanOfIntegersIsFloat) {
  PerRank y = pmean(scalars({0, 1, 2, 3}), {{0, 1}, {2, 3}});
  EXPECT_EQ(y[0].dtype, DType::f32);
  EXPECT_EQ(values_of(y), (std::vector<Values>{{0.5}, {0.5}, {2.5}, {2.5}}));
}

TEST(Collectives, PmeanOfLargeIntegersSumsInInt32) {
  // f32(2^24 + 1 + 1) / 2: exact in int32, then f32; summing f32 inputs would give 2^23.
  EXPECT_EQ(pmean(scalars({16777217, 1}))[0].data, Values{8388609});
}

TEST(Collectives, NanSignedZerosAndBool) {
  PerRank xs = scalars({1, NAN, 3, NAN}, DType::f32);
  EXPECT_TRUE(std::isnan(pmax(xs)[0].data[0]) && std::isnan(pmin(xs)[0].data[0]));
  EXPECT_EQ(pargmax(xs)[0].data, Values{1});  // the first NaN
  EXPECT_EQ(pargmin(xs, {{3, 2}, {1, 0}})[0].data, Values{0});  // position of 3 in [3,2]
  PerRank z = scalars({-0.0, 0.0, -0.0}, DType::f32);
  EXPECT_FALSE(std::signbit(pmax(z)[0].data[0]));
  EXPECT_TRUE(std::signbit(pmin(z)[0].data[0]));
  EXPECT_TRUE(std::signbit(psum(scalars({-0.0, -0.0}, DType::f32))[0].data[0]));
  PerRank b = psum(scalars({1, 0, 1}, DType::pred));
  EXPECT_EQ(b[0].dtype, DType::i32);
  EXPECT_EQ(b[0].data, Values{2});
}

TEST(Collectives, PgatherStacksByClampedIndex) {
  PerRank y = pgather(scalars({5, 6, 7, 8}), {3}, {3, -1, 9}, {{2, 0}, {1, 3}});
  EXPECT_EQ(y[0].shape, Shape{3});
  EXPECT_EQ(values_of(y), (std::vector<Values>{{5, 7, 5}, {8, 6, 8}, {5, 7, 5}, {8, 6, 8}}));
}

TEST(Collectives, PmaxPminArgmax) {
  PerRank xs = scalars({3, 7, 7, 1});
  EXPECT_EQ(pmax(xs)[0].data, Values{7});
  EXPECT_EQ(pmin(xs, {{0, 1}, {2, 3}})[0].data, Values{3});
  EXPECT_EQ(pargmax(xs)[3].data, Values{1});  // lowest index holding the max
  EXPECT_EQ(pargmin(xs, {{3, 2}, {1, 0}})[2].data, Values{0});  // position within [3,2]
  EXPECT_EQ(values_of(axis_index(4, {{0, 2}, {3, 1}})), (std::vector<Values>{{0}, {1}, {1}, {0}}));
}

TEST(Collectives, AllGatherDocstring) {
  PerRank y = all_gather(scalars({0, 1, 2, 3}), 0, false);
  EXPECT_EQ(y[2].shape, Shape{4});
  EXPECT_EQ(y[2].data, (Values{0, 1, 2, 3}));
  PerRank g = all_gather(rows_of_arange(4, 4), 0, false, {{0, 2}, {3, 1}});
  EXPECT_EQ(g[0].shape, (Shape{2, 4}));
  EXPECT_EQ(g[0].data, (Values{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(g[1].data, (Values{12, 13, 14, 15, 4, 5, 6, 7}));
  EXPECT_EQ(g[3].data, g[1].data);
  PerRank t = all_gather(rows_of_arange(2, 3), -1, true);  // tiled along the last axis
  EXPECT_EQ(t[0].shape, Shape{6});
  PerRank s = all_gather(rows_of_arange(2, 3), 1, false);  // stacked as columns: [3,2]
  EXPECT_EQ(s[1].shape, (Shape{3, 2}));
  EXPECT_EQ(s[1].data, (Values{0, 3, 1, 4, 2, 5}));
}

TEST(Collectives, PsumScatterDocstring) {
  EXPECT_EQ(values_of(psum_scatter(rows_of_arange(4, 4), 0, false)), (std::vector<Values>{{24}, {28}, {32}, {36}}));
  PerRank t = psum_scatter(rows_of_arange(4, 4), 0, true);
  EXPECT_EQ(t[3].shape, Shape{1});
  PerRank g = psum_scatter(rows_of_arange(4, 4), 0, true, {{0, 2}, {3, 1}});
  EXPECT_EQ(values_of(g), (std::vector<Values>{{8, 10}, {20, 22}, {12, 14}, {16, 18}}));
  EXPECT_THROW(psum_scatter(rows_of_arange(4, 3), 0, true), std::invalid_argument);
}

TEST(Collectives, AllToAllShapesAndValues) {
  // x on rank r: [4, 3] with value 100r + 10i + j.
  PerRank xs;
  for (int r = 0; r < 4; ++r) {
    Values v;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) v.push_back(100 * r + 10 * i + j);
    xs.push_back(make({4, 3}, DType::f32, v));
  }
  // Untiled: insert(delete([4,3], 0), 1, 4) = [3, 4]; out[j, i] on rank me = x_i[me, j].
  PerRank u = all_to_all(xs, 0, 1, false);
  EXPECT_EQ(u[2].shape, (Shape{3, 4}));
  EXPECT_EQ(u[2].data[1 * 4 + 3], 300 + 20 + 1);
  PerRank same = pswapaxes(xs, 0);  // shape kept, out[i] = x_i[me]
  EXPECT_EQ(same[1].shape, (Shape{4, 3}));
  EXPECT_EQ(same[1].data[2 * 3 + 0], 200 + 10);
  PerRank t = all_to_all(xs, 0, -1, true);  // [4,3] → [1, 12]
  EXPECT_EQ(t[0].shape, (Shape{1, 12}));
  EXPECT_EQ(t[0].data[3 * 3 + 2], 300 + 2);
  PerRank gr = all_to_all(xs, 0, 0, true, {{0, 1}, {2, 3}});  // chunks of 2 rows
  EXPECT_EQ(gr[3].shape, (Shape{4, 3}));
  EXPECT_EQ(gr[3].data[0], 200 + 20);
  EXPECT_THROW(all_to_all(xs, 1, 0, false), std::invalid_argument);  // 3 != 4
  EXPECT_THROW(all_to_all(xs, 0, 0, true, {{0, 1, 2}, {3}}), std::invalid_argument);
}

TEST(Collectives, PpermutePshufflePbroadcast) {
  PerRank xs = scalars({10, 11, 12, 13});
  EXPECT_EQ(values_of(ppermute(xs, {{0, 1}, {1, 2}})), (std::vector<Values>{{0}, {10}, {11}, {0}}));
  EXPECT_EQ(values_of(pshuffle(xs, {3, 0, 1, 2})), (std::vector<Values>{{13}, {10}, {11}, {12}}));
  EXPECT_EQ(values_of(pbroadcast(xs, 1, {{0, 2}, {3, 1}})), (std::vector<Values>{{12}, {11}, {12}, {11}}));
  EXPECT_THROW(ppermute(xs, {{0, 1}, {2, 1}}), std::invalid_argument);
  EXPECT_THROW(pshuffle(xs, {0, 0, 1, 2}), std::invalid_argument);
}

TEST(Collectives, GroupsMustPartition) {
  PerRank xs = scalars({0, 1, 2, 3});
  EXPECT_THROW(psum(xs, {{0, 1}, {1, 2, 3}}), std::invalid_argument);
  EXPECT_THROW(psum(xs, {{0, 1}, {2}}), std::invalid_argument);
  EXPECT_THROW(psum(xs, {{0, 1}, {2, 4}}), std::invalid_argument);
  EXPECT_EQ(values_of(psum(xs, {{0, 1, 2}, {3}})), (std::vector<Values>{{3}, {3}, {3}, {3}}));
  EXPECT_THROW(all_gather(xs, 0, false, {{0, 1, 2}, {3}}), std::invalid_argument);
}

RaggedArgs ragged(Values operand, Values in_off, Values send, Values out_off, Values recv) {
  auto ints = [](const Values& v) { return std::vector<int64_t>(v.begin(), v.end()); };
  return {make({int64_t(operand.size())}, DType::f32, operand), full({4}, DType::f32, 0),
          ints(in_off), ints(send), ints(out_off), ints(recv)};
}

TEST(Collectives, RaggedAllToAllDocstring) {
  std::vector<RaggedArgs> args = {ragged({1, 2, 2}, {0, 1}, {1, 2}, {0, 0}, {1, 1}),
                                  ragged({3, 4, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 1})};
  EXPECT_EQ(values_of(ragged_all_to_all(args)), (std::vector<Values>{{1, 3, 0, 0}, {2, 2, 4, 0}}));
  // The contract: send_sizes must equal all_to_all(recv_sizes).
  args[1].recv_sizes = {1, 1};
  EXPECT_THROW(ragged_all_to_all(args), std::invalid_argument);
  args[1].recv_sizes = {2, 1};
  args[0].output_offsets = {0, 3};  // 3 + 2 > 4 on rank 1
  EXPECT_THROW(ragged_all_to_all(args), std::invalid_argument);
}

TEST(Collectives, RaggedSeveralSlicesPerPeerKeepsUnwritten) {
  // Two ranks, two slices per peer (K = 4); output starts at -1 so kept rows show.
  std::vector<RaggedArgs> args = {ragged({1, 2, 3, 4}, {0, 1, 2, 3}, {1, 1, 1, 1}, {0, 1, 0, 1}, {1, 1, 1, 1}),
                                  ragged({5, 6, 7, 8}, {0, 1, 2, 3}, {1, 1, 1, 1}, {2, 3, 2, 3}, {1, 1, 1, 1})};
  for (auto& a : args) a.output = full({4}, DType::f32, -1);
  EXPECT_EQ(values_of(ragged_all_to_all(args)), (std::vector<Values>{{1, 2, 5, 6}, {3, 4, 7, 8}}));
  args[0].send_sizes = {0, 1, 1, 1};
  args[0].recv_sizes = {0, 1, 1, 1};
  EXPECT_EQ(ragged_all_to_all(args)[0].data, (Values{-1, 2, 5, 6}));
}

}  // namespace
}  // namespace tandem::ref
