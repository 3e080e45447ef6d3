// Analysis for hoist_scan_reductions. The rules, and why:
//  - every reader of the ys must end in a reduce_sum, else the stacked ys is needed anyway
//    and moving work into the body would only duplicate it (decline: non-reducible consumer);
//  - each value between the ys and its reduce_sum must have that one reader and not be a
//    program output, for the same reason (decline: ys used twice);
//  - an elementwise op runs per step only if every other operand is a scalar, a value the
//    body already has (a const, an xs, another ys), or a value stacked along the scan axis
//    defined before the scan, which becomes an extra xs (decline: operand not splittable);
//  - there must be something to reduce per step: an axis besides the scan axis, or the scan
//    axis itself when accumulating in a carry (decline: axes do not allow it). Several
//    reductions of the ys itself share one partial over the intersection of their axes.
#include "engine/passes/hoist_analysis.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"

namespace tandem::hoist {

std::vector<size_t> Uses::readers_of(const Var& v) const {
  auto it = readers.find(v->id);
  return it == readers.end() ? std::vector<size_t>{} : it->second;
}

Uses compute_uses(const Program& p) {
  Uses u;
  for (size_t e = 0; e < p.eqns.size(); ++e) {
    for (const Atom& a : p.eqns[e].in) {
      if (a.is_literal()) continue;
      auto& r = u.readers[a.var->id];
      if (r.empty() || r.back() != e) r.push_back(e);
    }
    for (const Var& v : p.eqns[e].out) u.def_eqn[v->id] = e;
  }
  for (const Atom& a : p.out_vars)
    if (!a.is_literal()) u.outputs.insert(a.var->id);
  return u;
}

std::vector<int64_t> normalized_axes(const Eqn& reduce) {
  int rank = reduce.in.at(0).type().rank();
  std::set<int64_t> s;
  for (int64_t a : reduce.params.get_ints("axes")) s.insert(normalize_axis(a, rank, "reduce_sum"));
  return {s.begin(), s.end()};
}

bool is_per_step_elementwise(const std::string& prim) { return primitive(prim).has(kElementwise); }

namespace {

std::string axes_str(const std::vector<int64_t>& axes) {
  std::string s = "{";
  s += shape_str(axes);
  return s += "}";
}

PassNote decline(const char* reason, std::string detail) {
  return PassNote{false, reason, "", std::move(detail)};
}

// Everything the analysis of one ys needs to know about the scan.
struct ScanView {
  const Program& p;
  const Uses& uses;
  size_t scan_index;
  int64_t length;
  std::unordered_set<int64_t> body_has;  // outer vars the body can read without help

