// Rewrite half of hoist_scan_reductions: given the plans of one scan's ys (hoist_analysis.h),
// builds the new body (chains + per-step partial reductions, extra consts / xs / carries),
// the new scan equation, and the outer equations that finish each reduction.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/ir/ir.h"
#include "engine/passes/hoist_analysis.h"

namespace tandem::hoist {

struct ScanRewrite {
  Program program;
  size_t scan_index = 0;             // where the rewritten scan now sits
  std::vector<std::string> details;  // one sentence per plan, for the log
};

ScanRewrite rewrite_scan(const Program& p, size_t scan_index, const std::vector<YsPlan>& plans,
                         const HoistOptions& opts);

// Appends prim(in) to `eqns`; the output var (new, or `out` when given) has the type the
// primitive's shape rule gives, so the result typechecks by construction.
Var emit(std::vector<Eqn>& eqns, const std::string& prim, std::vector<Atom> in, Params params, Var out = nullptr);

// Drops equations none of whose outputs are read (scan bodies after their ys were removed).
Program remove_dead_eqns(const Program& p);

// Runs `level` on each sub-program of p's equations (scan and checkpoint bodies), with the
// path prefix the passes' notes use ("scan#0/body: "), and stores back each one `level`
// changed (it returns whether it did). Both hoisting passes recurse this way.
void recurse_into_subprograms(Program& p, const std::string& path,
                              const std::function<bool(Program&, const std::string&)>& level);

}  // namespace tandem::hoist
