// The shrinker: a disagreeing case made as small as it stays disagreeing. Moves, repeated
// until none helps: drop an output; cut an equation (its results become new program inputs,
// then everything no longer needed is removed). Arguments of inputs and outputs that stay
// are kept; new inputs get fresh seeded values.
#pragma once
#include <functional>

#include "suites/program_fuzz/fuzz_case.h"

namespace tandem::fuzz {

// still_fails(candidate) says whether a smaller case still shows the disagreement;
// budget bounds how many candidates are tried.
FuzzCase shrink(const FuzzCase& c, const std::function<bool(const FuzzCase&)>& still_fails, int budget = 300);

// The case with its program replaced: arguments (and vmap axes, cotangents) carried over for
// the inputs and outputs that remain (matched by variable), fresh ones for the rest.
FuzzCase rebind(const FuzzCase& c, Program p, Rng& rng);

// Equations whose results nothing uses, and inputs nothing reads, removed.
Program prune(const Program& p);

}  // namespace tandem::fuzz
