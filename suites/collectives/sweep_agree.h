// Before the sweep's first collective, every rank agrees on everything that decides the sequence of collectives it will
// make, and the group layout is checked for every selected op: ranks launched with different -o, -n, -b ... (or a
// layout an op cannot take) end with the same bad-input error (exit 4) on every rank instead of a hang.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/comm/communicator.h"
#include "suites/collectives/sweep.h"

namespace tandem::coll {

struct CollOp;  // op_table.h

// -o's reductions: nccl-tests' names of those JAX's collectives have (psum, pmax, pmin).
struct Redop {
  const char* name;
  comm::ReduceOp op;
};
// The options checked: the dtypes of -d, reductions of -o and ops of --ops to sweep.
struct Validated {
  std::vector<DType> dtypes;
  std::vector<Redop> redops;
  std::vector<const CollOp*> ops;
};
// Throws bad_input on options that do not make a sweep, naming the flag and a fix (the
// group layout is checked against every selected op). Run inside agree_on_sweep's check.
Validated validate_sweep(const SweepOptions& o, int world_size);

// The values (not the flag spellings) that decide the sequence of collectives: sizes, step, iterations, warm-up, check,
// dtypes, reduction ops, ops, in-place, groups, raw calls, interleave, time reduction. Not --out (only rank 0 writes),
// --percentiles (output only) nor --watchdog-timeout.
std::string sweep_signature(const SweepOptions& o);

// Agrees with every rank on sweep_signature(o), then runs `check` (the sweep's validation: dtypes, ops, and the group
// layout against every selected op) on this rank and agrees on its verdict; throws the same error on every rank
// otherwise. Call it before any other check, so the checks that follow see the same options on every rank.
void agree_on_sweep(comm::Communicator& world, const SweepOptions& o, const std::function<void()>& check);

}  // namespace tandem::coll
