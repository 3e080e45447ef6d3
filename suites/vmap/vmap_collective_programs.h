// Programs whose collectives name the vmapped axis (vmap_collective_cases.cc, and the
// mpirun test, where they also name the rank axis), built for a given axis size.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/ir/ir.h"

namespace tandem::vmap_suite {

struct CollectiveProgram {
  std::string name;
  std::function<Program(int64_t n)> build;  // per-example program for an axis of n members
  bool differentiable = true;                // pmax / pmin: JAX defines no derivative
  int unmapped_inputs = 0;                   // the first ones, not mapped (None); the rest mapped
};

// One per collective (and its tiled / partial forms), every collective over axis "batch".
const std::vector<CollectiveProgram>& collective_programs();

// Per-member program for a two-axis mesh: every collective over `outer`, several over
// `inner`, reductions over both. Under mpirun `outer` is the rank axis and `inner` vmapped.
Program two_axis_program(const std::string& outer, int64_t n_outer, const std::string& inner, int64_t n_inner);

}  // namespace tandem::vmap_suite
