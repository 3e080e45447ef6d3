// The semantic rules of docs/COLLECTIVES.md on the MPI backend at any world size, against
// closed forms computed here from every rank's input: pmean of integers beyond 2^24, NaN
// and signed zeros in pmax/pmin/pargmax/pargmin for every float dtype, psum of -0.0, pmean
// over uneven groups, and bool inputs; the NCCL device path (when a GPU is there) by the same rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>

#include "engine/comm/collectives.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/mpi_test_world.h"
#include "engine/comm/nccl_communicator.h"
#include "engine/core/error.h"

namespace tandem::comm {
namespace {

using namespace mpi_test;

// Rank r's i32 input: element 0 is 2^24 + 1 on rank 0 and 1 elsewhere (summing f32-rounded
// inputs loses the +1s from 2 ranks on); element 1 is 2^28 + 3r + 1.
std::vector<double> big_ints(int r) { return {r == 0 ? 16777217.0 : 1.0, 268435456.0 + 3 * r + 1}; }

TEST(Semantics, PmeanOfInt32SumsInInt32ThenDividesInF32) {
  std::vector<int64_t> sum(2, 0);
  for (int r = 0; r < n(); ++r)
    for (size_t i = 0; i < 2; ++i) sum[i] += int64_t(big_ints(r)[i]);
  Tensor m = pmean(ctx(), Tensor::from_f64(big_ints(me()), {2}, DType::i32));
  ASSERT_EQ(m.dtype(), DType::f32);
  for (size_t i = 0; i < 2; ++i)  // JAX: float32(int32 sum) / float32(n)
    EXPECT_EQ(v(m)[i], double(float(sum[i]) / float(n()))) << "element " << i;
  EXPECT_EQ(v(psum(ctx(), Tensor::from_f64(big_ints(me()), {2}, DType::i32)))[1], double(sum[1]));
}

class FloatDType : public ::testing::TestWithParam<DType> {};

// Element e < n: NaN on rank e only; element n: NaN on rank n-1 and rank 0 (the first wins
// pargmax); element n+1: no NaN, values -r; element n+2: -0.0 on even ranks, +0.0 on odd.
std::vector<double> nan_row(int r) {
  std::vector<double> x;
  for (int e = 0; e < n(); ++e) x.push_back(e == r ? NAN : double(r + 1));
  x.push_back(r == 0 || r == n() - 1 ? NAN : 1.0);
  x.push_back(-double(r));
  x.push_back(r % 2 ? 0.0 : -0.0);
  return x;
}

TEST_P(FloatDType, NanPropagatesAndTheFirstNanWinsTheArg) {
  const DType t = GetParam();
  const Tensor x = Tensor::from_f64(nan_row(me()), {int64_t(n() + 3)}, t);
  const std::vector<double> mx = v(pmax(ctx(), x)), mn = v(pmin(ctx(), x));
  const std::vector<double> amx = v(pargmax(ctx(), x)), amn = v(pargmin(ctx(), x));
  for (int e = 0; e <= n(); ++e) {
    EXPECT_TRUE(std::isnan(mx[size_t(e)]) && std::isnan(mn[size_t(e)])) << "element " << e;
    EXPECT_EQ(amx[size_t(e)], e < n() ? e : 0) << "element " << e;
    EXPECT_EQ(amn[size_t(e)], e < n() ? e : 0) << "element " << e;
  }
  const size_t plain = size_t(n() + 1), zero = plain + 1;
  EXPECT_EQ(mx[plain], 0.0);
  EXPECT_EQ(mn[plain], -double(n() - 1));
  EXPECT_EQ(amn[plain], double(n() - 1));
  // Signed zeros: max(-0, +0) = +0 and min = -0, whatever the rank order.
  EXPECT_EQ(std::signbit(mx[zero]), n() == 1) << "pmax of -0.0 and +0.0";
  EXPECT_TRUE(std::signbit(mn[zero])) << "pmin of -0.0 and +0.0";
}

TEST_P(FloatDType, PsumOfOnlyNegativeZerosIsNegativeZero) {
  // IEEE (and MPI_SUM, ncclSum): -0 + -0 = -0. JAX gives +0.0; tandem keeps -0.0 on purpose.
  const Tensor s = psum(ctx(), Tensor::from_f64({-0.0, -0.0}, {2}, GetParam()));
  EXPECT_EQ(v(s)[0], 0.0);
  EXPECT_TRUE(std::signbit(v(s)[0]) && std::signbit(v(s)[1]));
}

// The NCCL backend, or nullptr and the reason (a skip) without a CUDA+NCCL build or a GPU per rank.
std::unique_ptr<Communicator> nccl_or_reason(std::string* why) {
  try {
    return make_nccl_communicator(mpi_world());
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::unsupported) throw;
    *why = e.what();
    return nullptr;
  }
}

// NCCL on device buffers: pmax / pmin go through the order keys (ncclMax on floats would
// drop the NaN); pargmax / pargmin offer indices on the device by the same NaN rule.
TEST_P(FloatDType, NcclPmaxPminPargFollowTheSameRule) {
  std::string why;
  std::unique_ptr<Communicator> nccl = nccl_or_reason(&why);
  if (!nccl) GTEST_SKIP() << why;
  Collectives c(*nccl);
  const Tensor x = Tensor::from_f64(nan_row(me()), {int64_t(n() + 3)}, GetParam()).to(nccl->device());
  const std::vector<double> mx = v(pmax(c, x).to(Device::cpu())), mn = v(pmin(c, x).to(Device::cpu()));
  for (int e = 0; e <= n(); ++e) EXPECT_TRUE(std::isnan(mx[size_t(e)]) && std::isnan(mn[size_t(e)])) << "element " << e;
  EXPECT_EQ(mx[size_t(n() + 1)], 0.0);
  EXPECT_EQ(mn[size_t(n() + 1)], -double(n() - 1));
  EXPECT_EQ(std::signbit(mx[size_t(n() + 2)]), n() == 1);
  EXPECT_TRUE(std::signbit(mn[size_t(n() + 2)]));
  const std::vector<double> amx = v(pargmax(c, x)), amn = v(pargmin(c, x));
  for (int e = 0; e <= n(); ++e) {
    EXPECT_EQ(amx[size_t(e)], e < n() ? e : 0) << "element " << e;
    EXPECT_EQ(amn[size_t(e)], e < n() ? e : 0) << "element " << e;
  }
  EXPECT_EQ(amn[size_t(n() + 1)], double(n() - 1));
  EXPECT_EQ(amx[size_t(n() + 2)], 0.0) << "-0 == +0: the lowest index holds the max";
}

// pmean of i32 on device buffers: ncclSum in int32, then the division on the GPU in f32.
TEST(Semantics, NcclPmeanOfInt32SumsInInt32ThenDividesInF32) {
  std::string why;
  std::unique_ptr<Communicator> nccl = nccl_or_reason(&why);
  if (!nccl) GTEST_SKIP() << why;
  Collectives c(*nccl);
  std::vector<int64_t> sum(2, 0);
  for (int r = 0; r < n(); ++r)
    for (size_t i = 0; i < 2; ++i) sum[i] += int64_t(big_ints(r)[i]);
  const Tensor m = pmean(c, Tensor::from_f64(big_ints(me()), {2}, DType::i32).to(nccl->device()));
  ASSERT_EQ(m.dtype(), DType::f32);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(v(m)[i], double(float(sum[i]) / float(n()))) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(MPI, FloatDType, ::testing::Values(DType::f64, DType::f32, DType::f16, DType::bf16),
                         [](const auto& i) { return std::string(dtype_name(i.param)); });

TEST(Semantics, PmeanOverUnevenGroupsDividesByOwnGroupSize) {
  if (n() < 3) GTEST_SKIP() << needs_ranks("at least 3", n()) << " (uneven groups; ctest runs this at 3 and 4)";
  Groups g{{}, {n() - 1}};
  for (int r = 0; r + 1 < n(); ++r) g[0].push_back(r);
  const Tensor m = pmean(ctx(), Tensor::from_f64({double(me())}, {1}, DType::f32), g);
  // tandem: each group's own size. JAX would divide the lone member's sum by n - 1.
  EXPECT_EQ(v(m)[0], me() == n() - 1 ? double(n() - 1) : (n() - 2) / 2.0);
}

TEST(Semantics, BoolInputsConvertAsJax) {
  const std::vector<double> b{1, double(me() % 2), 0};  // true, odd ranks, false
  const Tensor x = Tensor::from_f64(b, {3}, DType::pred);
  const Tensor s = psum(ctx(), x);
  ASSERT_EQ(s.dtype(), DType::i32);
  EXPECT_EQ(v(s), (std::vector<double>{double(n()), double(n() / 2), 0}));
  const Tensor mx = pmax(ctx(), x), mn = pmin(ctx(), x);
  ASSERT_EQ(mx.dtype(), DType::pred);
  EXPECT_EQ(v(mx), (std::vector<double>{1, n() > 1 ? 1.0 : 0.0, 0}));  // any
  EXPECT_EQ(v(mn), (std::vector<double>{1, 0, 0}));                    // all
  const Tensor m = pmean(ctx(), x);
  ASSERT_EQ(m.dtype(), DType::f32);
  EXPECT_EQ(v(m)[1], double(float(n() / 2) / float(n())));
  EXPECT_EQ(v(pargmax(ctx(), x))[1], n() > 1 ? 1.0 : 0.0);
}

}  // namespace
}  // namespace tandem::comm
