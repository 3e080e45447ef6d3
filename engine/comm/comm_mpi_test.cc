// The collectives on the MPI backend at any world size, against closed-form expectations
// (inputs are small integers, so every dtype is exact), plus the docstring examples when
// run at 4 ranks. The full op × dtype × groups matrix against the reference model is in
// suites/collectives.
#include <gtest/gtest.h>

#include "engine/comm/collectives.h"
#include "engine/comm/mpi_communicator.h"

namespace tandem::comm {
namespace {

Collectives& ctx() {
  static Collectives c(mpi_world());
  return c;
}
int me() { return mpi_world().rank(); }
int n() { return mpi_world().size(); }
std::vector<double> v(const Tensor& t) { return t.to_f64(); }

Groups pairs_or_all() {  // [[0,1],[2,3],...] when n is even, else {}
  if (n() % 2) return {};
  Groups g;
  for (int r = 0; r < n(); r += 2) g.push_back({r, r + 1});
  return g;
}

class EveryDType : public ::testing::TestWithParam<DType> {};

TEST_P(EveryDType, PsumPmaxPmin) {
  const DType t = GetParam();
  Tensor x = Tensor::from_f64({double(me()), double(2 * me() + 1)}, {2}, t);
  EXPECT_EQ(v(psum(ctx(), x)), (std::vector<double>{n() * (n() - 1) / 2.0, double(n() * n())}));
  EXPECT_EQ(v(pmax(ctx(), x)), (std::vector<double>{double(n() - 1), double(2 * n() - 1)}));
  EXPECT_EQ(v(pmin(ctx(), x)), (std::vector<double>{0, 1}));
  Groups g = pairs_or_all();
  if (!g.empty()) {
    const int lo = me() - me() % 2;
    EXPECT_EQ(v(psum(ctx(), x, g))[0], double(2 * lo + 1));
  }
  if (n() >= 3) {  // uneven groups are allowed for reductions
    Groups uneven{{}, {n() - 1}};
    for (int r = 0; r < n() - 1; ++r) uneven[0].push_back(r);
    EXPECT_EQ(v(psum(ctx(), x, uneven))[0], me() == n() - 1 ? double(me()) : (n() - 1) * (n() - 2) / 2.0);
  }
  Tensor inplace = Tensor::from_f64({1, 2}, {2}, t);
  all_reduce_into(ctx(), ReduceOp::sum, inplace, inplace);
  EXPECT_EQ(v(inplace), (std::vector<double>{double(n()), 2.0 * n()}));
}

TEST_P(EveryDType, GatherScatterAllToAll) {
  const DType t = GetParam();
  // x[i, j] = 10 r + 3 i + j, shape [2, 3n] (values stay small enough for bf16 at n ≤ 4).
  std::vector<double> xv;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3 * n(); ++j) xv.push_back(10 * me() + 3 * i + j % 3);
  Tensor x = Tensor::from_f64(xv, {2, int64_t(3 * n())}, t);
  Tensor g = all_gather(ctx(), x, 1, false);  // [2, n, 3n]
  ASSERT_EQ(g.shape(), (Shape{2, n(), 3 * n()}));
  EXPECT_EQ(v(g)[(1 * n() + (n() - 1)) * 3 * n() + 2], 10 * (n() - 1) + 3 + 2);
  Tensor s = psum_scatter(ctx(), x, 1, true);  // [2, 3]: Σ_r (10 r + 3 i + j)
  ASSERT_EQ(s.shape(), (Shape{2, 3}));
  EXPECT_EQ(v(s)[1 * 3 + 1], 10 * n() * (n() - 1) / 2 + n() * 4);
  Tensor a = all_to_all(ctx(), x, 1, 0, true);  // [2n, 3]: block i from rank i
  ASSERT_EQ(a.shape(), (Shape{2 * n(), 3}));
  EXPECT_EQ(v(a)[((n() - 1) * 2 + 1) * 3 + 0], 10 * (n() - 1) + 3);
}

INSTANTIATE_TEST_SUITE_P(MPI, EveryDType,
                         ::testing::Values(DType::f64, DType::f32, DType::f16, DType::bf16, DType::i32),
                         [](const auto& i) { return std::string(dtype_name(i.param)); });

TEST(Collectives, PermuteBroadcastAxisIndex) {
  Tensor x = Tensor::from_f64({double(me() + 1)}, {1}, DType::f32);
  std::vector<std::pair<int, int>> ring;
  for (int r = 0; r < n(); ++r) ring.push_back({r, (r + 1) % n()});
  EXPECT_EQ(v(ppermute(ctx(), x, ring))[0], double((me() + n() - 1) % n() + 1));
  EXPECT_EQ(v(ppermute(ctx(), x, {{0, n() - 1}}))[0], me() == n() - 1 ? 1.0 : 0.0);  // no source → 0
  EXPECT_EQ(v(pbroadcast(ctx(), x, n() - 1))[0], double(n()));
  Groups g = pairs_or_all();
  EXPECT_EQ(v(axis_index(ctx(), g))[0], g.empty() ? double(me()) : double(me() % 2));
  EXPECT_EQ(v(pargmax(ctx(), x))[0], double(n() - 1));
  EXPECT_EQ(v(pmean(ctx(), Tensor::from_f64({double(me())}, {1}, DType::i32)))[0], (n() - 1) / 2.0);
}

TEST(Collectives, DocstringExamplesAtFourRanks) {
  if (n() != 4) GTEST_SKIP() << "the docstring examples are for 4 devices";
  Tensor x = Tensor::from_f64({double(me())}, {}, DType::i32);
  EXPECT_EQ(v(psum(ctx(), x, {{0, 1}, {2, 3}}))[0], me() < 2 ? 1 : 5);
  std::vector<double> row;
  for (int j = 0; j < 4; ++j) row.push_back(4 * me() + j);
  Tensor r = Tensor::from_f64(row, {4}, DType::i32);
  EXPECT_EQ(v(psum_scatter(ctx(), r, 0, false))[0], 24 + 4 * me());
  const std::vector<std::vector<double>> want{{8, 10}, {20, 22}, {12, 14}, {16, 18}};
  EXPECT_EQ(v(psum_scatter(ctx(), r, 0, true, {{0, 2}, {3, 1}})), want[size_t(me())]);
  Tensor gathered = all_gather(ctx(), r, 0, false, {{0, 2}, {3, 1}});
  EXPECT_EQ(v(gathered)[4], (me() % 2 == 0) ? 8 : 4);
}

TEST(Collectives, RaggedSeveralPeersPacked) {
  // Sender s gives receiver d (s + d) % 3 rows, packed on the receiver in sender order.
  auto rows = [](int s, int d) { return int64_t((s + d) % 3); };
  RaggedOffsets o;
  int64_t in = 0;
  std::vector<double> operand;
  for (int d = 0; d < n(); ++d) {
    o.input_offsets.push_back(in);
    o.send_sizes.push_back(rows(me(), d));
    int64_t at = 0;
    for (int s = 0; s < me(); ++s) at += rows(s, d);
    o.output_offsets.push_back(at);
    o.recv_sizes.push_back(rows(d, me()));
    for (int64_t i = 0; i < rows(me(), d); ++i) operand.push_back(1000 * me() + 10 * d + double(i));
    in += rows(me(), d);
  }
  const int64_t M = 2 * n() + 1;
  Tensor out = ragged_all_to_all(ctx(), Tensor::from_f64(operand, {in}, DType::f32),
                                 Tensor::from_f64(std::vector<double>(size_t(M), -1), {M}, DType::f32), o);
  std::vector<double> want;
  for (int s = 0; s < n(); ++s)
    for (int64_t i = 0; i < rows(s, me()); ++i) want.push_back(1000 * s + 10 * me() + double(i));
  while (int64_t(want.size()) < M) want.push_back(-1);
  EXPECT_EQ(v(out), want);
}

}  // namespace
}  // namespace tandem::comm
