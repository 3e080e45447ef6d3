// Case logic of the collectives suite (see collectives_cases.h). Inputs: rank r, element i
// holds ((7 r + 3 i) mod 13) − 6, a small integer, exact in every dtype and in any sum of
// up to a few dozen ranks; so every op but pmean (a division) is checked bitwise.
#include "suites/collectives/collectives_cases.h"

#include <memory>

#include "bridge/error_spec.h"
#include "bridge/reference_bridge.h"
#include "engine/comm/by_design_skip.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/nccl_communicator.h"
#include "engine/core/error.h"
#include "reference/collectives.h"

namespace tandem::coll {

const std::vector<std::string> kLayouts = {"all", "pairs", "interleaved", "uneven"};
const std::vector<DType> kDTypes = {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i32};

namespace {

using Inputs = CaseInputs;

const CollOp& op_of(const CollSpec& s) {
  const CollOp* op = find_op(s.op);
  if (!op) throw_bad_input(cat("collectives: unknown op '", s.op, "'"), "one of: " + op_list(false));
  return *op;
}

ref::Array make_x(int r, const Shape& shape, DType t) {
  std::vector<double> v(size_t(num_elements(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = value(r, int64_t(i));
  return ref::make(shape, t, v);
}

// Ragged: the member at position p sends (p + q) % 3 + (p == q) rows to position q,
// packed at the receiver in sender order; outputs start at −1 so kept rows are checked.
ref::RaggedArgs make_ragged(int r, int p, const comm::Groups& g, int G, DType t) {
  auto rows = [](int a, int b) { return int64_t((a + b) % 3 + (a == b)); };
  ref::RaggedArgs a;
  int64_t in = 0;
  for (int q = 0; q < G; ++q) {
    a.input_offsets.push_back(in);
    a.send_sizes.push_back(rows(p, q));
    int64_t at = 0;
    for (int s = 0; s < p; ++s) at += rows(s, q);
    a.output_offsets.push_back(at);
    a.recv_sizes.push_back(rows(q, p));
    in += rows(p, q);
  }
  a.operand = make_x(r, {in, 2}, t);
  a.output = ref::full({int64_t(4 * G + 1), 2}, t, -1);
  (void)g;
  return a;
}

Inputs make_inputs(comm::Collectives& c, const CollSpec& s) {
  Inputs in;
  in.n = c.world().size();
  std::string why;
  in.groups = layout_groups(s.layout, in.n, s.op, &why);
  if (!why.empty()) throw_unsupported(why, "run under mpirun with a world size that fits the layout");
  comm::Groups g = in.groups.empty() ? comm::Groups{{}} : in.groups;
  if (in.groups.empty()) for (int r = 0; r < in.n; ++r) g[0].push_back(r);
  for (const auto& grp : g)
    for (size_t p = 0; p < grp.size(); ++p)
      if (grp[p] == c.world().rank()) in.pos = int(p), in.G = int(grp.size());
  const int G0 = int(g[0].size());
  const Shape shape = op_of(s).shape_per_group ? Shape{G0, 2 * G0} : Shape{2, 3};
  for (int r = 0; r < in.n; ++r) in.xs.push_back(make_x(r, shape, s.dtype));
  if (s.op == "ragged_all_to_all")
    for (const auto& grp : g)
      for (size_t p = 0; p < grp.size(); ++p) {
        in.ragged.resize(size_t(in.n));
        in.ragged[size_t(grp[p])] = make_ragged(grp[p], int(p), g, int(grp.size()), s.dtype);
      }
  return in;
}

Tensor engine_op(comm::Collectives& c, const CollSpec& s, const Inputs& in) {
  return op_of(s).engine(c, from_ref(in.xs[size_t(c.world().rank())]).to(c.world().device()), in);
}

}  // namespace

comm::Groups layout_groups(const std::string& layout, int n, const std::string& op, std::string* why) {
  // Every refusal is a skip by design (engine/comm/by_design_skip.h): too few ranks, or undefined.
  auto no = [&](const std::string& w) { *why = cat("groups:", layout, " ", w); return comm::Groups{}; };
  if (layout == "all") return {};
  const CollOp* d = find_op(op);
  if (d && !d->takes_groups) return no(comm::does_not_apply(cat(op, " takes no axis_index_groups")));
  if (layout == "pairs") {  // [[0,1],[2,3],...]
    if (n < 2 || n % 2) return no(comm::needs_ranks("an even number of", n) + "; run with mpirun -np 2 or 4");
    comm::Groups g;
    for (int r = 0; r < n; r += 2) g.push_back({r, r + 1});
    return g;
  }
  if (layout == "interleaved") {  // [[0,2,...],[..., 3,1]]: strided, one group listed backwards
    if (n < 4 || n % 2) return no(comm::needs_ranks("an even number (4 or more) of", n) + "; run with mpirun -np 4");
    comm::Groups g(2);
    for (int r = 0; r < n; r += 2) g[0].push_back(r);
    for (int r = n - 1; r > 0; r -= 2) g[1].push_back(r);
    return g;
  }
  if (layout == "uneven") {  // [[0..n-2],[n-1]]: JAX allows it for psum/pmax/pmin/pmean
    if (n < 3) return no(comm::needs_ranks("at least 3", n) + "; run with mpirun -np 3 or 4");
    if (!d || !d->reduces) {
      std::string r;
      for (const CollOp& o : coll_ops()) if (o.reduces) r += (r.empty() ? "" : ", ") + o.name;
      return no(comm::does_not_apply("only allowed for the reductions (" + r + ")"));
    }
    comm::Groups g(2);
    for (int r = 0; r + 1 < n; ++r) g[0].push_back(r);
    g[1].push_back(n - 1);
    return g;
  }
  throw_bad_input(cat("unknown group layout '", layout, "'"), "one of: all, pairs, interleaved, uneven");
}

std::string case_name(const CollSpec& s) {
  return cat("collectives/op:", s.op, "/dtype:", dtype_name(s.dtype), "/groups:", s.layout);
}

comm::Collectives& backend_collectives(Device d) {
  static comm::Collectives mpi(comm::mpi_world());
  if (d.kind == DeviceKind::cpu) return mpi;
  // NCCL: made once; a failure (unsupported, agreed across ranks) is remembered, so every
  // later case skips with the same reason without another attempt.
  static std::unique_ptr<comm::Communicator> nccl;
  static std::unique_ptr<comm::Collectives> ctx;
  static std::string unavailable;
  if (!ctx && unavailable.empty()) {
    try {
      nccl = comm::make_nccl_communicator(comm::mpi_world());
      ctx = std::make_unique<comm::Collectives>(*nccl);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::unsupported) throw;
      unavailable = e.message();
    }
  }
  if (!ctx) throw_unsupported(unavailable, "NCCL cases need a CUDA+NCCL build and one GPU per rank");
  return *ctx;
}

void run_once(comm::Collectives& c, const CollSpec& s) { engine_op(c, s, make_inputs(c, s)); }

CaseResult check_collective(comm::Collectives& c, const CollSpec& s) {
  const Inputs in = make_inputs(c, s);
  const int me = c.world().rank();
  const Tensor got = engine_op(c, s, in).to(Device::cpu());
  const ref::Array want = op_of(s).reference(in)[size_t(me)];
  ErrorSpec spec{0, 0, 0, "exact: integer-valued inputs"};
  if (s.op == "pmean" && (s.dtype == DType::f16 || s.dtype == DType::bf16))
    spec = {0, 2 * unit_roundoff(s.dtype), 0, "pmean in 16-bit: sum, then one division rounded via f32"};
  std::string mine;
  CompareReport rep;
  if (got.shape() != want.shape || got.dtype() != want.dtype) {
    mine = cat("result ", got.type().str(), " but the reference is ", dtype_name(want.dtype), "[",
               ref::shape_string(want.shape), "]");
  } else {
    rep = compare(want.data, got.to_f64(), spec);
    if (!rep.pass) mine = rep.text();
  }
  // Gather every rank's verdict; all ranks return the same result.
  const auto msgs = comm::all_gather_strings(c.world(), mine);
  const auto hosts = comm::all_gather_strings(c.world(), comm::host_name());
  CaseResult r;
  r.correctness["rank0"] = rep.to_json();
  r.correctness["tolerance"] = spec.why;
  r.info["ranks"] = c.world().size();
  // Which rule a pmean case checks (docs/COLLECTIVES.md): with uneven groups, JAX would
  // divide every group's sum by the first group's size.
  if (s.op == "pmean") r.info["rule"] = "pmean divides by the member's own group size";
  for (int k = 0; k < c.world().size(); ++k)
    if (!msgs[size_t(k)].empty()) {
      r.verdict = Verdict::fail;
      r.message += cat("rank ", k, " (host ", hosts[size_t(k)], "): ", msgs[size_t(k)], "\n");
    }
  return r;
}

}  // namespace tandem::coll
