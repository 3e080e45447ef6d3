// The reference rows of the collective primitives (psum … axis_index) and the mesh interpreter
// (reference_collectives.h). A collective's value depends on every member, so its real rule is the mesh rule here: the
// members are split into the groups of the named axes (members that differ only in those axes, ordered row-major over
// the names as the tuple lists them, as JAX's multi-axis collectives and comm::mesh_groups order them), and each group
// runs the reference's model (reference/collectives.h). The one-process `eval` row is the mesh rule over a world of one
// member on each bound axis (prims_vs_reference); the tape refuses: the reference's reverse mode runs one process, so
// gradients through collectives are checked in suites/vmap against the reference vjp of the vmapped program.
#include <map>
#include <stdexcept>

#include "bridge/reference_bridge.h"
#include "bridge/reference_collectives.h"
#include "bridge/reference_rules.h"
#include "engine/core/axis_env.h"
#include "engine/core/error.h"
#include "reference/collectives.h"

namespace tandem {
namespace {
using ref::Array;
using ref::PerRank;

int mesh_axis(const RefMesh& m, const std::string& name, const std::string& op) {
  for (size_t i = 0; i < m.axes.size(); ++i)
    if (m.axes[i].first == name) return int(i);
  std::string have;
  for (const auto& [n, s] : m.axes) have += cat(have.empty() ? "" : ", ", "'", n, "'");
  throw std::invalid_argument(cat(op, " over axis '", name, "', which is not bound (bound axes: ",
                                  have.empty() ? "none" : have, ")"));
}

// The groups of the named axes: members that agree on every other axis, each group listed
// by its position in the combined named axis (row-major over `names` as given).
std::vector<std::vector<int>> groups_of(const RefMesh& m, const std::vector<std::string>& names, const std::string& op) {
  std::vector<int> named;
  for (const std::string& n : names) named.push_back(mesh_axis(m, n, op));
  std::map<std::vector<int>, std::map<int, int>> by_rest;  // other coords -> position -> member
  for (int r = 0; r < m.members(); ++r) {
    std::vector<int> coord(m.axes.size());
    for (int a = int(m.axes.size()) - 1, rest = r; a >= 0; --a) {
      coord[size_t(a)] = rest % m.axes[size_t(a)].second;
      rest /= m.axes[size_t(a)].second;
    }
    int pos = 0;
    for (int a : named) pos = pos * m.axes[size_t(a)].second + coord[size_t(a)];
    std::vector<int> key = coord;
    for (int a : named) key[size_t(a)] = -1;
    by_rest[key][pos] = r;
  }
  std::vector<std::vector<int>> gs;
  for (auto& [key, members] : by_rest) {
    gs.emplace_back();
    for (auto& [pos, r] : members) gs.back().push_back(r);
  }
  return gs;
}

// One collective over all members: `op(members' values of the group) -> their results`.
using GroupOp = std::function<PerRank(const PerRank&, const Params&)>;
std::map<std::string, GroupOp> group_ops() {
  auto flag = [](const Params& p) { return p.get_bool("tiled", false); };
  std::map<std::string, GroupOp> t;
  t["psum"] = [](const PerRank& x, const Params&) { return ref::psum(x); };
  t["pmean"] = [](const PerRank& x, const Params&) { return ref::pmean(x); };
  t["pmax"] = [](const PerRank& x, const Params&) { return ref::pmax(x); };
  t["pmin"] = [](const PerRank& x, const Params&) { return ref::pmin(x); };
  t["all_gather"] = [flag](const PerRank& x, const Params& p) { return ref::all_gather(x, p.get_int("axis"), flag(p)); };
  t["psum_scatter"] = [flag](const PerRank& x, const Params& p) {
    return ref::psum_scatter(x, p.get_int("scatter_dimension"), flag(p));
  };
  t["all_to_all"] = [flag](const PerRank& x, const Params& p) {
    return ref::all_to_all(x, p.get_int("split_axis"), p.get_int("concat_axis"), flag(p));
  };
  t["ppermute"] = [](const PerRank& x, const Params& p) {
    std::vector<int64_t> flat = p.get_ints("perm");
    std::vector<std::pair<int, int>> perm;
    for (size_t i = 0; i + 1 < flat.size(); i += 2) perm.push_back({int(flat[i]), int(flat[i + 1])});
    return ref::ppermute(x, perm);
  };
  return t;
}

// in[m]: member m's operands. Returns member m's outputs.
std::vector<std::vector<Array>> mesh_rule(const Eqn& e, const std::vector<std::vector<Array>>& in, const RefMesh& m) {
  const std::string& op = e.prim->name;
  std::vector<std::string> names = split_axis_names(e.params.get_string("axis_name", ""));
  std::vector<std::vector<Array>> out(size_t(m.members()));
  for (const std::vector<int>& g : groups_of(m, names, op)) {
    if (e.params.has("axis_size") && e.params.get_int("axis_size") != int64_t(g.size()))
      throw std::invalid_argument(cat(op, " was built for axis_size ", e.params.get_int("axis_size"), ", the axis has ", g.size()));
    PerRank r;
    if (op == "axis_index") {
      r = ref::axis_index(int(g.size()));
    } else {
      static const std::map<std::string, GroupOp> ops = group_ops();
      PerRank x;
      for (int member : g) x.push_back(in[size_t(member)][0]);
      // Reductions over a tuple reduce over the combined axis in one go: the same result.
      r = ops.at(op)(x, e.params);
    }
    for (size_t i = 0; i < g.size(); ++i) out[size_t(g[i])] = {r[i]};
  }
  return out;
}

ReferenceRule collective_rule() {
  ReferenceRule r;
  r.eval = [](const Eqn& e, const std::vector<Array>& in, const RefEvalContext& ctx) {
    RefMesh one;
    for (const std::string& n : ctx.one_member_axes) one.axes.push_back({n, 1});
    return mesh_rule(e, {in}, one)[0];
  };
  r.tape = [](const Eqn& e, const std::vector<ref::Tape::Id>&, const RefTapeContext&) -> std::vector<ref::Tape::Id> {
    throw_unsupported(cat("the reference tape has no rule for the collective ", e.prim->name,
                          ": it runs one process, not every member"),
                      "suites/vmap checks collective gradients against the reference vjp of the vmapped program");
  };
  return r;
}

}  // namespace

int RefMesh::members() const {
  int n = 1;
  for (const auto& [name, size] : axes) n *= size;
  return n;
}

void add_collective_reference_rules(std::map<std::string, ReferenceRule>& t) {
  for (const std::string& n : primitive_names())
    if (primitive(n).has(kCollective)) t[n] = collective_rule();
}

std::vector<std::vector<Array>> reference_eval_mesh(const Program& prog, const std::vector<std::vector<Array>>& inputs,
                                                    const RefMesh& mesh) {
  using Members = std::vector<Array>;  // one value per member
  size_t n = size_t(mesh.members());
  if (inputs.size() != n) throw_bad_input(cat("reference_eval_mesh: ", inputs.size(), " members' inputs for a mesh of ", n));
  std::vector<Members> by_input(prog.in_vars.size(), Members(n));
  for (size_t m = 0; m < n; ++m) {
    if (inputs[m].size() != prog.in_vars.size())
      throw_bad_input(cat("reference_eval_mesh: member ", m, " has ", inputs[m].size(), " inputs, the program takes ", prog.in_vars.size()));
    for (size_t i = 0; i < inputs[m].size(); ++i) by_input[i][m] = inputs[m][i];
  }
  RefEvalContext ctx{[](const Program& p, const std::vector<Array>& in) { return reference_eval(p, in); }, {}};
  std::vector<Members> outs = walk_program(
      prog, by_input, [n](const Literal& l) { return Members(n, ref::scalar(l.dtype, l.value)); },
      [&](const Eqn& e, const std::vector<Members>& args) {
        std::vector<std::vector<Array>> per(n), res;
        for (size_t m = 0; m < n; ++m)
          for (const Members& a : args) per[m].push_back(a[m]);
        if (e.prim->has(kCollective)) {
          res = mesh_rule(e, per, mesh);
        } else {
          for (size_t m = 0; m < n; ++m) res.push_back(reference_rule(e.prim->name).eval(e, per[m], ctx));
        }
        std::vector<Members> r(e.out.size(), Members(n));
        for (size_t m = 0; m < n; ++m)
          for (size_t k = 0; k < e.out.size(); ++k) r[k][m] = res[m].at(k);
        return r;
      },
      "reference (mesh)");
  std::vector<std::vector<Array>> r(n);
  for (size_t m = 0; m < n; ++m)
    for (const Members& o : outs) r[m].push_back(o[m]);
  return r;
}

}  // namespace tandem
