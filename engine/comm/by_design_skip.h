// The wordings of a skip by design: a test or case that cannot run because of the run's shape
// (too few ranks) or because the semantics leave the combination undefined, not because a
// capability (a GPU, NCCL, cuDNN) is missing. ci/gpu_validate.sh's no_gtest_skips accepts a
// gtest skip on the GPU machine only when its message carries one of these (its table
// by_design_reasons must match); every other skip there is a failure. So every by-design skip
// builds its message here, and a capability skip never does.
#pragma once
#include <string>

namespace tandem::comm {

// "needs NEED ranks, this run has HAVE", e.g. needs_ranks("4", 1), needs_ranks("at least 3", 2),
// needs_ranks("an even number of", 1).
inline std::string needs_ranks(const std::string& need, int have) {
  return "needs " + need + " ranks, this run has " + std::to_string(have);
}

// "does not apply: WHY": a combination the semantics (JAX's) leave undefined at any world size.
inline std::string does_not_apply(const std::string& why) { return "does not apply: " + why; }

}  // namespace tandem::comm
