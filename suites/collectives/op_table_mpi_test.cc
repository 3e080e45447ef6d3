// The op table's sweep entries under mpirun at 1-4 ranks: for every sweepable op, dtype and place, the tandem call and
// the raw library call each produce exactly the closed-form expected values on fresh buffers (so the #wrong column of a
// passing sweep means something), a corrupted element is seen, and the table's lists agree with what the CLI offers.
// The same on NCCL device buffers against the raw NCCL calls (skipped, with the reason, without a CUDA+NCCL build or a
// GPU per rank).
#include <gtest/gtest.h>

#include <memory>

#include "engine/comm/mpi_communicator.h"
#include "engine/comm/nccl_communicator.h"
#include "engine/core/error.h"
#include "suites/collectives/op_table.h"
#include "suites/collectives/sweep_format.h"

namespace tandem::coll {
namespace {

comm::Collectives& ctx() {
  static comm::Collectives c(comm::mpi_world());
  return c;
}

int64_t wrong(const SweepRow& s) {
  const std::vector<double> got = s.recv.to_f64();
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) bad += got[i] != s.expected(int64_t(i));
  return bad;
}

void expect_rows_match(comm::Collectives& c) {
  const std::string backend = c.world().backend();
  const std::vector<DType> dtypes = *parse_sweep_dtypes("all");  // kept alive for the loop
  for (const CollOp& op : coll_ops()) {
    if (!op.sweepable()) continue;
    ASSERT_TRUE(op.busfactor) << op.name;
    ASSERT_TRUE(op.raw_call.count(backend)) << op.name << " has no raw call for " << backend;
    for (DType t : dtypes)
      for (bool inplace : {false, true}) {
        if (inplace && !op.in_place) continue;
        for (bool raw : {false, true}) {
          SweepRow s = op.sweep(c, {}, SweepArgs{4096 + 24, t, inplace, comm::ReduceOp::sum});
          ASSERT_EQ(s.recv.device(), c.world().device()) << op.name;
          ASSERT_GT(s.count, 0);
          ASSERT_LE(s.bytes, 4096 + 24) << op.name;  // S never exceeds the request
          (raw ? s.raw : s.run)();
          EXPECT_EQ(wrong(s), 0) << op.name << " " << dtype_name(t) << (raw ? " raw" : " tandem")
                                 << (inplace ? " in place" : "");
          // A wrong element is seen (the check can fail).
          std::vector<double> got = s.recv.to_f64();
          got[got.size() / 2] += 1;
          const Tensor bad = Tensor::from_f64(got, s.recv.shape(), t);
          SweepRow corrupted = s;
          corrupted.recv = bad;
          EXPECT_EQ(wrong(corrupted), 1) << op.name;
        }
      }
  }
}

TEST(OpTable, SweepRowsOfTandemAndRawMatchTheirExpectedValues) { expect_rows_match(ctx()); }

TEST(OpTable, NcclSweepRowsOfTandemAndRawMatchTheirExpectedValues) {
  std::unique_ptr<comm::Communicator> nccl;
  try {
    nccl = comm::make_nccl_communicator(comm::mpi_world());
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::unsupported) throw;
    GTEST_SKIP() << e.what();
  }
  comm::Collectives c(*nccl);
  expect_rows_match(c);
}

TEST(OpTable, NamesAreUniqueAndTheSweepIsASubset) {
  std::vector<std::string> all = op_names(false), sweep = op_names(true);
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = 0; j < i; ++j) EXPECT_NE(all[i], all[j]);
  for (const std::string& s : sweep) EXPECT_NE(find_op(s), nullptr) << s;
  EXPECT_EQ(find_op("no_such_op"), nullptr);
  EXPECT_GE(sweep.size(), 7u);
}

}  // namespace
}  // namespace tandem::coll
