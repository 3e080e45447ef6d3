// The vmap suite's per-example programs (one or more per primitive family, an MLP,
// attention, the LSTM Program path, the hoisted MSE), their input ranges and error model,
// and the in_axes / out_axes configurations every program is batched under.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "bridge/error_spec.h"
#include "engine/passes/vmap.h"

namespace tandem::vmap_suite {

struct VmapProgram {
  std::string name;
  Program program;                                  // one example, f32
  std::vector<std::pair<double, double>> ranges;    // per input: uniform [lo, hi), i32 floored
  int ops = 1;        // longest chain of rounded operations from an input to an output value
  int64_t terms = 1;  // most terms any one output value sums (dot / reduction length)
};

// Every program, by name; `names()` lists them.
VmapProgram make_program(const std::string& name);
std::vector<std::string> program_names();

// The tolerance of the per-example f32 computation against the exact reference, which the
// vmapped result must meet too: each rounded op costs at most u relative, a sum of n terms
// n·u of its magnitude (the standard bound), with 4x headroom; the magnitude is the largest
// |value| of the reference output. A gradient doubles the chain and the sums.
ErrorSpec per_example_spec(const VmapProgram& p, double max_abs_want, bool gradient);

struct AxisConfig {
  std::string name;  // lead, last, middle, negative, mixed, neg_lead, none_first
  std::vector<VmapAxis> in, out;
};
// The configurations that fit program p: every axis is in range for its value's rank, and
// "mixed" leaves every other input unmapped (the first stays mapped).
std::vector<AxisConfig> axis_configs(const Program& p);
AxisConfig axis_config(const Program& p, const std::string& name);

}  // namespace tandem::vmap_suite
