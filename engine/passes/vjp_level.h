// The levels of the vjp pass (vjp.cc): where a program being linearized sits among the
// checkpoints and scans, what its scans' replays rebuild, and the checks every level makes.
#pragma once
#include <map>
#include <utility>
#include <vector>

#include "engine/ir/ir.h"
#include "engine/ir/remat_policy.h"

namespace tandem::vjp_detail {

// Where a level's program sits: the vjp's own program, a checkpoint body, a scan body.
enum class Level { top, checkpoint, scan_body };

// How a level sits among the checkpoints.
struct LevelOpts {
  Level level = Level::top;
  // Under remat (inside a checkpoint, or under a top-level policy other than
  // everything_saveable) a scan replays its carries instead of stacking them (vjp_scan.h).
  bool in_remat = false;
  // The remat comes from the top-level policy: the everything_saveable baseline runs no
  // replay scan here, so the replay scan itself counts as recomputed.
  bool top_remat = false;
  // A replayed scan's body: its first carry input and their count, rebuilt from what it
  // saves, and per body output (carries, ys) whether the replay rebuilds it.
  std::pair<size_t, size_t> carries{0, 0};
  // A replayed scan's body: what its backward reads, the policy does not save and the replay
  // computes anyway (on the path of the carries and the outputs it rebuilds) is a `replayed`
  // residual, stacked by the replay, never computed a second time here.
  bool replayed = false;
  std::vector<bool> rebuild;
};

// Per scan equation of a level (its index in the level's program): the scan outputs the
// level's backward reads and its policy does not save, which the scan's replay rebuilds.
using ScanNeeds = std::map<size_t, std::vector<bool>>;

std::vector<bool> floating_inputs(const Program& p);

// A name policy must name values the checkpointed body has.
void check_names(const Policy& pol, const Program& body);

const char* level_name(Level l);

}  // namespace tandem::vjp_detail
