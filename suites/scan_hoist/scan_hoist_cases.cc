// Hoisting and decline cases. Correctness before timing: both programs are checked against
// the reference (reference_eval of the unhoisted program, or for large sizes the streaming
// oracle that mirrors it) with tolerances from the workload's error model; then memory and
// time of each are measured in the same check so one record holds the comparison.
#include "suites/scan_hoist/scan_hoist_cases.h"

#include <algorithm>
#include <cmath>

#include "bridge/reference_bridge.h"
#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/ir/printer.h"
#include "engine/ir/typecheck.h"
#include "suites/scan_hoist/scan_hoist_measure.h"

namespace tandem {
namespace {

// Above this many stacked elements reference_eval's f64 copies get large: use the oracle.
constexpr int64_t kStreamingAbove = int64_t(1) << 22;

std::vector<std::vector<double>> reference_eval_values(const Program& p, const std::vector<Tensor>& in) {
  std::vector<ref::Array> ref_in;
  for (const Tensor& t : in) ref_in.push_back(to_ref(t));
  std::vector<std::vector<double>> r;
  for (ref::Array& a : reference_eval(p, ref_in)) r.push_back(std::move(a.data));
  return r;
}

std::vector<std::vector<double>> reference_values(const Workload& w, const std::vector<Tensor>& in,
                                                  std::string& which) {
  if (w.oracle && w.length * w.per_step > kStreamingAbove) {
    which = "streaming oracle (tandem::ref ops one step at a time, mirrors reference_eval)";
    return {w.oracle(in)};
  }
  which = "reference_eval of the unhoisted program";
  return reference_eval_values(w.program, in);
}

// Compares every output; returns the largest absolute error.
double check_outputs(const char* label, const std::vector<Tensor>& got, const std::vector<std::vector<double>>& want,
                     const ErrorSpec& sum_spec, CaseResult& r, const std::vector<size_t>& elementwise = {}) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    bool plain = std::find(elementwise.begin(), elementwise.end(), i) != elementwise.end();
    // An output returned as is went through one elementwise op: a few ulps, relative.
    const ErrorSpec spec = plain ? elementwise_spec(got.at(i).dtype(), 4) : sum_spec;
    CompareReport rep = compare(want[i], got.at(i).to_f64(), spec);
    nlohmann::json j = rep.to_json();
    j["tolerance"] = {{"abs", spec.abs}, {"rel", spec.rel}, {"why", spec.why}};
    // A scalar's error is one sample of rounding: it can fall far below an ulp by luck. Say
    // so where the headroom is above 10^4, with the tolerance in ulps of the result.
    double wmax = 0;
    for (double v : want[i]) wmax = std::max(wmax, std::abs(v));
    double ulp = 2 * unit_roundoff(got.at(i).dtype()) * wmax;
    if (rep.max_ratio > 0 && rep.max_ratio < 1e-4 && ulp > 0) {
      double cond = r.correctness.contains("sum_abs_terms") && wmax > 0
                        ? r.correctness["sum_abs_terms"].get<double>() / wmax : 1;
      j["headroom_reason"] = cat("one scalar, one sample of rounding: the error is ", rep.max_abs / ulp,
                                 " ulp of the result, the tolerance ", rep.max_abs / rep.max_ratio / ulp,
                                 " ulps; sum|terms| / |result| = ", cond,
                                 " (cancellation: the bound scales with sum|terms|, the result does not)");
    }
    r.correctness[cat(label, "/out", i)] = j;
    worst = std::max(worst, rep.max_abs);
    if (!rep.pass) {
      r.verdict = Verdict::fail;
      r.message += cat(label, " out", i, ": ", rep.text(), "\n");
    }
  }
  return worst;
}

