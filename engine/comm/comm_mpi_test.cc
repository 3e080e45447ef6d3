// The collectives on the MPI backend at any world size, against closed-form expectations
// (inputs are small integers, so every dtype is exact), plus the docstring examples when
// run at 4 ranks. The full op × dtype × groups matrix against the reference model is in
// suites/collectives.
#include <gtest/gtest.h>

#include "engine/comm/collectives.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/mpi_test_world.h"

namespace tandem::comm {
namespace {

using namespace mpi_test;

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
  if (n() != 4) GTEST_SKIP() << needs_ranks("4", n()) << " (the docstring examples are for 4 devices)";
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

// Two slices per peer, rows of 3, neither side back to back: slices sit in the operand in
// reverse order with a gap row between them, and land in the output reversed per sender
// with gaps, so both the send packing and the receive scatter paths run.
TEST(Collectives, RaggedTwoSlicesPerPeerScattered) {
  const int64_t per = 2, K = per * n(), C = 3;
  auto rows = [](int s, int d, int64_t l) { return int64_t((s + 2 * d + l) % 2 + 1); };
  auto landing = [&](int d, int s, int64_t l) {  // row of receiver d where (s, l) lands
    int64_t at = 0;
    for (int s2 = 0; s2 < n(); ++s2)
      for (int64_t l2 = per - 1; l2 >= 0; --l2) {
        if (s2 == s && l2 == l) return at;
        at += rows(s2, d, l2) + 1;
      }
    return at;
  };
  auto value = [](int s, int d, int64_t l, int64_t i, int64_t e) { return 4.0 * (1000 * s + 100 * d + 10 * l + i) + e; };
  RaggedOffsets o;
  o.input_offsets.resize(size_t(K));
  int64_t in = 0;
  for (int64_t k = K - 1; k >= 0; --k) o.input_offsets[size_t(k)] = in, in += rows(me(), int(k / per), k % per) + 1;
  std::vector<double> operand(size_t(in * C), -7);
  for (int64_t k = 0; k < K; ++k) {
    const int d = int(k / per);
    const int64_t l = k % per;
    o.send_sizes.push_back(rows(me(), d, l));
    o.output_offsets.push_back(landing(d, me(), l));
    o.recv_sizes.push_back(rows(d, me(), l));  // recv_sizes[s * per + l]: from sender s = d
    for (int64_t i = 0; i < rows(me(), d, l); ++i)
      for (int64_t e = 0; e < C; ++e) operand[size_t((o.input_offsets[size_t(k)] + i) * C + e)] = value(me(), d, l, i, e);
  }
  const int64_t M = landing(me(), n() - 1, 0) + rows(n() - 1, me(), 0) + 1;
  std::vector<double> want(size_t(M * C), -1);
  for (int s = 0; s < n(); ++s)
    for (int64_t l = 0; l < per; ++l)
      for (int64_t i = 0; i < rows(s, me(), l); ++i)
        for (int64_t e = 0; e < C; ++e) want[size_t((landing(me(), s, l) + i) * C + e)] = value(s, me(), l, i, e);
  const Tensor x = Tensor::from_f64(operand, {in, C}, DType::f32);
  const Tensor initial = Tensor::from_f64(std::vector<double>(size_t(M * C), -1), {M, C}, DType::f32);
  EXPECT_EQ(v(ragged_all_to_all(ctx(), x, initial, o)), want);
  EXPECT_EQ(v(initial), std::vector<double>(size_t(M * C), -1)) << "the functional form must not write `output`";
  Tensor out = Tensor::from_f64(std::vector<double>(size_t(M * C), -1), {M, C}, DType::f32);
  ragged_all_to_all_into(ctx(), x, out, o);
  EXPECT_EQ(v(out), want);
}

// operand and output the same buffer, every rank's row s going to rank s's row me: an
// in-place transpose, correct only if no row is overwritten before it is sent.
TEST(Collectives, RaggedIntoItsOwnOperand) {
  RaggedOffsets o;
  std::vector<double> x0, want;
  for (int d = 0; d < n(); ++d) {
    o.input_offsets.push_back(d);
    o.send_sizes.push_back(1);
    o.output_offsets.push_back(me());
    o.recv_sizes.push_back(1);
    x0.push_back(100 * me() + d);
    want.push_back(100 * d + me());
  }
  Tensor x = Tensor::from_f64(x0, {n()}, DType::f64);
  ragged_all_to_all_into(ctx(), x, x, o);
  EXPECT_EQ(v(x), want);
}

}  // namespace
}  // namespace tandem::comm
