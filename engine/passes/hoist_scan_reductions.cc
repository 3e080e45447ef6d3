// hoist_scan_reductions driver: walks one program level, analyses every ys of every scan in
// order (hoist_analysis), rewrites each scan with at least one plan (hoist_rewrite), then
// recurses into sub-programs. The enclosing level goes first on purpose: hoisting an outer
// scan moves reductions into its body, where they may then reach an inner scan's ys.
#include "engine/passes/hoist_scan_reductions.h"

#include <set>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "engine/passes/hoist_analysis.h"
#include "engine/passes/hoist_rewrite.h"

namespace tandem {
namespace {

// Elements of one step of a stacked output (its type without the scan axis).
int64_t step_elements(const AType& ys) {
  int64_t n = 1;
  for (size_t d = 1; d < ys.shape.size(); ++d) n *= ys.shape[d];
  return n;
}

void hoist_level(Program& p, const HoistOptions& opts, const std::string& path, HoistResult& out) {
  int scan_number = 0;
  for (size_t i = 0; i < p.eqns.size(); ++i) {
    if (p.eqns[i].prim->name != "scan") continue;
    std::string where = cat(path, "scan#", scan_number++);
    hoist::Uses uses = hoist::compute_uses(p);
    size_t nk = size_t(p.eqns[i].params.get_int("num_carry"));
    size_t n_ys = p.eqns[i].out.size() - nk;
    std::set<size_t> claimed;
    std::vector<hoist::YsPlan> plans;
    std::vector<std::string> plan_where;
    for (size_t j = 0; j < n_ys; ++j) {
      hoist::YsAnalysis a = hoist::analyze_ys(p, uses, i, j, opts, claimed);
      const int64_t per_step = step_elements(p.eqns[i].out[nk + j]->type);
      if (a.plan && per_step < opts.min_step_elements) {
        // Legal but slower (HoistOptions::min_step_elements): say so and leave the ys alone.
        for (const hoist::Group& g : a.plan->groups)
          for (size_t e : g.chain) claimed.erase(e);
        a.decline = PassNote{false, kDeclineTooSmall, "",
                             cat(per_step, " elements per step < min_step_elements ", opts.min_step_elements,
                                 ": the per-step eqns would cost more than the traffic saved")};
        a.plan.reset();
      }
      if (a.decline) {
        a.decline->where = cat(where, " ys ", j);
        out.notes.push_back(*a.decline);
      }
      if (a.plan) {
        for (size_t g = 0; g < a.plan->groups.size(); ++g) plan_where.push_back(cat(where, " ys ", j));
        plans.push_back(std::move(*a.plan));
      }
    }
    if (plans.empty()) continue;
    hoist::ScanRewrite r = hoist::rewrite_scan(p, i, plans, opts);
    for (size_t k = 0; k < r.details.size(); ++k) out.notes.push_back(PassNote{true, "", plan_where[k], r.details[k]});
    out.rewrites += int(plans.size());
    p = std::move(r.program);
    i = r.scan_index;  // equations before it only gained zero-initialised carries
  }
}

}  // namespace

HoistResult hoist_scan_reductions(const Program& program, const HoistOptions& options) {
  auto level = [&](Program& p, const std::string& path, HoistResult& r) { hoist_level(p, options, path, r); };
  return hoist::run_hoist_pass(program, options.recurse, "hoist_scan_reductions", level);
}

}  // namespace tandem
