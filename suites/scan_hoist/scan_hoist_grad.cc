// Part 4 of the scan-hoisting issue: the gradient of the seed's MSE with and without the
// rewrite. Reverse mode (engine/passes/vjp) over the original program must keep the stacked
// ys, and the difference y − ys, as residuals of L×E elements each; over the hoisted program
// the per-step loss lives inside the scan, and differentiated under nothing_saveable the scan
// body saves only its operands and the scalar carry per step (JAX's scan partial evaluation:
// everything_saveable would stack the per-step difference, [L, ...]), so no residual of L×E
// elements may appear. The case asserts
// that on the saved residuals' shapes, checks both gradients against the closed form in f64,
// and measures the peak bytes and time of forward + backward for both programs.
#include <algorithm>
#include <cmath>

#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/ir/typecheck.h"
#include "engine/passes/saved_residuals.h"
#include "engine/passes/vjp.h"
#include "harness/timing.h"
#include "suites/scan_hoist/scan_hoist_cases.h"
#include "suites/scan_hoist/scan_hoist_grad.h"
#include "suites/scan_hoist/scan_hoist_measure.h"

namespace tandem {

int64_t largest_residual_elements(const SavedResiduals& s, std::string* source) {
  int64_t best = 0;
  for (const Residual& r : s.residuals) {
    if (r.is_argument) continue;
    int64_t n = num_elements(r.type.shape);
    if (n > best) {
      best = n;
      if (source) *source = cat(r.type.str(), " ", r.source);
    }
  }
  return best;
}

int64_t residuals_of_at_least(const SavedResiduals& s, int64_t elements) {
  return std::count_if(s.residuals.begin(), s.residuals.end(), [&](const Residual& r) {
    return !r.is_argument && num_elements(r.type.shape) >= elements;
  });
}

std::vector<std::vector<double>> mse_gradient_closed_form(const std::vector<Tensor>& in) {
  // loss = Σ (y − cos x)² / n over x, y of n elements each:
  //   ∂/∂x1 = 0 (the carry does not reach the loss), ∂/∂x = 2 (y − cos x) sin x / n,
  //   ∂/∂y = 2 (y − cos x) / n.
  std::vector<double> x = in.at(1).to_f64(), y = in.at(2).to_f64();
  double n = double(x.size());
  std::vector<double> gx(x.size()), gy(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double d = y[i] - std::cos(x[i]);
    gx[i] = 2 * d * std::sin(x[i]) / n;
    gy[i] = 2 * d / n;
  }
  return {std::vector<double>(size_t(in.at(0).numel()), 0.0), gx, gy};
}

Tensor unit_cotangent(DType t) {
  Tensor ct = Tensor::empty({}, t);
  store_from_f64(ct.raw(), t, 0, 1.0);
  return ct;
}

GradMeasured measure_vjp(const VjpProgram& v, const std::vector<Tensor>& host_inputs, int reps, Device d) {
  GradMeasured m;
  Allocator& a = Allocator::instance();
  const std::vector<Tensor> inputs = on_device(host_inputs, d);  // before the peak window
  const Tensor ct = unit_cotangent(v.forward.out_vars.at(0).type().dtype).to(d);
  a.reset_peak(d);
  int64_t live = a.stats(d).live_bytes;
  m.cotangents = run_vjp(v, inputs, {ct}, d).cotangents;
  m.peak_above_inputs = a.stats(d).peak_bytes - live;
  m.median_s = summarize(time_repeated([&] { run_vjp(v, inputs, {ct}, d); }, 0, reps, 0, d)).median;
  return m;
}

namespace {

// Each gradient element is a product of a few f32 operations on values bounded by 2, scaled
// by 1/n: its error is at most a few units of roundoff of 4/n. 32u leaves room for cos/sin's
// ulp error and the rounding of 1/n, and stays 10^4× below the gradient's magnitude.
ErrorSpec gradient_tolerance(DType dt, int64_t n) {
  double u = unit_roundoff(dt == DType::f64 ? DType::f64 : DType::f32);
  double us = unit_roundoff(dt);
  double bound = 4.0 / double(n);
  return ErrorSpec{(32 * u + 2 * us) * bound, 0, 0, cat("elementwise gradient: (32u + 2u_store) × 4/n, n = ", n)};
}

void check_gradients(const char* label, const std::vector<Tensor>& got,
                     const std::vector<std::vector<double>>& want, const ErrorSpec& spec, CaseResult& r) {
  const char* names[] = {"d_x1", "d_x2", "d_y"};
  for (size_t i = 0; i < want.size(); ++i) {
    CompareReport rep = compare(want[i], got.at(i).to_f64(), spec);
    nlohmann::json j = rep.to_json();
    j["tolerance"] = {{"abs", spec.abs}, {"rel", spec.rel}, {"why", spec.why}};
    r.correctness[cat(label, "/", names[i])] = j;
    if (!rep.pass) {
      r.verdict = Verdict::fail;
      r.message += cat(label, " ", names[i], ": ", rep.text(), "\n");
    }
  }
}

// The residuals a vjp saves, and the largest and how many reach `elements` elements.
struct ResidualSizes {
  SavedResiduals saved;
  std::string largest_source;
  int64_t largest = 0, at_least = 0;
};
ResidualSizes residual_sizes(const VjpProgram& v, int64_t elements) {
  ResidualSizes s;
  s.saved = saved_residuals(v);
  s.largest = largest_residual_elements(s.saved, &s.largest_source);
  s.at_least = residuals_of_at_least(s.saved, elements);
  return s;
}

// jax.vjp of the original forward program, against tandem's gradients of both programs.
std::vector<OracleProgram> grad_oracle(const Program& program, const std::shared_ptr<VjpProgram>& vo,
                                       const std::shared_ptr<VjpProgram>& vh, const std::vector<Tensor>& in) {
  std::vector<OracleProgram> r;
  for (auto [label, v] : {std::pair{"original", vo}, std::pair{"hoisted", vh}}) {
    OracleProgram o;
    o.label = label;
    o.program = program;
    o.inputs = in;
    o.output_cts = {unit_cotangent(DType::f32)};
    o.wrt = v->wrt;
    VjpRun run = run_vjp(*v, in, o.output_cts, Device::cpu());
    o.engine = run.outputs;
    o.engine.insert(o.engine.end(), run.cotangents.begin(), run.cotangents.end());
    o.note = cat("run_vjp(vjp(", label, " program)); the oracle differentiates the original");
    r.push_back(std::move(o));
  }
  return r;
}

double max_abs_difference(const std::vector<Tensor>& x, const std::vector<Tensor>& y) {
  double m = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> a = x[i].to_f64(), b = y[i].to_f64();
    for (size_t k = 0; k < a.size(); ++k) m = std::max(m, std::abs(a[k] - b[k]));
  }
  return m;
}

// The record's figures: residuals, peak bytes and times of both programs' forward + backward.
std::vector<Metric> grad_metrics(const ResidualSizes& so, const ResidualSizes& sh, const GradMeasured& mo,
                                 const GradMeasured& mh, double extra_o, double extra_h, double elt, int64_t L,
                                 int64_t E, double max_between) {
  return {
      {"residual_bytes_original", double(so.saved.bytes - so.saved.argument_bytes), "bytes", "lower"},
      {"residual_bytes_hoisted", double(sh.saved.bytes - sh.saved.argument_bytes), "bytes", "lower"},
      {"residuals_LxE_original", double(so.at_least), "", ""},
      {"residuals_LxE_hoisted", double(sh.at_least), "", "lower"},
      {"largest_residual_elements_original", double(so.largest), "", ""},
      {"largest_residual_elements_hoisted", double(sh.largest), "", "lower"},
      {"peak_above_inputs_fwd_bwd_original", double(mo.peak_above_inputs), "bytes", "lower"},
      {"peak_above_inputs_fwd_bwd_hoisted", double(mh.peak_above_inputs), "bytes", "lower"},
      {"peak_above_inputs_and_gradients_original", extra_o, "bytes", "lower"},
      {"peak_above_inputs_and_gradients_hoisted", extra_h, "bytes", "lower"},
      {"hoisted_extra_elements_per_L_plus_E", extra_h / elt / double(L + E), "", "lower"},
      {"original_extra_elements_per_LxE", extra_o / elt / double(L * E), "", ""},
      {"time_fwd_bwd_original", mo.median_s, "s", "lower"},
      {"time_fwd_bwd_hoisted", mh.median_s, "s", "lower"},
      {"speedup_fwd_bwd", mh.median_s > 0 ? mo.median_s / mh.median_s : 0, "x", "higher"},
      {"max_abs_gradient_difference", max_between, "abs", "lower"},
  };
}

void fail(CaseResult& r, const std::string& why) {
  r.verdict = Verdict::fail;
  r.message += why;
}

// The case's check: one rewrite, no L×E residual in the hoisted vjp, both gradients against
// the closed form, and the hoisted forward + backward's memory O(L+E).
CaseResult check_hoist_grad(const Workload& w, const HoistResult& h, const VjpProgram& vo, const VjpProgram& vh,
                            const std::vector<Tensor>& in, Device dev, int reps, int64_t L) {
  CaseResult r;
  r.info["log"] = h.log;
  int64_t E = w.per_step, LE = L * E;
  const ResidualSizes so = residual_sizes(vo, LE), sh = residual_sizes(vh, LE);
  r.info["residuals"] = {{"original", format_saved_residuals(so.saved)}, {"hoisted", format_saved_residuals(sh.saved)}};
  r.info["largest_residual"] = {{"original", so.largest_source}, {"hoisted", sh.largest_source}};
  if (h.rewrites != 1) fail(r, cat("expected the pass to rewrite the MSE, it made ", h.rewrites, " rewrites\n"));
  // The goal of part 4: the hoisted gradient saves no length × batch residual.
  if (sh.at_least != 0)
    fail(r, cat("the hoisted program's vjp saves ", sh.at_least, " residual(s) of ≥ L×E = ", LE,
                " elements; largest: ", sh.largest_source, "\n"));
  GradMeasured mo = measure_vjp(vo, in, reps, dev);
  GradMeasured mh = measure_vjp(vh, in, reps, dev);
  auto want = mse_gradient_closed_form(in);
  ErrorSpec spec = gradient_tolerance(w.dtype, LE);
  check_gradients("original", mo.cotangents, want, spec, r);
  check_gradients("hoisted", mh.cotangents, want, spec, r);
  const double max_between = max_abs_difference(mo.cotangents, mh.cotangents);
  double elt = double(dtype_size(w.dtype));
  // The gradients are outputs of L×E elements the caller holds either way; what is
  // left above inputs and gradients is the cost of the differentiation itself.
  double ct_bytes = 0;
  for (const Tensor& t : mh.cotangents) ct_bytes += double(t.numel()) * elt;
  double extra_o = double(mo.peak_above_inputs) - ct_bytes, extra_h = double(mh.peak_above_inputs) - ct_bytes;
  // Same "small constant" as the forward's memory goal (scan_hoist_cases.cc).
  if (extra_h > 16 * double(L + E) * elt + 65536)
    fail(r, cat("hoisted forward + backward peaks ", extra_h, " B above inputs and gradients: not O(L+E)\n"));
  r.metrics = grad_metrics(so, sh, mo, mh, extra_o, extra_h, elt, L, E, max_between);
  r.info["L"] = L;
  r.info["E"] = E;
  r.info["note"] = "peak above inputs includes the gradients (3 outputs, two of L×E elements)";
  return r;
}

}  // namespace

