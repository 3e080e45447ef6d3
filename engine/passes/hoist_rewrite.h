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

// One level of a hoisting pass: rewrites the scans of a program (not of its sub-programs) into the result, its notes
// under the path prefix given ("scan#0/body: ").
using HoistLevel = std::function<void(Program&, const std::string&, HoistResult&)>;
// Runs a hoisting pass on a copy of `program`: `level` on it, then, with `recurse`, on each sub-program of what it left
// (scan and checkpoint bodies) the same way, storing back each one rewritten; the result is typechecked as `pass` and
// its notes logged. Both hoisting passes run this way.
HoistResult run_hoist_pass(const Program& program, bool recurse, const std::string& pass, const HoistLevel& level);

}  // namespace tandem::hoist
