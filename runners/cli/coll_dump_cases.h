// The cases `tandem collectives-dump` runs for the JAX oracle (tools/oracles/collectives_vs_jax.py): each collective op
// with the parameters JAX takes (axis, tiled, split/concat axes, perm …), on seeded per-rank inputs, through the real
// engine (engine/comm) on this rank. The ops, their parameter variants, value sets and dtypes, and which group layouts
// an op takes are the op table's rows (suites/collectives/op_table.h, each row's `dump`); this file adds the inputs
// (seeded values, ragged_all_to_all's offsets) and the layouts' loop.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "engine/comm/collectives.h"

namespace tandem::coll {

// One run of one case on this rank: what it was given and what it returned.
struct DumpRun {
  std::string stem;       // file stem: op-variant-dtype-layout, e.g. all_gather-axis1-f32-pairs
  nlohmann::json meta;    // op, params, dtype, layout, groups, world, values (the same on every rank)
  std::vector<std::pair<std::string, Tensor>> inputs;  // name → this rank's input (host)
  Tensor out;             // this rank's output (host)
  std::string skipped;    // non-empty: the layout does not fit this op or world size (why)
};

// Every case × dtype × layout at this world size, run on every rank in the same order (collectives: every rank must
// call). `only`: op names to keep (empty: all). seed feeds the inputs (rank and case are mixed in).
std::vector<DumpRun> run_dump_cases(comm::Collectives& c, const std::vector<std::string>& only, uint64_t seed);

}  // namespace tandem::coll
