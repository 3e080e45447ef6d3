// Every collective of engine/comm/collectives.h on NCCL device buffers, every dtype, against the same op on the MPI
// backend's host buffers in the same run (the host path is itself checked against the reference model by the
// collectives suite). Axes are chosen so each device path runs: leading and non-leading axes (the block transpose),
// ppermute with a rank that gets zeros and with self pairs, out-of-place pbroadcast, pgather, and ragged_all_to_all
// with scattered slices on both sides (the staging copies). Results must match bit for bit: the inputs are small
// integers, and the local math (pmean's division, pargmax's offer) is the same code on both sides (local_math.h). Skips
// with the reason, the same on every rank, without a CUDA+NCCL build or a GPU per rank.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>

#include "engine/comm/collectives.h"
#include "engine/comm/mpi_test_world.h"
#include "engine/comm/nccl_communicator.h"
#include "engine/core/error.h"

namespace tandem::comm {
namespace {

using namespace mpi_test;

// An NCCL communicator and its collectives for one test (destroyed at the test's end, not
// at exit after MPI and the CUDA runtime are gone); none, and the reason, without a GPU.
struct NcclCtx {
  std::unique_ptr<Communicator> comm;
  std::unique_ptr<Collectives> c;
};
NcclCtx nccl_ctx(std::string* why) {
  NcclCtx n;
  try {
    n.comm = make_nccl_communicator(mpi_world());
    n.c = std::make_unique<Collectives>(*n.comm);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::unsupported) throw;
    *why = e.what();
  }
  return n;
}

Groups pairs_or_all() {  // [[0,1],[2,3],...] when n is even, else the world
  if (n() % 2) return {};
  Groups g;
  for (int r = 0; r < n(); r += 2) g.push_back({r, r + 1});
  return g;
}
int group_size() { return n() % 2 ? n() : 2; }

// Rank r's input of shape s: small integers (bool: their parity), -0.0 for floats at 0.
Tensor input(const Shape& s, DType t) {
  std::vector<double> v(size_t(num_elements(s)));
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = double((7 * me() + 3 * int64_t(i)) % 13) - 6;
    v[i] = t == DType::pred ? double(int64_t(x) & 1) : x == 0 && is_floating(t) ? -0.0 : x;
  }
  return Tensor::from_f64(v, s, t);
}

// ragged_all_to_all on the world, 2 slices per peer of (s + p + l) % 3 rows (s sender, p
// receiver, l slice), laid out in reverse slice order with a gap row after each slice on
// both sides, so neither side is contiguous per peer and both go through staging.
int64_t rows(int s, int p, int l) { return (s + p + l) % 3; }
RaggedOffsets ragged_args(int64_t* operand_rows, int64_t* output_rows) {
  const int G = n(), per = 2;
  RaggedOffsets o;
  o.input_offsets.assign(size_t(G * per), 0), o.send_sizes = o.output_offsets = o.recv_sizes = o.input_offsets;
  int64_t in_at = 0;
  for (int p = 0; p < G; ++p)
    for (int l = per - 1; l >= 0; --l) {
      const size_t k = size_t(p * per + l);
      o.input_offsets[k] = in_at, o.send_sizes[k] = rows(me(), p, l);
      in_at += o.send_sizes[k] + 1;
      int64_t out_at = 0;  // where receiver p puts (me, l): after every earlier (s, l') of its own
      for (int s = 0; s < G; ++s)
        for (int l2 = per - 1; l2 >= 0; --l2) {
          if (s == me() && l2 == l) o.output_offsets[k] = out_at;
          out_at += rows(s, p, l2) + 1;
        }
      o.recv_sizes[k] = rows(p, me(), l);  // what sender p sends here as its slice l
    }
  *operand_rows = in_at;
  int64_t mine = 0;  // this rank's output rows (as a receiver)
  for (int s = 0; s < G; ++s)
    for (int l = 0; l < per; ++l) mine += rows(s, me(), l) + 1;
  *output_rows = mine;
  return o;
}

