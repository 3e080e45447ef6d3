// The recompute counts of the vjp pass (vjp.h): the primitive applications running an
// equation performs, sub-programs included (a scan body once per step, a cond's costliest
// branch), and their FLOPs.
#include <algorithm>
#include <variant>

#include "engine/passes/vjp.h"

namespace tandem {

void RecomputeStats::add(const RecomputeStats& o, int64_t times) {
  eqns += o.eqns * times;
  flops += o.flops * double(times);
  for (auto& [k, v] : o.by_prim) by_prim[k] += v * times;
}

double eqn_flops(const Eqn& e) {
  for (auto& [k, v] : e.params.items())
    if (std::holds_alternative<ProgramPtr>(v)) return 0;  // scan, checkpoint: their bodies count
  double n = 0;
  for (const Var& v : e.out) n += double(num_elements(v->type.shape));
  if (e.prim->name == "dot_general") {
    double k = 1;
    for (int64_t d : e.params.get_ints("lhs_contracting_dimensions")) k *= double(e.in[0].type().shape[size_t(d)]);
    return 2 * n * k;
  }
  return n;
}

namespace {
// A cond runs one branch, which the data chooses: counted as its costliest branch per count,
// an upper bound of what one execution runs.
RecomputeStats costliest_branch(const Eqn& e) {
  RecomputeStats most;
  for (auto& [k, v] : e.params.items())
    if (auto* sub = std::get_if<ProgramPtr>(&v)) {
      RecomputeStats b;
      for (const Eqn& q : (*sub)->eqns) b.add(applications(q));
      most.eqns = std::max(most.eqns, b.eqns);
      most.flops = std::max(most.flops, b.flops);
      for (auto& [prim, n] : b.by_prim) most.by_prim[prim] = std::max(most.by_prim[prim], n);
    }
  return most;
}
}  // namespace

RecomputeStats applications(const Eqn& e) {
  RecomputeStats s;
  s.eqns = 1;
  s.flops = eqn_flops(e);
  s.by_prim[e.prim->name] = 1;
  if (e.prim->name == "cond") {  // as scan below: the one primitive whose sub-programs are alternatives
    s.add(costliest_branch(e));
    return s;
  }
  int64_t times = e.prim->name == "scan" ? e.params.get_int("length") : 1;
  for (auto& [k, v] : e.params.items())
    if (auto* sub = std::get_if<ProgramPtr>(&v))
      for (const Eqn& q : (*sub)->eqns) s.add(applications(q), times);
  return s;
}

}  // namespace tandem
