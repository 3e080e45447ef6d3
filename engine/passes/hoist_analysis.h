// Analysis half of hoist_scan_reductions: for one ys output of one scan, find every reader,
// follow elementwise chains down to their reduce_sum, and decide per reduction what moves
// into the body (which axes, stacked or carried) — or decline with a tagged reason.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/ir/ir.h"
#include "engine/passes/hoist_scan_reductions.h"
#include "engine/passes/pass_log.h"

namespace tandem::hoist {

// Who reads and who defines each variable of one program level.
struct Uses {
  std::unordered_map<int64_t, std::vector<size_t>> readers;  // var id → eqn indices, ascending
  std::unordered_set<int64_t> outputs;                       // var ids among out_vars
  std::unordered_map<int64_t, size_t> def_eqn;               // var id → defining eqn
  std::vector<size_t> readers_of(const Var& v) const;
};
Uses compute_uses(const Program& p);

// One new per-step partial of the scan. Either an elementwise chain (its eqns move into the
// body) ending in one reduce_sum, or — chain empty — the ys itself feeding one or several
// reduce_sums, which then share the partial reduced over the intersection of their axes.
struct Group {
  std::vector<size_t> chain;         // outer eqn indices, in order
  std::vector<size_t> reductions;    // outer reduce_sum eqn indices
  std::vector<int64_t> body_axes;    // reduced inside each step (body coordinates)
  bool in_carry = false;             // accumulate across steps instead of stacking
};

struct YsPlan {
  size_t ys = 0;  // index among the scan's stacked outputs
  std::vector<Group> groups;
};

struct YsAnalysis {
  std::optional<YsPlan> plan;  // empty: declined (note says why) or nothing reads the ys
  std::optional<PassNote> decline;
};

// `claimed`: eqns already moved by an earlier ys of the same scan (skipped as readers);
// on success the plan's chain eqns are added to it.
YsAnalysis analyze_ys(const Program& p, const Uses& uses, size_t scan_index, size_t ys,
                      const HoistOptions& opts, std::set<size_t>& claimed);

// Reduce_sum axes normalised to [0, rank) and sorted.
std::vector<int64_t> normalized_axes(const Eqn& reduce);
bool is_per_step_elementwise(const std::string& prim);

}  // namespace tandem::hoist