struct OpCase {
  const char* name;
  bool bool_ok;  // takes bool inputs (the data movers; the reductions convert them too)
  std::function<Tensor(Collectives&, DType, Device)> run;
};

std::vector<OpCase> cases() {
  const int G = group_size();
  const Groups g = pairs_or_all();
  auto on = [](const Shape& s, DType t, Device d) { return input(s, t).to(d); };
  std::vector<OpCase> v;
  auto add = [&](const char* name, bool bool_ok, std::function<Tensor(Collectives&, DType, Device)> f) {
    v.push_back({name, bool_ok, std::move(f)});
  };
  add("psum", true, [=](Collectives& c, DType t, Device d) { return psum(c, on({3, 2}, t, d), g); });
  add("pmax", true, [=](Collectives& c, DType t, Device d) { return pmax(c, on({3, 2}, t, d), g); });
  add("pmin", true, [=](Collectives& c, DType t, Device d) { return pmin(c, on({3, 2}, t, d), g); });
  add("pmean", true, [=](Collectives& c, DType t, Device d) { return pmean(c, on({3, 2}, t, d), g); });
  add("pargmax", true, [=](Collectives& c, DType t, Device d) { return pargmax(c, on({3, 2}, t, d), g); });
  add("pargmin", true, [=](Collectives& c, DType t, Device d) { return pargmin(c, on({3, 2}, t, d), g); });
  add("all_gather_axis0", true, [=](Collectives& c, DType t, Device d) { return all_gather(c, on({3, 2}, t, d), 0, false, g); });
  add("all_gather_axis1", true, [=](Collectives& c, DType t, Device d) { return all_gather(c, on({3, 2}, t, d), 1, false, g); });
  add("all_gather_tiled_last", true, [=](Collectives& c, DType t, Device d) { return all_gather(c, on({3, 5}, t, d), -1, true, g); });
  add("psum_scatter_dim0", false, [=](Collectives& c, DType t, Device d) { return psum_scatter(c, on({G, 3}, t, d), 0, false, g); });
  add("psum_scatter_dim1", false, [=](Collectives& c, DType t, Device d) { return psum_scatter(c, on({3, G}, t, d), 1, false, g); });
  add("psum_scatter_tiled1", false, [=](Collectives& c, DType t, Device d) { return psum_scatter(c, on({2, 2 * G, 3}, t, d), 1, true, g); });
  add("all_to_all_0_0", true, [=](Collectives& c, DType t, Device d) { return all_to_all(c, on({G, 3}, t, d), 0, 0, false, g); });
  add("all_to_all_0_1", true, [=](Collectives& c, DType t, Device d) { return all_to_all(c, on({G, 3}, t, d), 0, 1, false, g); });
  add("all_to_all_tiled_1_0", true, [=](Collectives& c, DType t, Device d) { return all_to_all(c, on({2, 2 * G}, t, d), 1, 0, true, g); });
  add("pswapaxes_1", true, [=](Collectives& c, DType t, Device d) { return pswapaxes(c, on({3, G, 2}, t, d), 1, g); });
  add("ppermute_zeros", true, [=](Collectives& c, DType t, Device d) {  // r → r+1: rank 0 gets zeros
    std::vector<std::pair<int, int>> p;
    for (int r = 0; r + 1 < n(); ++r) p.push_back({r, r + 1});
    return ppermute(c, on({4}, t, d), p);
  });
  add("ppermute_self", true, [=](Collectives& c, DType t, Device d) {  // swapped pairs, the odd one out to itself
    std::vector<std::pair<int, int>> p;
    for (int r = 0; r < n(); r += 2)
      if (r + 1 < n()) p.insert(p.end(), {{r, r + 1}, {r + 1, r}});
      else p.push_back({r, r});
    return ppermute(c, on({4}, t, d), p);
  });
  add("pshuffle", true, [=](Collectives& c, DType t, Device d) {
    std::vector<int> perm;
    for (int i = n() - 1; i >= 0; --i) perm.push_back(i);
    return pshuffle(c, on({4}, t, d), perm);
  });
  add("pbroadcast_out_of_place", true, [=](Collectives& c, DType t, Device d) { return pbroadcast(c, on({5}, t, d), G - 1, g); });
  add("pbroadcast_in_place", true, [=](Collectives& c, DType t, Device d) {
    Tensor x = on({5}, t, d);
    pbroadcast_into(c, x, x, 0, g);
    return x;
  });
  add("pgather", true, [=](Collectives& c, DType t, Device d) {  // indices in and out of range (clamped)
    return pgather(c, on({3}, t, d), Tensor::from_f64({double(G - 1), 0, double(G + 2), -1}, {2, 2}, DType::i32), g);
  });
  add("ragged_all_to_all", true, [=](Collectives& c, DType t, Device d) {
    int64_t nin = 0, nout = 0;
    const RaggedOffsets o = ragged_args(&nin, &nout);
    return ragged_all_to_all(c, on({nin, 2}, t, d), Tensor::from_f64(std::vector<double>(size_t(2 * nout), 1), {nout, 2}, t).to(d), o);
  });
  return v;
}

