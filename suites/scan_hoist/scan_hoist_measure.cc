// Measurement helpers and the error model behind the scan_hoist tolerances.
#include "suites/scan_hoist/scan_hoist_measure.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "harness/timing.h"
#include "suites/scan_hoist/scan_hoist_workloads.h"

namespace tandem {

std::vector<Tensor> on_device(const std::vector<Tensor>& host, Device d) {
  std::vector<Tensor> r;
  for (const Tensor& t : host) r.push_back(t.to(d));
  return r;
}

Measured measure_program(const Program& p, const std::vector<Tensor>& host_inputs, int reps, Device d) {
  const std::vector<Tensor> inputs = on_device(host_inputs, d);
  Measured m;
  Allocator& a = Allocator::instance();
  a.reset_peak(d);
  int64_t live = a.stats(d).live_bytes;
  Executor first(d);
  first.set_timing(true);
  m.outputs = first.run(p, inputs);
  m.peak_above_inputs = a.stats(d).peak_bytes - live;
  for (const EqnTiming& t : first.timings()) m.time_by_eqn.push_back({t.prim, t.seconds});
  if (reps > 0) {
    TimingStats t = summarize(time_repeated([&] { Executor(d).run(p, inputs); }, 0, reps, 0, d));
    m.min_s = t.min;
    m.median_s = t.median;
  }
  return m;
}

std::vector<Tensor> seeded_inputs(const Program& p, const std::string& key, bool integers) {
  std::vector<Tensor> r;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    const AType& t = p.in_vars[i]->type;
    std::mt19937_64 rng(std::hash<std::string>{}(cat(key, "/in", i)));
    std::uniform_real_distribution<double> u(-1, 1);
    std::uniform_int_distribution<int> ui(-8, 8);
    Tensor x = Tensor::empty(t.shape, t.dtype);
    for (int64_t k = 0, n = x.numel(); k < n; ++k)
      store_from_f64(x.raw(), t.dtype, k, integers ? double(ui(rng)) : u(rng));
    r.push_back(x);
  }
  return r;
}

double growth_exponent(double x_a, double a, double x_b, double b) {
  if (a <= 0 || b <= 0 || x_a == x_b) return 0;
  return std::log(b / a) / std::log(x_b / x_a);
}

// First-order worst case of recursive summation (Higham, ch. 4): a chain of n additions in
// unit roundoff u errs by ≤ n·u·Σ|terms|. The engine's reduce_sum keeps one sequential
// accumulator per output in f32 for f32/bf16/f16 values (f64 for f64), and stores the
// result in the value's dtype; a carry is stored in its dtype after every step.
ErrorSpec sum_tolerance(const SumModel& m, DType dt, bool hoisted, const HoistOptions& o, double abs_total) {
  auto compute_u = [](DType t) { return unit_roundoff(t == DType::f64 ? DType::f64 : DType::f32); };
  double us = unit_roundoff(dt), uc = compute_u(dt);
  bool wide = hoisted && o.accumulate_dtype && is_floating(*o.accumulate_dtype) && *o.accumulate_dtype != dt;
  double units;  // of Σ|terms|
  std::string how;
  if (!hoisted) {
    units = double(m.terms) * uc + us;
    how = cat("one chain of ", m.terms, " additions (u=", uc, ") + 1 rounding to ", dtype_name(dt));
  } else if (wide) {
    double uw = compute_u(*o.accumulate_dtype);
    units = double(m.per_step_chain + m.step_chain) * uw + us;
    how = cat(m.per_step_chain, " additions per step + ", m.step_chain, " across steps in ",
              dtype_name(*o.accumulate_dtype), " (u=", uw, ") + 1 rounding to ", dtype_name(dt));
  } else {
    double u_steps = o.accumulate_in_carry ? us : uc;
    units = double(m.per_step_chain) * uc + double(m.step_chain) * u_steps + 2 * us;
    how = cat(m.per_step_chain, " additions per step (u=", uc, ") + ", m.step_chain, " across steps (u=",
              u_steps, ") + 2 roundings to ", dtype_name(dt));
  }
  double total = abs_total > 0 ? abs_total : m.scale * double(m.terms) * m.term_bound;
  ErrorSpec s;
  s.abs = total * (units + (m.pointwise_units + 2) * us);
  s.why = cat("first-order worst case: ",
              abs_total > 0 ? cat("scale x sum|terms| = ", abs_total, " from the inputs")
                            : cat(m.terms, " terms |t| <= ", m.term_bound, " x scale ", m.scale),
              "; ", how, "; ", m.pointwise_units, "u per term; 2u for the final scaling");
  return s;
}

// Higham & Mary (2019, Thm 2.4): with rounding errors independent and of mean zero, a chain
// of n operations errs by ≤ λ·√n·u (first order) with probability ≥ 1 − 2n·exp(−λ²/2);
// λ is chosen for a failure probability of 1e-9 per chain. The model breaks under
// stagnation (terms below half an ulp of the running sum round the same way: biased), so
// it is used only while every chain has n·u ≤ 0.1; beyond that the worst case is the check.
ErrorSpec probabilistic_sum_tolerance(const SumModel& m, DType dt, bool hoisted, const HoistOptions& o,
                                      double abs_total) {
  auto compute_u = [](DType t) { return unit_roundoff(t == DType::f64 ? DType::f64 : DType::f32); };
  auto chain = [](double n, double u) { return std::sqrt(2 * std::log(2 * n / 1e-9)) * std::sqrt(n) * u; };
  double us = unit_roundoff(dt), uc = compute_u(dt);
  bool wide = hoisted && o.accumulate_dtype && is_floating(*o.accumulate_dtype) && *o.accumulate_dtype != dt;
  double u_within = wide ? compute_u(*o.accumulate_dtype) : uc;
  double u_across = wide ? u_within : (hoisted && o.accumulate_in_carry ? us : uc);
  double n1 = double(hoisted ? m.per_step_chain : m.terms), n2 = hoisted ? double(m.step_chain) : 0;
  if (n1 * u_within > 0.1 || n2 * u_across > 0.1) {
    ErrorSpec s = sum_tolerance(m, dt, hoisted, o, abs_total);
    s.why = cat("worst case kept (a chain has n*u > 0.1: stagnation biases the rounding errors, "
                "the sqrt(n) model does not hold): ", s.why);
    return s;
  }
  double units = chain(n1, u_within) + (n2 > 0 ? chain(n2, u_across) : 0) + (hoisted ? 2 : 1) * us;
  ErrorSpec s;
  s.abs = abs_total * (units + (m.pointwise_units + 2) * us);
  s.why = cat("probabilistic (Higham & Mary, lambda*sqrt(n)*u, P(fail) <= 1e-9 per chain): scale x sum|terms| = ",
              abs_total, " from the inputs; chains of ", n1, " (u=", u_within, ")",
              n2 > 0 ? cat(" and ", n2, " (u=", u_across, ")") : std::string(), "; ", m.pointwise_units,
              "u per term; 2u for the final scaling");
  return s;
}

}  // namespace tandem
