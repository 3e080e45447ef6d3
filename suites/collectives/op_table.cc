// The op table (see op_table.h). Case inputs come from collectives_cases.cc; the sweep's
// builders fill buffers with value(q, i) at the rank's group position q, so the expected
// value of every output element has a closed form (an independent model per op). The raw
// baseline is the backend's own library call through the Communicator's data plane (one
// virtual call onto MPI_Allreduce, ncclAllReduce, …): no cast to a backend type.
#include "suites/collectives/op_table.h"

#include <algorithm>
#include <memory>
#include <tuple>

#include "bridge/reference_bridge.h"
#include "engine/comm/comm_axis.h"
#include "engine/core/error.h"
#include "suites/collectives/op_dump.h"

namespace tandem::coll {
namespace {

using comm::ReduceOp;

// n values f(i) of dtype t on `dev` (the communicator's device: host for MPI, a GPU for NCCL).
Tensor filled(int64_t n, DType t, Device dev, const std::function<double(int64_t)>& f) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = f(i);
  return Tensor::from_f64(v, {n}, t).to(dev);
}

double combine(ReduceOp op, int G, const std::function<double(int)>& at) {
  double v = at(0);
  for (int q = 1; q < G; ++q) {
    const double x = at(q);
    v = op == ReduceOp::sum ? v + x : op == ReduceOp::max ? std::max(v, x) : std::min(v, x);
  }
  return v;
}

// r → r+1, rank 0 no destination (zeros); one rank sends to itself.
Perm case_ring(int n) { return n == 1 ? ring_perm(1) : shift_perm(n); }
// pgather's indices: the last member, the first, and one each side of the range (clamped).
std::vector<int64_t> pgather_idx(int G) { return {G - 1, 0, G + 2, -1}; }
ref::Groups rg(const CaseInputs& in) { return ref::Groups(in.groups.begin(), in.groups.end()); }
// The case's groups, the whole world as one group when it has none.
comm::Groups world_or(const CaseInputs& in) {
  if (!in.groups.empty()) return in.groups;
  comm::Groups g(1);
  for (int r = 0; r < in.n; ++r) g[0].push_back(r);
  return g;
}

double factor_allreduce(int G) { return 2.0 * (G - 1) / G; }
double factor_spread(int G) { return double(G - 1) / G; }  // all_gather, reduce_scatter, all-to-all
double factor_one(int) { return 1; }

// Sweep rows. `per_rank` elements per block: n = bytes / (es × blocks), at least 1.
int64_t elements(const SweepArgs& a, int blocks) {
  return std::max<int64_t>(1, a.bytes / (int64_t(dtype_size(a.dtype)) * blocks));
}

SweepRow sweep_psum(comm::Collectives& c, const comm::Groups& g, const SweepArgs& a) {
  comm::Communicator& gc = c.group(g);
  const Device dev = gc.device();
  const int G = gc.size(), p = gc.rank();
  const int64_t n = elements(a, 1);
  SweepRow s;
  s.bytes = n * dtype_size(a.dtype), s.count = n;
  s.send = filled(n, a.dtype, dev, [&](int64_t i) { return value(p, i); });
  s.recv = a.inplace ? s.send : Tensor::empty({n}, a.dtype, dev);
  const ReduceOp op = a.redop;
  s.expected = [G, op](int64_t i) { return combine(op, G, [i](int q) { return value(q, i); }); };
  s.run = [&c, g, op, x = s.send, y = s.recv] { comm::all_reduce_into(c, op, x, y, g); };
  s.raw = [&gc, op, n, t = a.dtype, x = s.send, y = s.recv] { gc.all_reduce(x.raw(), y.raw(), n, t, op); };
  return s;
}

SweepRow sweep_all_gather(comm::Collectives& c, const comm::Groups& g, const SweepArgs& a) {
  comm::Communicator& gc = c.group(g);
  const Device dev = gc.device();
  const int G = gc.size(), p = gc.rank();
  const int64_t n = elements(a, G);
  SweepRow s;
  s.bytes = n * G * dtype_size(a.dtype), s.count = n;
  s.send = filled(n, a.dtype, dev, [&](int64_t i) { return value(p, i); });
  s.recv = Tensor::empty({G * n}, a.dtype, dev);
  s.expected = [n](int64_t i) { return value(int(i / n), i % n); };
  s.run = [&c, g, x = s.send, y = s.recv] { comm::all_gather_into(c, x, y, 0, true, g); };
  s.raw = [&gc, n, t = a.dtype, x = s.send, y = s.recv] { gc.all_gather(x.raw(), y.raw(), n, t); };
  return s;
}

SweepRow sweep_psum_scatter(comm::Collectives& c, const comm::Groups& g, const SweepArgs& a) {
  if (a.redop != ReduceOp::sum) throw_unsupported("psum_scatter reduces by sum only (JAX has no max/min scatter)");
  comm::Communicator& gc = c.group(g);
  const Device dev = gc.device();
  const int G = gc.size(), p = gc.rank();
  const int64_t n = elements(a, G);
  SweepRow s;
  s.bytes = n * G * dtype_size(a.dtype), s.count = n;
  s.send = filled(G * n, a.dtype, dev, [&](int64_t i) { return value(p, i); });
  s.recv = Tensor::empty({n}, a.dtype, dev);
  const ReduceOp op = a.redop;
  s.expected = [G, p, n, op](int64_t i) { return combine(op, G, [&](int q) { return value(q, p * n + i); }); };
  s.run = [&c, g, x = s.send, y = s.recv] { comm::psum_scatter_into(c, x, y, 0, true, g); };
  s.raw = [&gc, op, n, t = a.dtype, x = s.send, y = s.recv] { gc.reduce_scatter(x.raw(), y.raw(), n, t, op); };
  return s;
}

// all_to_all, and ragged_all_to_all with one equal slice per peer (into recv, as
// MPI_Alltoallv writes its receive buffer, so both move the same bytes).
SweepRow sweep_all_to_all(comm::Collectives& c, const comm::Groups& g, const SweepArgs& a, bool ragged) {
  comm::Communicator& gc = c.group(g);
  const Device dev = gc.device();
  const int G = gc.size(), p = gc.rank();
  const int64_t n = elements(a, G);  // block per peer
  SweepRow s;
  s.bytes = n * G * dtype_size(a.dtype), s.count = n;
  s.send = filled(G * n, a.dtype, dev, [&](int64_t i) { return value(p, i); });
  s.recv = Tensor::empty({G * n}, a.dtype, dev);
  s.expected = [p, n](int64_t i) { return value(int(i / n), p * n + i % n); };
  const DType t = a.dtype;
  if (!ragged) {
    s.run = [&c, g, x = s.send, y = s.recv] { comm::all_to_all_into(c, x, y, 0, 0, true, g); };
    s.raw = [&gc, n, t, x = s.send, y = s.recv] { gc.all_to_all(x.raw(), y.raw(), n, t); };
    return s;
  }
  auto o = std::make_shared<comm::RaggedOffsets>();
  auto displs = std::make_shared<std::vector<int64_t>>();
  for (int q = 0; q < G; ++q) {
    o->input_offsets.push_back(q * n);
    o->send_sizes.push_back(n);
    o->output_offsets.push_back(p * n);
    o->recv_sizes.push_back(n);
    displs->push_back(q * n);
  }
  s.run = [&c, g, o, x = s.send, y = s.recv] { comm::ragged_all_to_all_into(c, x, y, *o, g); };
  s.raw = [&gc, o, displs, t, x = s.send, y = s.recv] {
    gc.all_to_all_v(x.raw(), o->send_sizes, *displs, y.raw(), o->recv_sizes, *displs, t);
  };
  return s;
}

// ppermute on the world ring r → r+1 (no groups: JAX's ppermute takes none).
SweepRow sweep_ppermute(comm::Collectives& c, const comm::Groups&, const SweepArgs& a) {
  comm::Communicator& w = c.world();
  const Device dev = w.device();
  const int W = w.size(), me = w.rank();
  const int64_t n = elements(a, 1);
  SweepRow s;
  s.bytes = n * dtype_size(a.dtype), s.count = n;
  s.send = filled(n, a.dtype, dev, [&](int64_t i) { return value(me, i); });
  s.recv = Tensor::empty({n}, a.dtype, dev);
  std::vector<std::pair<int, int>> ring;
  for (int r = 0; r < W; ++r) ring.push_back({r, (r + 1) % W});
  s.expected = [W, me](int64_t i) { return value((me + W - 1) % W, i); };
  s.run = [&c, ring, x = s.send, y = s.recv] { comm::ppermute_into(c, x, y, ring); };
  s.raw = [&w, W, me, n, t = a.dtype, x = s.send, y = s.recv] {
    w.send_recv(x.raw(), (me + 1) % W, y.raw(), (me + W - 1) % W, n, t);
  };
  return s;
}

// pbroadcast from group position 0 (nccl-tests' root 0). Out of place, the raw form is what
// an MPI user writes: the root copies (memcpy; on NCCL, cudaMemcpyAsync), then MPI_Bcast /
// ncclBroadcast in place on the receive buffer.
SweepRow sweep_pbroadcast(comm::Collectives& c, const comm::Groups& g, const SweepArgs& a) {
  comm::Communicator& gc = c.group(g);
  const Device dev = gc.device();
  const int p = gc.rank();
  const int64_t n = elements(a, 1);
  SweepRow s;
  s.bytes = n * dtype_size(a.dtype), s.count = n, s.root = 0;
  s.send = filled(n, a.dtype, dev, [&](int64_t i) { return value(p, i); });
  s.recv = a.inplace ? s.send : Tensor::empty({n}, a.dtype, dev);
  s.expected = [](int64_t i) { return value(0, i); };
  s.run = [&c, g, x = s.send, y = s.recv] { comm::pbroadcast_into(c, x, y, 0, g); };
  s.raw = [&gc, n, t = a.dtype, x = s.send, y = s.recv] {
    if (gc.rank() == 0 && x.raw() != y.raw()) gc.local().copy({{x.raw(), y.raw(), int64_t(x.nbytes())}});
    gc.broadcast(y.raw(), n, t, 0);
  };
  return s;
}

using SweepFn = std::function<SweepRow(comm::Collectives&, const comm::Groups&, const SweepArgs&)>;
const SweepFn kAllToAll = [](comm::Collectives& c, const comm::Groups& g, const SweepArgs& a) { return sweep_all_to_all(c, g, a, false); };
const SweepFn kRagged = [](comm::Collectives& c, const comm::Groups& g, const SweepArgs& a) { return sweep_all_to_all(c, g, a, true); };

using RawCalls = std::map<std::string, std::string>;

// The axis grid: the axis-taking ops at every axis the [G, 2G] case input allows that the rows
// above leave out — all_gather in both forms (JAX canonicalizes a negative axis), psum_scatter
// and all_to_all non-negative only (JAX binds those as given; the IR refuses negative ones).
template <class Other>
void add_axis_grid(Other& other) {
  using C = comm::Collectives;
  using I = CaseInputs;
  auto grid = [&](const std::string& name, auto eng, auto refop) {
    other(name.c_str(), "axis grid", true, eng, refop)->axis_grid = true;
  };
  for (bool tiled : {false, true})
    for (int64_t a = tiled ? -2 : -3; a <= (tiled ? 1 : 2); ++a)
      if (a != (tiled ? -1 : 1))  // the all_gather / all_gather_tiled rows
        grid(cat("all_gather/", tiled ? "tiled/" : "", "axis:", a),
             [a, tiled](C& c, const Tensor& x, const I& in) { return comm::all_gather(c, x, a, tiled, in.groups); },
             [a, tiled](const I& in) { return ref::all_gather(in.xs, a, tiled, rg(in)); });
  grid("psum_scatter/tiled/dim:0", [](C& c, const Tensor& x, const I& in) { return comm::psum_scatter(c, x, 0, true, in.groups); },
       [](const I& in) { return ref::psum_scatter(in.xs, 0, true, rg(in)); });
  for (auto [s, cc, tiled] : {std::tuple{0, 0, false}, {0, 0, true}, {0, 1, true}, {1, 1, true}})
    grid(cat("all_to_all/", tiled ? "tiled/" : "", "split:", s, "/concat:", cc),
         [s, cc, tiled](C& c, const Tensor& x, const I& in) { return comm::all_to_all(c, x, s, cc, tiled, in.groups); },
         [s, cc, tiled](const I& in) { return ref::all_to_all(in.xs, s, cc, tiled, rg(in)); });
}

// The table being built; add() returns a pointer into it, filled in before the next add.
struct TableBuilder {
  std::vector<CollOp>& t;
  CollOp* add(CollOp op) {
    t.push_back(std::move(op));
    return &t.back();
  }
  // A reduction: the engine op and the reference take the inputs and the groups.
  template <class E, class R>
  CollOp* reduction(const char* name, const char* summary, E eng, R refop) {
    CollOp o{name, summary, true, true, false};
    o.engine = [eng](comm::Collectives& c, const Tensor& x, const CaseInputs& in) { return eng(c, x, in.groups); };
    o.reference = [refop](const CaseInputs& in) { return refop(in.xs, rg(in)); };
    o.dump = dump_reduction();
    return add(std::move(o));
  }
  template <class E, class R>
  CollOp* other(const char* name, const char* summary, bool per_group, E eng, R refop) {
    CollOp o{name, summary, false, true, per_group};
    o.engine = eng;
    o.reference = refop;
    return add(std::move(o));
  }
};

using C = comm::Collectives;
using I = CaseInputs;

// psum (the sweep's all-reduce), pmax, pmin, pmean, and the positions of the max and min.
void add_reductions(TableBuilder& b) {
  CollOp* psum = b.reduction("psum", "all-reduce (sum; -o picks max/min as nccl-tests' all_reduce does)", comm::psum,
                             [](const auto& xs, const auto& g) { return ref::psum(xs, g); });
  psum->busfactor = factor_allreduce, psum->sweep = sweep_psum, psum->in_place = true, psum->sweep_redop = true;
  psum->raw_call = RawCalls{{"mpi", "MPI_Allreduce"}, {"nccl", "ncclAllReduce"}};
  b.reduction("pmax", "elementwise max over the group", comm::pmax, [](const auto& xs, const auto& g) { return ref::pmax(xs, g); });
  b.reduction("pmin", "elementwise min over the group", comm::pmin, [](const auto& xs, const auto& g) { return ref::pmin(xs, g); });
  b.reduction("pmean", "mean over the group", comm::pmean, [](const auto& xs, const auto& g) { return ref::pmean(xs, g); });
  b.other("pargmax", "group position of the max", false, [](C& c, const Tensor& x, const I& in) { return comm::pargmax(c, x, in.groups); },
          [](const I& in) { return ref::pargmax(in.xs, rg(in)); })->dump = dump_arg_reduction();
  b.other("pargmin", "group position of the min", false, [](C& c, const Tensor& x, const I& in) { return comm::pargmin(c, x, in.groups); },
          [](const I& in) { return ref::pargmin(in.xs, rg(in)); })->dump = dump_arg_reduction();
}

// axis_index, then the ops that move data along an axis: all_gather, psum_scatter and
// all_to_all (untiled and tiled), their axis grid, pswapaxes.
void add_axis_ops(TableBuilder& b) {
  b.other("axis_index", "this rank's position in its group", true, [](C& c, const Tensor&, const I& in) { return comm::axis_index(c, in.groups); },
          [](const I& in) { return ref::axis_index(in.n, rg(in)); })->dump = dump_axis_index();
  CollOp* ag = b.other("all_gather", "all-gather (untiled in cases on axis 1; tiled on axis 0 in the sweep)", true,
                       [](C& c, const Tensor& x, const I& in) { return comm::all_gather(c, x, 1, false, in.groups); },
                       [](const I& in) { return ref::all_gather(in.xs, 1, false, rg(in)); });
  ag->busfactor = factor_spread, ag->sweep = sweep_all_gather, ag->dump = dump_all_gather();
  ag->raw_call = RawCalls{{"mpi", "MPI_Allgather"}, {"nccl", "ncclAllGather"}};
  b.other("all_gather_tiled", "all-gather, tiled, on the last axis", true,
          [](C& c, const Tensor& x, const I& in) { return comm::all_gather(c, x, -1, true, in.groups); },
          [](const I& in) { return ref::all_gather(in.xs, -1, true, rg(in)); });
  CollOp* rs = b.other("psum_scatter", "reduce-scatter (untiled in cases; tiled, sum, in the sweep)", true,
                       [](C& c, const Tensor& x, const I& in) { return comm::psum_scatter(c, x, 0, false, in.groups); },
                       [](const I& in) { return ref::psum_scatter(in.xs, 0, false, rg(in)); });
  rs->busfactor = factor_spread, rs->sweep = sweep_psum_scatter, rs->sweep_redop = true, rs->dump = dump_psum_scatter();
  rs->raw_call = RawCalls{{"mpi", "MPI_Reduce_scatter_block"}, {"nccl", "ncclReduceScatter"}};
  b.other("psum_scatter_tiled", "reduce-scatter, tiled, on axis 1", true,
          [](C& c, const Tensor& x, const I& in) { return comm::psum_scatter(c, x, 1, true, in.groups); },
          [](const I& in) { return ref::psum_scatter(in.xs, 1, true, rg(in)); });
  CollOp* a2a = b.other("all_to_all", "all-to-all (split 0, concat 1 in cases; tiled on axis 0 in the sweep)", true,
                        [](C& c, const Tensor& x, const I& in) { return comm::all_to_all(c, x, 0, 1, false, in.groups); },
                        [](const I& in) { return ref::all_to_all(in.xs, 0, 1, false, rg(in)); });
  a2a->busfactor = factor_spread, a2a->sweep = kAllToAll, a2a->dump = dump_all_to_all();
  a2a->raw_call = RawCalls{{"mpi", "MPI_Alltoall"}, {"nccl", "grouped ncclSend/ncclRecv"}};
  b.other("all_to_all_tiled", "all-to-all, tiled, split 1, concat 0", true,
          [](C& c, const Tensor& x, const I& in) { return comm::all_to_all(c, x, 1, 0, true, in.groups); },
          [](const I& in) { return ref::all_to_all(in.xs, 1, 0, true, rg(in)); });
  auto other = [&b](const char* name, const char* summary, bool per_group, auto eng, auto refop) {
    return b.other(name, summary, per_group, eng, refop);
  };
  add_axis_grid(other);
  b.other("pswapaxes", "swap the group axis with axis 0", true,
          [](C& c, const Tensor& x, const I& in) { return comm::pswapaxes(c, x, 0, in.groups); },
          [](const I& in) { return ref::pswapaxes(in.xs, 0, rg(in)); })->dump = dump_pswapaxes();
}

// The ops that move whole inputs between ranks: ppermute, pshuffle, pbroadcast.
void add_permutations(TableBuilder& b) {
  CollOp* pp = b.other("ppermute", "permutation (cases: r → r+1, rank 0 gets zeros; sweep: the ring)", true,
                       [](C& c, const Tensor& x, const I& in) { return comm::ppermute(c, x, case_ring(in.n)); },
                       [](const I& in) { return ref::ppermute(in.xs, case_ring(in.n)); });
  pp->takes_groups = false, pp->busfactor = factor_one, pp->sweep = sweep_ppermute, pp->dump = dump_ppermute();
  pp->raw_call = RawCalls{{"mpi", "MPI_Sendrecv"}, {"nccl", "ncclSend+ncclRecv"}};
  CollOp* sh = b.other("pshuffle", "rank i takes rank (i+1) mod n's input (not its own inverse)", true,
                       [](C& c, const Tensor& x, const I& in) { return comm::pshuffle(c, x, rotated(in.n)); },
                       [](const I& in) { return ref::pshuffle(in.xs, rotated(in.n)); });
  sh->takes_groups = false, sh->dump = dump_pshuffle();
  // The engine's named-axis binding (engine/comm/comm_axis.h), which a collective program's
  // ppermute runs through: axis indices are positions in the member's group, mapped to world
  // ranks per group. r → r+1 is not its own inverse, so a binding that swaps source and
  // destination is seen; the world ppermute above takes no groups and never maps indices.
  b.other("ppermute_axis", "ppermute over a grouped named axis: position p → p+1 in every group, position 0 gets zeros",
          true,
          [](C& c, const Tensor& x, const I& in) {
            return comm::comm_axis(c, "groups", in.groups)->ppermute(x, case_ring(in.G));
          },
          [](const I& in) {
            Perm world;
            for (const std::vector<int>& g : world_or(in)) {
              for (auto [from, to] : case_ring(int(g.size()))) world.emplace_back(g[size_t(from)], g[size_t(to)]);
            }
            return ref::ppermute(in.xs, world);
          });
  CollOp* bc = b.other("pbroadcast", "broadcast (cases: from the last member; sweep: root 0)", true,
                       [](C& c, const Tensor& x, const I& in) { return comm::pbroadcast(c, x, in.G - 1, in.groups); },
                       [](const I& in) { return ref::pbroadcast(in.xs, in.G - 1, rg(in)); });
  bc->busfactor = factor_one, bc->sweep = sweep_pbroadcast, bc->in_place = true, bc->dump = dump_pbroadcast();
  bc->raw_call = RawCalls{{"mpi", "MPI_Bcast"}, {"nccl", "ncclBroadcast"}};
}

// The ops whose pieces are picked by index: ragged_all_to_all and pgather.
void add_indexed(TableBuilder& b) {
  CollOp* rag = b.other("ragged_all_to_all", "ragged all-to-all (sweep: one equal slice per peer)", true,
                        [](C& c, const Tensor&, const I& in) {
                          const ref::RaggedArgs& a = in.ragged[size_t(c.world().rank())];
                          const Device dev = c.world().device();
                          return comm::ragged_all_to_all(c, from_ref(a.operand).to(dev), from_ref(a.output).to(dev),
                                                         {a.input_offsets, a.send_sizes, a.output_offsets, a.recv_sizes}, in.groups);
                        },
                        [](const I& in) { return ref::ragged_all_to_all(in.ragged, rg(in)); });
  rag->busfactor = factor_spread, rag->sweep = kRagged, rag->dump = dump_ragged();
  rag->raw_call = RawCalls{{"mpi", "MPI_Alltoallv"}, {"nccl", "grouped ncclSend/ncclRecv"}};
  b.other("pgather", "x of the member at each index (clamped)", true,
          [](C& c, const Tensor& x, const I& in) {
            std::vector<double> idx;
            for (int64_t k : pgather_idx(in.G)) idx.push_back(double(k));
            return comm::pgather(c, x, Tensor::from_f64(idx, {2, 2}, DType::i32), in.groups);
          },
          [](const I& in) { return ref::pgather(in.xs, {2, 2}, pgather_idx(in.G), rg(in)); });
}

std::vector<CollOp> make_table() {
  std::vector<CollOp> t;
  t.reserve(32);  // add() returns a pointer into t, filled in before the next add
  TableBuilder b{t};
  add_reductions(b);
  add_axis_ops(b);
  add_permutations(b);
  add_indexed(b);
  return t;
}

}  // namespace

const std::vector<CollOp>& coll_ops() {
  static const std::vector<CollOp> table = make_table();
  return table;
}

const CollOp* find_op(const std::string& name) {
  for (const CollOp& o : coll_ops())
    if (o.name == name) return &o;
  return nullptr;
}

std::vector<std::string> op_names(bool sweep_only) {
  std::vector<std::string> v;
  for (const CollOp& o : coll_ops())
    if (!sweep_only || o.sweepable()) v.push_back(o.name);
  return v;
}

std::string op_list(bool sweep_only) {
  std::string s;
  for (const std::string& n : op_names(sweep_only)) s += (s.empty() ? "" : " ") + n;
  return s;
}

}  // namespace tandem::coll
