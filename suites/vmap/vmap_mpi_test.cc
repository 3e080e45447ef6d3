// Collectives under vmap inside a multi-rank program, under mpirun (1 to 4 ranks): the program's collectives name the
// rank axis "ranks" (bound to the MPI world through comm_axis), the vmapped axis "batch", or both. Every rank runs
// vmap(f, "batch") on its own examples and checks them against the mesh reference {ranks: R, batch: n}, which every
// rank evaluates whole from the same seeded inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "bridge/reference_bridge.h"
#include "bridge/reference_collectives.h"
#include "engine/comm/comm_axis.h"
#include "engine/comm/mpi_test_world.h"
#include "engine/comm/nccl_communicator.h"
#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/passes/vmap.h"
#include "engine/prims/register_all.h"
#include "harness/program_case.h"
#include "suites/vmap/vmap_collective_programs.h"

namespace tandem {
namespace {
using comm::mpi_test::ctx;

Tensor inputs_of(int rank, int64_t n) { return seeded_uniform({n, 2, 3}, DType::f32, cat("vmap_mpi/", rank), -1, 1); }

// The rank axis on NCCL (device buffers), made once; unsupported (agreed on every rank)
// without a CUDA+NCCL build or a GPU per rank: the test skips with that reason.
comm::Collectives* nccl_collectives(std::string& why) {
  static std::unique_ptr<comm::Communicator> nccl;
  static std::unique_ptr<comm::Collectives> c;
  static std::string unavailable;
  if (!c && unavailable.empty()) {
    try {
      nccl = comm::make_nccl_communicator(comm::mpi_world());
      c = std::make_unique<comm::Collectives>(*nccl);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::unsupported) throw;
      unavailable = e.message();
    }
  }
  why = unavailable;
  return c.get();
}

void check_batch(int64_t n, Device dev = Device::cpu()) {
  register_all_primitives();
  comm::Collectives* coll = &ctx();
  if (dev.kind == DeviceKind::cuda) {
    std::string why;
    if (!(coll = nccl_collectives(why))) GTEST_SKIP() << why;
  }
  const int ranks = comm::mpi_test::n(), me = comm::mpi_test::me();
  Program f = vmap_suite::two_axis_program("ranks", ranks, "batch", n);
  Program batched = vmap(f, {0}, {}, n, "batch");
  Executor ex(dev);
  ex.set_axis_env({{"ranks", comm::comm_axis(*coll, "ranks")}});
  std::vector<Tensor> got = ex.run(batched, {inputs_of(me, n)});
  for (Tensor& t : got) t = t.to(Device::cpu());

  std::vector<std::vector<ref::Array>> members;  // member r * n + b: rank r's example b
  for (int r = 0; r < ranks; ++r)
    for (const Tensor& e : unstack(inputs_of(r, n), 0)) members.push_back({to_ref(e)});
  auto want = reference_eval_mesh(f, members, RefMesh{{{"ranks", ranks}, {"batch", int(n)}}});
  ASSERT_EQ(got.size(), f.out_vars.size());
  for (size_t j = 0; j < got.size(); ++j) {
    std::vector<Tensor> mine;
    for (int64_t b = 0; b < n; ++b) mine.push_back(from_ref(want[size_t(me * n + b)][j]));
    Tensor w = stack(mine, 0);
    ASSERT_EQ(got[j].shape(), w.shape()) << "output " << j;
    std::vector<double> gv = got[j].to_f64(), wv = w.to_f64();
    double scale = 1;
    for (double v : wv) scale = std::max(scale, std::abs(v));
    // f32 against f64: a sum over ranks * n members, (members + 4) roundoffs, doubled.
    double tol = 2.0 * double(ranks * n + 4) * std::ldexp(1.0, -24) * scale;
    for (size_t k = 0; k < gv.size(); ++k)
      ASSERT_NEAR(gv[k], wv[k], tol) << "output " << j << " element " << k << " on rank " << me;
  }
}

TEST(VmapCollectives, RankAxisBatchAxisAndBoth) { check_batch(3); }
TEST(VmapCollectives, OneExamplePerRank) { check_batch(1); }
TEST(VmapCollectives, RankAxisOnNccl) { check_batch(3, Device::cuda(0)); }

// A collective naming an axis nobody binds is the same bad-input error on every rank.
TEST(VmapCollectives, UnboundAxisIsBadInput) {
  register_all_primitives();
  Program f = vmap_suite::two_axis_program("nodes", comm::mpi_test::n(), "batch", 2);
  Program batched = vmap(f, {0}, {}, 2, "batch");
  Executor ex(Device::cpu());
  ex.set_axis_env({{"ranks", comm::comm_axis(ctx(), "ranks")}});
  try {
    ex.run(batched, {inputs_of(0, 2)});
    FAIL() << "expected bad input";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("'nodes': the axis is not bound (bound axes: 'ranks')"), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
}

}  // namespace
}  // namespace tandem