// The original's and the hoisted program's tolerances: exact for exact-by-construction
// workloads; else from Σ|terms| of the inputs (probabilistic model, the worst case kept as a
// second, reported line); else the model's worst case, with that reason in the record.
std::pair<ErrorSpec, ErrorSpec> sum_tolerances(const Workload& w, const std::vector<Tensor>& in,
                                               const HoistOptions& opts, CaseResult& r) {
  if (w.exact) {
    ErrorSpec e{0, 0, 0, "exact: integer inputs, integer-exact ops, every partial sum < 2^24"};
    return {e, e};
  }
  if (!w.abs_total) {
    ErrorSpec so = sum_tolerance(w.model, w.dtype, false, opts), sh = sum_tolerance(w.model, w.dtype, true, opts);
    r.correctness["tolerance_model"] = "worst case from the term bound: no data-derived sum|terms| for this workload";
    return {so, sh};
  }
  double total = w.abs_total(in);
  r.correctness["sum_abs_terms"] = total;
  r.correctness["worst_case_tolerance"] = {
      {"original", sum_tolerance(w.model, w.dtype, false, opts, total).abs},
      {"hoisted", sum_tolerance(w.model, w.dtype, true, opts, total).abs},
      {"model_bound_original", sum_tolerance(w.model, w.dtype, false, opts).abs},
      {"why", "first-order worst case n*u*sum|terms| (reported, not the check); model_bound_*: with the term bound"}};
  return {probabilistic_sum_tolerance(w.model, w.dtype, false, opts, total),
          probabilistic_sum_tolerance(w.model, w.dtype, true, opts, total)};
}

}  // namespace

HoistOptions hoist_options(const std::string& mode, DType dt) {
  HoistOptions o;
  o.min_step_elements = 0;  // the cases check the rewrite at every size; the cost estimate has its decline case
  o.accumulate_in_carry = mode == "carry" || mode == "wide_carry";
  if (mode == "wide" || mode == "wide_carry")
    o.accumulate_dtype = dt == DType::f32 || dt == DType::f64 ? DType::f64 : DType::f32;
  return o;
}

Case hoist_case(const std::string& name, nlohmann::json params, std::function<Workload()> make,
                const std::string& mode, const std::string& profile, int reps) {
  Case c;
  c.suite = "scan_hoist";
  c.name = "scan_hoist/" + name + "/mode:" + mode;
  params["mode"] = mode;
  c.params = params;
  c.profiles = profiles_from(profile);
  c.instantiate = [make, mode, reps, key = c.name](Device dev) {
    auto w = std::make_shared<Workload>(make());
    HoistOptions opts = hoist_options(mode, w->dtype);
    auto h = std::make_shared<HoistResult>(hoist_scan_reductions(w->program, opts));
    typecheck(h->program);
    auto in = std::make_shared<std::vector<Tensor>>(seeded_inputs(w->program, key, w->exact));
    auto dev_in = std::make_shared<std::vector<Tensor>>(on_device(*in, dev));
    CaseInstance inst;
    inst.body = [h, dev_in, dev] { Executor(dev).run(h->program, *dev_in); };
    inst.check = [w, h, in, dev, opts, reps] {
      CaseResult r;
      r.info["log"] = h->log;
      r.info["rewrites"] = h->rewrites;
      r.info["options"] = {{"accumulate_in_carry", opts.accumulate_in_carry},
                           {"accumulate_dtype", opts.accumulate_dtype ? dtype_name(*opts.accumulate_dtype) : "none"}};
      if (h->rewrites != w->expected_rewrites) {
        r.verdict = Verdict::fail;
        r.message = cat("expected ", w->expected_rewrites, " rewrites, the pass made ", h->rewrites, "\n");
      }
      Measured mo = measure_program(w->program, *in, reps, dev);
      Measured mh = measure_program(h->program, *in, reps, dev);
      std::string which;
      auto want = reference_values(*w, *in, which);
      r.info["reference"] = which;
      auto [so, sh] = sum_tolerances(*w, *in, opts, r);
      double eo = check_outputs("original", mo.outputs, want, so, r, w->elementwise_outputs);
      double eh = check_outputs("hoisted", mh.outputs, want, sh, r, w->elementwise_outputs);

      double elt = double(dtype_size(w->dtype)), L = double(w->length), E = double(w->per_step);
      double per_l_plus_e = double(mh.peak_above_inputs) / elt / (L + E);
      double per_le = double(mo.peak_above_inputs) / elt / (L * E);
      // The suite's goal: O(L + E) above the inputs. 16 is the "small constant": the scan
      // copies each xs row, the chain makes a few row-sized temporaries, partials are L.
      bool memory_goal = w->kind == "mse" || w->kind == "sin_mean";
      if (memory_goal && double(mh.peak_above_inputs) > 16 * (L + E) * elt + 65536) {
        r.verdict = Verdict::fail;
        r.message += cat("hoisted peak ", mh.peak_above_inputs, " B is not O(L+E): ", per_l_plus_e,
                         " elements per (L+E)\n");
      }
      r.metrics = {
          {"time_original", mo.median_s, "s", "lower"},
          {"time_hoisted", mh.median_s, "s", "lower"},
          {"speedup", mh.median_s > 0 ? mo.median_s / mh.median_s : 0, "x", "higher"},
          {"peak_above_inputs_original", double(mo.peak_above_inputs), "bytes", "lower"},
          {"peak_above_inputs_hoisted", double(mh.peak_above_inputs), "bytes", "lower"},
          {"memory_reduction", mh.peak_above_inputs > 0 ? double(mo.peak_above_inputs) / double(mh.peak_above_inputs) : 0, "x", "higher"},
          {"hoisted_peak_elements_per_L_plus_E", per_l_plus_e, "", "lower"},
          {"original_peak_elements_per_LxE", per_le, "", ""},
          {"error_original", eo, "abs", "lower"},
          {"error_hoisted", eh, "abs", "lower"},
          {"tolerance_original", so.abs, "abs", ""},
          {"tolerance_hoisted", sh.abs, "abs", ""},
      };
      r.info["L"] = w->length;
      r.info["E"] = w->per_step;
      r.info["timing_reps"] = reps;
      r.info["time_by_eqn"] = {{"original", mo.time_by_eqn}, {"hoisted", mh.time_by_eqn}};
      std::string po = to_string(w->program), ph = to_string(h->program);
      if (po.size() + ph.size() < 6000) r.info["programs"] = {{"original", po}, {"hoisted", ph}};
      return r;
    };
    inst.info = {{"timed_body", "the hoisted program"}};
    inst.oracle = [w, h, in] {  // both programs against JAX on the original's semantics
      OracleProgram o = oracle_eval("original", w->program, *in), oh = oracle_eval("hoisted", w->program, *in);
      oh.engine = Executor(Device::cpu()).run(h->program, *in);
      oh.note = "Executor on the hoisted program; the oracle evaluates the original";
      return std::vector<OracleProgram>{o, oh};
    };
    return inst;
  };
  return c;
}

