// The op table's JAX-oracle cases (`tandem collectives-dump`, tools/oracles/collectives_vs_jax.py): per op the
// parameters JAX is called with, the value sets and dtypes of its inputs and the engine call. Each builder fills one
// row's `dump` (op_table.cc's make_table), so the dump reads its ops, and their order, from the op table's rows. The
// permutations are the ones the table's case engines use too.
#pragma once
#include <utility>
#include <vector>

#include "suites/collectives/op_table.h"

namespace tandem::coll {

using DumpFn = std::function<std::vector<DumpCase>(const CollOp& row, int n)>;

DumpFn dump_reduction();   // psum pmax pmin pmean: random (every dtype), special (floats)
DumpFn dump_arg_reduction();  // pargmax pargmin: ties (numeric dtypes), special (floats)
DumpFn dump_axis_index();  // one f32 case
DumpFn dump_all_gather();  // every axis in both forms (the tiled ones as all_gather_tiled)
DumpFn dump_psum_scatter();  // scatter dimensions, both forms
DumpFn dump_all_to_all();  // split/concat pairs, both forms
DumpFn dump_pswapaxes();   // axis 1
DumpFn dump_ppermute();    // the shift (rank 0 gets zeros) and the ring
DumpFn dump_pshuffle();    // the reversal: the row's own engine
DumpFn dump_pbroadcast();  // from the last member: the row's own engine
DumpFn dump_ragged();      // inputs of its own (runners/cli/coll_dump_cases.cc): no run

using Perm = std::vector<std::pair<int, int>>;
Perm shift_perm(int n);          // r → r+1; rank 0 is no destination (zeros)
Perm ring_perm(int n);           // r → (r+1) mod n
std::vector<int> reversed(int n);  // rank i takes rank n-1-i's input (its own inverse)
// pshuffle's cases: rank i takes rank (i+1) mod n's input. Not its own inverse from 3 ranks
// on, so a permutation applied in the wrong direction fails (a reversal cannot tell).
std::vector<int> rotated(int n);

}  // namespace tandem::coll
