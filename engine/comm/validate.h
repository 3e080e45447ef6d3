// Validation before launch. Every collective first runs its local checks on each rank, then
// agree() gathers each rank's verdict and argument signature over the control plane: if any
// rank failed, or two ranks passed different arguments, every rank throws the same
// bad-input error (naming the first offending rank), so nobody enters a collective that
// would hang or compute garbage.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/comm/communicator.h"
#include "engine/core/shape.h"

namespace tandem::comm {

using Groups = std::vector<std::vector<int>>;

// Throws bad_input unless groups (when non-empty) partition 0..n-1; with equal_sizes, also
// unless all groups have one size (JAX requires that for all but psum/pmax/pmin/pmean).
void check_groups(const Groups& groups, int n, bool equal_sizes, const char* op);
// Throws bad_input unless sources and destinations are unique and within 0..n-1.
void check_perm(const std::vector<std::pair<int, int>>& perm, int n);

// Runs local_check (throwing tandem::Error) and agrees with every rank of `world`; returns
// normally only when all ranks passed with identical signatures.
void agree(Communicator& world, const std::string& op, const std::string& signature,
           const std::function<void()>& local_check,
           const std::string& mismatch_hint = "every rank must call the same collective with the same shapes and parameters");

// The same contract for checks that can only run after a data-dependent exchange (ragged
// offsets seen by the receiver): one 8-byte all-gather when every rank passed, and only on
// failure a second gather of the messages, so every rank throws the lowest failing rank's
// error. Cheap enough to run on every call.
void agree_verdict(Communicator& world, const std::function<void()>& local_check);

// "groups=[[0,1],[2,3]]" and "[4,8]" for signatures and messages.
std::string groups_str(const Groups& g);

}  // namespace tandem::comm