Case decline_case(const std::string& kind, const std::string& profile) {
  Case c;
  c.suite = "scan_hoist";
  c.name = "scan_hoist/decline/" + kind;
  c.params = {{"kind", kind}};
  c.profiles = profiles_from(profile);
  c.instantiate = [kind, key = c.name](Device dev) {
    DeclineWorkload w;
    for (DeclineWorkload& d : decline_workloads())
      if (d.kind == kind) w = d;
    TANDEM_CHECK(!w.kind.empty(), "no decline workload ", kind);
    auto p = std::make_shared<Program>(w.program);
    auto in = std::make_shared<std::vector<Tensor>>(seeded_inputs(w.program, key));
    auto dev_in = std::make_shared<std::vector<Tensor>>(on_device(*in, dev));
    CaseInstance inst;
    inst.body = [p, dev_in, dev] { Executor(dev).run(*p, *dev_in); };
    inst.check = [w, p, in, dev] {
      HoistResult h = hoist_scan_reductions(*p);
      typecheck(h.program);
      CaseResult r;
      r.info["log"] = h.log;
      r.info["expected_reason"] = w.reason;
      bool named = false;
      for (const PassNote& n : h.notes) named |= !n.rewritten && n.reason == w.reason;
      // The decline is this case's result: its note is the message the run table shows.
      for (const PassNote& n : h.notes)
        if (!n.rewritten && n.reason == w.reason) r.message = n.str();
      if (h.rewrites != 0 || !named || h.program.eqns.size() != p->eqns.size()) {
        r.verdict = Verdict::fail;
        r.message = cat("the pass must decline with [", w.reason, "]; rewrites=", h.rewrites,
                        " log: ", nlohmann::json(h.log).dump(), "\n");
      }
      // The program is unchanged, so this is a sanity check of the run: sums of at most 120
      // f32 terms (and one product of such a sum) stay within 10^3 units of roundoff.
      ErrorSpec spec{1e-6, 1000 * unit_roundoff(DType::f32), 0, "unchanged program: 1000u relative"};
      check_outputs("unchanged", Executor(dev).run(h.program, *in), reference_eval_values(*p, *in), spec, r);
      return r;
    };
    inst.oracle = [p, in] { return std::vector<OracleProgram>{oracle_eval("program", *p, *in)}; };
    return inst;
  };
  return c;
}

}  // namespace tandem