Case hoist_grad_case(int64_t L, const Shape& row, const std::string& profile, int reps) {
  Case c;
  c.suite = "scan_hoist";
  c.name = cat("scan_hoist/grad/mse/L:", L, "/B:", row.at(0), "/F:", row.at(1), "/dtype:f32");
  c.params = {{"program", "mse"}, {"L", L}, {"B", row[0]}, {"F", row[1]}, {"dtype", "f32"}, {"grad", true}};
  c.profiles = profiles_from(profile);
  c.instantiate = [L, row, reps, key = c.name](Device dev) {
    auto w = std::make_shared<Workload>(mse_workload(L, row));
    auto h = std::make_shared<HoistResult>(hoist_scan_reductions(w->program, {.min_step_elements = 0}));
    typecheck(h->program);
    auto vo = std::make_shared<VjpProgram>(vjp(w->program));
    auto vh = std::make_shared<VjpProgram>(vjp(h->program, {}, nothing_saveable()));
    typecheck(vh->forward);
    typecheck(vh->backward);
    auto in = std::make_shared<std::vector<Tensor>>(seeded_inputs(w->program, key));
    auto dev_in = std::make_shared<std::vector<Tensor>>(on_device(*in, dev));
    auto dev_ct = std::make_shared<Tensor>(unit_cotangent(DType::f32).to(dev));
    CaseInstance inst;
    inst.body = [vh, dev_in, dev_ct, dev] { run_vjp(*vh, *dev_in, {*dev_ct}, dev); };
    inst.info = {{"timed_body", "forward + backward of the hoisted program"}};
    inst.oracle = [w, vo, vh, in] { return grad_oracle(w->program, vo, vh, *in); };
    inst.check = [w, h, vo, vh, in, dev, reps, L] { return check_hoist_grad(*w, *h, *vo, *vh, *in, dev, reps, L); };
    return inst;
  };
  return c;
}

}  // namespace tandem
