// Case factories of the scan_hoist suite: a hoisting case (error of the original and of the
// hoisted program against the reference, peak bytes, times, speedup, the pass's log), a
// decline case (the pass must leave the program alone and say why), and the sweep.
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/case.h"
#include "suites/scan_hoist/scan_hoist_workloads.h"

namespace tandem {

// mode: "stacked" (default options), "carry" (accumulate_in_carry), "wide" (accumulate in
// f64, or f32 for 16-bit values), "wide_carry".
HoistOptions hoist_options(const std::string& mode, DType dt);

// `name` after "scan_hoist/"; reps: timed runs of each program inside the check.
Case hoist_case(const std::string& name, nlohmann::json params, std::function<Workload()> make,
                const std::string& mode, const std::string& profile, int reps);
Case decline_case(const std::string& kind, const std::string& profile);

// Length × batch grid of the MSE: time and peak of both programs at every point, growth
// exponents along each axis, and a flag where growth is super-linear.
Case sweep_case(const std::string& profile, std::vector<int64_t> lengths, std::vector<int64_t> batches, int reps);

}  // namespace tandem