// Bit-for-bit equal values (NaN equals NaN; -0 differs from +0).
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)); }

class NcclEveryOp : public ::testing::TestWithParam<DType> {};

TEST_P(NcclEveryOp, MatchesTheMpiHostResult) {
  std::string why;
  NcclCtx nccl = nccl_ctx(&why);
  if (!nccl.c) GTEST_SKIP() << why;
  Collectives* dev = nccl.c.get();
  const DType t = GetParam();
  const Device d = dev->world().device();
  for (const OpCase& oc : cases()) {
    if (t == DType::pred && !oc.bool_ok) continue;  // psum_scatter of bool: refused on both backends
    SCOPED_TRACE(oc.name);
    const Tensor want = oc.run(ctx(), t, Device::cpu());
    const Tensor got = oc.run(*dev, t, d);
    ASSERT_EQ(got.device(), d) << "the result must stay on the device";
    ASSERT_EQ(got.type().str(), want.type().str());
    const std::vector<double> g = v(got), w = v(want);
    int64_t wrong = 0;
    for (size_t i = 0; i < w.size(); ++i) wrong += !same(g[i], w[i]);
    EXPECT_EQ(wrong, 0) << oc.name << " " << dtype_name(t) << ": " << wrong << " of " << w.size() << " elements differ";
  }
}

// Without a GPU the test above skips; this one runs its cases on the MPI backend at every world size ctest uses, so a
// case with arguments JAX refuses (a test bug) fails here, not first on a lent GPU machine.
class DeviceOpCases : public ::testing::TestWithParam<DType> {};
TEST_P(DeviceOpCases, AreValidOnTheMpiBackend) {
  for (const OpCase& oc : cases()) {
    if (GetParam() == DType::pred && !oc.bool_ok) continue;
    EXPECT_NO_THROW(oc.run(ctx(), GetParam(), Device::cpu())) << oc.name;
  }
}
INSTANTIATE_TEST_SUITE_P(Dtypes, DeviceOpCases,
                         ::testing::Values(DType::f64, DType::f32, DType::f16, DType::bf16, DType::i32, DType::pred),
                         [](const auto& i) { return std::string(dtype_name(i.param)); });

INSTANTIATE_TEST_SUITE_P(Dtypes, NcclEveryOp,
                         ::testing::Values(DType::f64, DType::f32, DType::f16, DType::bf16, DType::i32, DType::pred),
                         [](const auto& i) { return std::string(dtype_name(i.param)); });

}  // namespace
}  // namespace tandem::comm
