// Measuring one program for the scan_hoist suite: outputs, peak bytes above what was live
// before the run (the inputs), and wall times; plus seeded inputs made without an f64 copy
// (a nightly MSE input is 10^8 elements).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"

namespace tandem {

struct Measured {
  std::vector<Tensor> outputs;
  int64_t peak_above_inputs = 0;  // bytes, Allocator peak − live bytes before the run
  double median_s = 0, min_s = 0;
  nlohmann::json time_by_eqn = nlohmann::json::array();  // of the untimed run: [prim, seconds]
};

// The inputs are copied to `d` first (outside the peak window and the timed region); then
// one untimed run (its peak is recorded: the executor's allocations are deterministic),
// then `reps` timed runs (CUDA events on a GPU, harness/timing.h).
Measured measure_program(const Program& p, const std::vector<Tensor>& inputs, int reps, Device d);

// Copies of host tensors on device d (the same tensors when d is the CPU).
std::vector<Tensor> on_device(const std::vector<Tensor>& host, Device d);

// Uniform [-1, 1) values rounded to the program's input dtypes, seeded by `key`; with
// `integers`, uniform integers in [-8, 8] instead (exact in every dtype, and so are their
// sums while |partial sums| < 2^(mantissa bits): exact-by-construction checks).
std::vector<Tensor> seeded_inputs(const Program& p, const std::string& key, bool integers = false);

// log(b/a) / log(x_b/x_a): 1 = linear growth, 2 = quadratic.
double growth_exponent(double x_a, double a, double x_b, double b);

}  // namespace tandem
