// The length × batch sweep of the MSE example: at every (L, E) both programs are checked
// against the streaming oracle, then timed (min of reps) and their peaks measured. Growth
// exponents along each axis (smallest to largest, the other fixed) show whether time or memory grows
// faster than linearly; memory is deterministic, so super-linear memory fails the case,
// while super-linear time (noisy on a shared machine) is flagged in the message and info.
#include <cmath>

#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/ir/typecheck.h"
#include "suites/scan_hoist/scan_hoist_cases.h"
#include "suites/scan_hoist/scan_hoist_measure.h"

namespace tandem {
namespace {

constexpr double kTimeFlag = 1.3;    // exponent above which time growth is flagged
constexpr double kMemoryFlag = 1.1;  // exponent above which memory growth fails

struct Point {
  int64_t L, E;
  double t_orig, t_hoist;
  int64_t peak_orig, peak_hoist;
};

// One (L, E): both programs checked against the oracle, timed and their peaks measured; a
// row of the record's table.
Point measure_point(int64_t L, int64_t E, const std::string& key, int reps, Device dev, CaseResult& r,
                    nlohmann::json& table) {
  Workload w = mse_workload(L, {E});
  HoistResult h = hoist_scan_reductions(w.program, {.min_step_elements = 0});
  typecheck(h.program);
  std::vector<Tensor> in = seeded_inputs(w.program, cat(key, "/", L, "/", E));
  Measured mo = measure_program(w.program, in, reps, dev);
  Measured mh = measure_program(h.program, in, reps, dev);
  double want = w.oracle(in)[0];
  for (auto [label, m, hoisted] : {std::tuple{"original", &mo, false}, std::tuple{"hoisted", &mh, true}}) {
    ErrorSpec s = sum_tolerance(w.model, w.dtype, hoisted, {});
    CompareReport rep = compare({want}, m->outputs[0].to_f64(), s);
    if (!rep.pass) {
      r.verdict = Verdict::fail;
      r.message += cat(label, " L=", L, " E=", E, ": ", rep.text(), "\n");
    }
  }
  table.push_back({{"L", L}, {"E", E}, {"time_original_s", mo.min_s}, {"time_hoisted_s", mh.min_s},
                   {"speedup", mh.min_s > 0 ? mo.min_s / mh.min_s : 0},
                   {"peak_original_bytes", mo.peak_above_inputs},
                   {"peak_hoisted_bytes", mh.peak_above_inputs}});
  return {L, E, mo.min_s, mh.min_s, mo.peak_above_inputs, mh.peak_above_inputs};
}

// The growth exponents found so far, the flags they raised and the worst of each kind.
struct Growth {
  nlohmann::json rows = nlohmann::json::array(), flags = nlohmann::json::array();
  double worst_time = 0, worst_mem = 0;
};

// The exponents of time and peak from a to b along `axis` ("L" or "E"): each recorded, and
// flagged above its threshold (memory fails the case, time only flags it).
void grow(const Point& a, const Point& b, const char* axis, Growth& g, CaseResult& r) {
  bool along_L = axis[0] == 'L';
  double xa = along_L ? double(a.L) : double(a.E), xb = along_L ? double(b.L) : double(b.E);
  struct { const char* what; double e; bool memory; } rows[] = {
      {"time_original", growth_exponent(xa, a.t_orig, xb, b.t_orig), false},
      {"time_hoisted", growth_exponent(xa, a.t_hoist, xb, b.t_hoist), false},
      {"peak_original", growth_exponent(xa, double(a.peak_orig), xb, double(b.peak_orig)), true},
      {"peak_hoisted", growth_exponent(xa, double(a.peak_hoist), xb, double(b.peak_hoist)), true}};
  for (auto& row : rows) {
    g.rows.push_back({{"along", axis}, {"from", {a.L, a.E}}, {"to", {b.L, b.E}}, {"what", row.what},
                      {"exponent", row.e}});
    double& worst = row.memory ? g.worst_mem : g.worst_time;
    worst = std::max(worst, row.e);
    if (row.e <= (row.memory ? kMemoryFlag : kTimeFlag)) continue;
    std::string f = cat("super-linear ", row.what, " along ", axis, " from L=", a.L, ",E=", a.E,
                        " to L=", b.L, ",E=", b.E, ": exponent ", row.e);
    g.flags.push_back(f);
    r.message += "FLAG: " + f + "\n";
    if (row.memory) r.verdict = Verdict::fail;
  }
}

CaseResult check_sweep(const std::vector<int64_t>& lengths, const std::vector<int64_t>& batches, int reps,
                       const std::string& key, Device dev) {
  CaseResult r;
  std::vector<Point> pts;
  nlohmann::json table = nlohmann::json::array();
  for (int64_t L : lengths)
    for (int64_t E : batches) pts.push_back(measure_point(L, E, key, reps, dev, r, table));
  // Growth exponents from the smallest to the largest value of each axis, the other held
  // fixed: end to end, so one noisy sub-millisecond timing cannot raise a flag by itself.
  Growth g;
  size_t nL = lengths.size(), nE = batches.size();
  for (size_t e = 0; e < nE; ++e) grow(pts[e], pts[(nL - 1) * nE + e], "L", g, r);
  for (size_t l = 0; l < nL; ++l) grow(pts[l * nE], pts[l * nE + nE - 1], "E", g, r);
  const Point& last = pts.back();
  r.info = {{"table", table}, {"growth", g.rows}, {"flags", g.flags}, {"timing", cat("min of ", reps, " runs")},
            {"time_flag_exponent", kTimeFlag}, {"memory_fail_exponent", kMemoryFlag}};
  r.metrics = {{"max_time_growth_exponent", g.worst_time, "", "lower"},
               {"max_memory_growth_exponent", g.worst_mem, "", "lower"},
               {"flags", double(g.flags.size()), "", "lower"},
               {"speedup_at_largest", last.t_hoist > 0 ? last.t_orig / last.t_hoist : 0, "x", "higher"},
               {"memory_reduction_at_largest", last.peak_hoist > 0 ? double(last.peak_orig) / double(last.peak_hoist) : 0, "x", "higher"}};
  return r;
}

}  // namespace

Case sweep_case(const std::string& profile, std::vector<int64_t> lengths, std::vector<int64_t> batches, int reps) {
  Case c;
  c.suite = "scan_hoist";
  c.name = cat("scan_hoist/sweep/mse/L:", lengths.front(), "-", lengths.back(), "/E:", batches.front(),
               "-", batches.back());
  c.params = {{"lengths", lengths}, {"batches", batches}, {"mode", "stacked"}};
  c.profiles = profiles_from(profile);
  c.instantiate = [lengths, batches, reps, key = c.name](Device dev) {
    // The timed body: the hoisted program at the largest point.
    auto big = std::make_shared<Workload>(mse_workload(lengths.back(), {batches.back()}));
    auto big_h = std::make_shared<Program>(hoist_scan_reductions(big->program, {.min_step_elements = 0}).program);
    auto big_in = std::make_shared<std::vector<Tensor>>(on_device(seeded_inputs(big->program, key), dev));
    CaseInstance inst;
    inst.body = [=] { Executor(dev).run(*big_h, *big_in); };
    inst.check = [=] { return check_sweep(lengths, batches, reps, key, dev); };
    return inst;
  };
  return c;
}

}  // namespace tandem
