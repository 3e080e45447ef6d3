// The scan_hoist suite: hoist_scan_reductions on the seed's programs — the x1/x2/y
// MSE and the stacked sin/mean — from the seed's sizes to length 1000 and millions of
// elements per step, in every accumulation mode; the pass's harder shapes (reverse, unroll,
// nested scans, several ys, dependent reductions, bf16 with and without wider accumulation);
// the programs it must decline; and the length × batch sweep. Quick cases run in well under
// a second each; nightly holds the big ones (L·E up to ~10^8, about 0.4 GB per stacked f32).
#include "engine/core/error.h"
#include "harness/case.h"
#include "suites/scan_hoist/scan_hoist_cases.h"
#include "suites/scan_hoist/scan_hoist_grad.h"

namespace tandem {
namespace {

std::string row_name(const Shape& row) { return cat("B:", row[0], "/F:", row[1]); }

void add_mse(Registry& r, int64_t L, const Shape& row, DType dt, const std::string& mode,
             const std::string& profile, int reps, bool reverse = false, int64_t unroll = 1) {
  std::string name = cat("mse/L:", L, "/", row_name(row), "/dtype:", dtype_name(dt),
                         reverse ? "/reverse" : "", unroll > 1 ? cat("/unroll:", unroll) : "");
  nlohmann::json params = {{"program", "mse"}, {"L", L}, {"B", row[0]}, {"F", row[1]},
                           {"dtype", dtype_name(dt)}, {"reverse", reverse}, {"unroll", unroll}};
  r.add(hoist_case(name, params, [=] { return mse_workload(L, row, dt, reverse, unroll); }, mode,
                   profile, reps));
}

void add_sin_mean(Registry& r, int64_t L, const Shape& row, const std::string& mode,
                  const std::string& profile, int reps) {
  std::string name = cat("sin_mean/L:", L, "/", row_name(row), "/dtype:f32");
  nlohmann::json params = {{"program", "sin_mean"}, {"L", L}, {"B", row[0]}, {"F", row[1]}, {"dtype", "f32"}};
  r.add(hoist_case(name, params, [=] { return sin_mean_workload(L, row); }, mode, profile, reps));
}

}  // namespace

void register_scan_hoist_suite(Registry& r) {
  const DType f32 = DType::f32;
  // Quick: the seed's own sizes, odd sizes, every mode, reverse, unroll, bf16.
  for (const char* mode : {"stacked", "carry", "wide", "wide_carry"}) {
    add_mse(r, 30, {15, 12}, f32, mode, "quick", 3);
    add_sin_mean(r, 10, {5, 8}, mode, "quick", 3);
  }
  add_mse(r, 37, {7, 33}, f32, "stacked", "quick", 3, /*reverse=*/true);
  add_mse(r, 37, {7, 33}, f32, "carry", "quick", 3, /*reverse=*/true, /*unroll=*/4);
  add_mse(r, 16, {9, 5}, f32, "stacked", "quick", 3, false, /*unroll=*/3);
  for (const char* mode : {"stacked", "carry", "wide"}) add_mse(r, 64, {32, 32}, DType::bf16, mode, "quick", 3);
  add_mse(r, 200, {64, 64}, f32, "stacked", "quick", 3);  // ~0.8 M stacked elements
  r.add(hoist_case("nested_mean/outer:6/inner:9/E:20", {{"program", "nested_mean"}},
                   [] { return nested_mean_workload(6, 9, 20); }, "stacked", "quick", 3));
  r.add(hoist_case("nested_mean/outer:6/inner:9/E:20", {{"program", "nested_mean"}},
                   [] { return nested_mean_workload(6, 9, 20); }, "carry", "quick", 3));
  r.add(hoist_case("several_ys/L:12/E:40", {{"program", "several_ys"}},
                   [] { return several_ys_workload(12, 40); }, "stacked", "quick", 3));
  r.add(hoist_case("dependent_sums/L:8/B:5/F:6", {{"program", "dependent_sums"}},
                   [] { return dependent_sums_workload(8, 5, 6); }, "stacked", "quick", 3));
  // Exact by construction: integer inputs, sums exact in f32, compared with tolerance 0.
  for (const char* mode : {"stacked", "carry"})
    r.add(hoist_case("int_sum/L:30/B:15/F:12", {{"program", "int_sum"}},
                     [] { return int_sum_workload(30, {15, 12}); }, mode, "quick", 3));
  // Reverse where the order matters (the mse cases' ys ignore the carry): exact, so a scan
  // that ran forward when asked for reverse fails (docs/FAULTS.md, scan_reverse_ignored).
  r.add(hoist_case("int_sum/L:30/B:15/F:12/reverse", {{"program", "int_sum"}, {"reverse", true}},
                   [] { return int_sum_workload(30, {15, 12}, /*reverse=*/true); }, "carry", "quick", 3));
  r.add(hoist_case("dependent_sums_int/L:8/B:5/F:6", {{"program", "dependent_sums_int"}},
                   [] { return dependent_sums_workload(8, 5, 6, /*integers=*/true); }, "stacked", "quick", 3));
  for (const DeclineWorkload& d : decline_workloads()) r.add(decline_case(d.kind, "quick"));
  r.add(sweep_case("quick", {16, 32, 64}, {256, 1024, 4096}, 3));
  // Part 4: the gradient of the MSE, hoisted and not (residual shapes, fwd+bwd peak, time).
  r.add(hoist_grad_case(30, {15, 12}, "quick", 3));
  r.add(hoist_grad_case(64, {32, 32}, "quick", 3));

  // Nightly: length 10 → 1000 and 180 → ~10^6 elements per step, L·E capped near 10^8
  // (the unhoisted MSE then needs ~0.8 GB of inputs and ~0.8 GB above them).
  const std::vector<int64_t> lengths = {10, 100, 1000};
  const std::vector<Shape> rows = {{15, 12}, {256, 256}, {1024, 1024}};
  for (int64_t L : lengths)
    for (const Shape& row : rows) {
      if (L * num_elements(row) > 110'000'000) continue;
      if (L == 30 && row[0] == 15) continue;  // already quick
      for (const char* mode : {"stacked", "carry", "wide"}) {
        add_mse(r, L, row, f32, mode, "nightly", 3);
        add_sin_mean(r, L, row, mode, "nightly", 3);
      }
    }
  add_mse(r, 64, {1024, 1024}, f32, "stacked", "nightly", 5);  // the figure in lab/README.md
  r.add(sweep_case("nightly", {16, 32, 64}, {65536, 262144, 1048576}, 3));
  r.add(hoist_grad_case(1000, {256, 256}, "nightly", 3));
  r.add(hoist_grad_case(64, {1024, 1024}, "nightly", 3));
}

}  // namespace tandem