  bool defined_before_scan(const Var& v) const {
    auto it = uses.def_eqn.find(v->id);
    return it == uses.def_eqn.end() || it->second < scan_index;  // no def: a program input
  }
  // Why the operand cannot be read per step, or "" when it can.
  std::string operand_problem(const Atom& a, const std::unordered_set<int64_t>& chain_vars) const {
    if (a.is_literal() || body_has.count(a.var->id) || chain_vars.count(a.var->id)) return "";
    const AType& t = a.var->type;
    bool stacked = t.rank() >= 1 && t.shape[0] == length;
    if (!defined_before_scan(a.var)) return cat("operand ", t.str(), " is computed after the scan");
    if (t.rank() == 0 || stacked) return "";
    return cat("operand ", t.str(), " is neither a scalar nor stacked along the scan axis");
  }
};

// Follows the chain that starts at `first` (a reader of the ys) to its reduce_sum.
std::optional<PassNote> follow_chain(const ScanView& sv, size_t first, Group& g) {
  std::unordered_set<int64_t> chain_vars;
  std::string from = "the ys";
  for (size_t e = first;;) {
    const Eqn& eqn = sv.p.eqns[e];
    const std::string& prim = eqn.prim->name;
    if (prim == "reduce_sum") {
      g.reductions.push_back(e);
      return std::nullopt;
    }
    if (!is_per_step_elementwise(prim) || eqn.out.size() != 1)
      return decline(kDeclineNonReducible, cat(prim, " reads ", from, "; only reduce_sum, or an "
                                               "elementwise chain ending in one, can be moved"));
    for (const Atom& a : eqn.in)
      if (std::string why = sv.operand_problem(a, chain_vars); !why.empty())
        return decline(kDeclineOperand, cat(prim, " on ", from, ": ", why));
    g.chain.push_back(e);
    const Var& v = eqn.out[0];
    chain_vars.insert(v->id);
    from = cat("the ", prim, " result ", v->type.str());
    if (sv.uses.outputs.count(v->id)) return decline(kDeclineUsedTwice, cat(from, " is also a program output"));
    std::vector<size_t> next = sv.uses.readers_of(v);
    if (next.empty()) return decline(kDeclineNonReducible, cat(from, " is never reduced"));
    if (next.size() > 1)
      return decline(kDeclineUsedTwice, cat(from, " has ", next.size(), " readers; it must feed "
                                            "only its reduction"));
    e = next[0];
  }
}

// Fixes a group's per-step axes and mode from its reductions' axes, or says why not.
std::optional<PassNote> choose_axes(const ScanView& sv, Group& g, const HoistOptions& opts) {
  std::vector<int64_t> common;
  std::string listed;
  for (size_t k = 0; k < g.reductions.size(); ++k) {
    std::vector<int64_t> axes = normalized_axes(sv.p.eqns[g.reductions[k]]);
    if (k) listed += ", ";
    listed += axes_str(axes);
    if (k == 0) { common = axes; continue; }
    std::vector<int64_t> both;
    std::set_intersection(common.begin(), common.end(), axes.begin(), axes.end(), std::back_inserter(both));
    common = both;
  }
  bool has_scan_axis = !common.empty() && common[0] == 0;
  g.body_axes.clear();
  for (int64_t a : common)
    if (a != 0) g.body_axes.push_back(a - 1);
  g.in_carry = opts.accumulate_in_carry && has_scan_axis;
  if (!g.body_axes.empty() || g.in_carry) return std::nullopt;
  std::string what = g.reductions.size() > 1 ? cat("reduce_sums over ", listed, " share")
                                              : cat("reduce_sum over ", listed, " has");
  return decline(kDeclineAxes,
                 cat(what, " no axis besides the scan axis: stacking per-step partials would not "
                           "shrink the ys", has_scan_axis ? " (accumulate_in_carry would)" : ""));
}

}  // namespace

YsAnalysis analyze_ys(const Program& p, const Uses& uses, size_t scan_index, size_t ys,
                      const HoistOptions& opts, std::set<size_t>& claimed) {
  const Eqn& scan = p.eqns[scan_index];
  size_t nc = size_t(scan.params.get_int("num_consts"));
  size_t nk = size_t(scan.params.get_int("num_carry"));
  ScanView sv{p, uses, scan_index, scan.params.get_int("length"), {}};
  for (size_t i = 0; i < scan.in.size(); ++i)
    if ((i < nc || i >= nc + nk) && !scan.in[i].is_literal()) sv.body_has.insert(scan.in[i].var->id);
  for (size_t i = nk; i < scan.out.size(); ++i) sv.body_has.insert(scan.out[i]->id);

  YsAnalysis r;
  const Var& y = scan.out[nk + ys];
  if (uses.outputs.count(y->id)) {
    r.decline = decline(kDeclineUsedTwice, cat("the ys ", y->type.str(), " is also a program output"));
    return r;
  }
  YsPlan plan{ys, {}};
  Group direct;  // reduce_sums of the ys itself share one partial
  for (size_t e : uses.readers_of(y)) {
    if (claimed.count(e)) continue;  // an earlier ys' chain already moves this eqn
    if (p.eqns[e].prim->name == "reduce_sum") {
      direct.reductions.push_back(e);
      continue;
    }
    Group g;
    if (auto bad = follow_chain(sv, e, g)) { r.decline = bad; return r; }
    if (auto bad = choose_axes(sv, g, opts)) { r.decline = bad; return r; }
    plan.groups.push_back(std::move(g));
  }
  if (!direct.reductions.empty()) {
    if (auto bad = choose_axes(sv, direct, opts)) { r.decline = bad; return r; }
    plan.groups.insert(plan.groups.begin(), std::move(direct));
  }
  if (plan.groups.empty()) return r;  // nothing reads it (or earlier chains took every reader)
  for (const Group& g : plan.groups) claimed.insert(g.chain.begin(), g.chain.end());
  r.plan = std::move(plan);
  return r;
}

}  // namespace tandem::hoist
