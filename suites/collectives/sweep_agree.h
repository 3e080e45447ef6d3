// Before the sweep's first collective, every rank agrees on everything that decides the
// sequence of collectives it will make, and the group layout is checked for every selected
// op: ranks launched with different -o, -n, -b ... (or a layout an op cannot take) end with
// the same bad-input error (exit 4) on every rank instead of a hang.
#pragma once
#include <string>

#include "engine/comm/communicator.h"
#include "suites/collectives/sweep.h"

namespace tandem::coll {

// The values (not the flag spellings) that decide the sequence of collectives: sizes,
// step, iterations, warm-up, check, dtype, ops, in-place, groups, interleave, time
// reduction. Not --out (only rank 0 writes) nor --watchdog-timeout.
std::string sweep_signature(const SweepOptions& o);

// Throws bad_input unless o.groups fits every op in o.ops at world size n.
void check_groups_for_ops(const SweepOptions& o, int n);

// Runs check_groups_for_ops on this rank and agrees with every rank on the verdict and on
// sweep_signature(o); throws the same error on every rank otherwise. Call it before any
// other check, so the checks that follow see the same options on every rank.
void agree_on_sweep(comm::Communicator& world, const SweepOptions& o);

}  // namespace tandem::coll
