// vmap suite cases. A batch case runs vmap(f) on the engine over seeded batched inputs and
// compares each output with f evaluated per example on the reference (reference_eval) and
// stacked along the output's axis, within the per-example computation's tolerance. A
// gradient case does the same for f's joint vjp program (per-example gradients). A refusal
// case passes only when vmap rejects its bad axes as bad input with a hint.
#include "suites/vmap/vmap_cases.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "bridge/reference_bridge.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/executor.h"
#include "engine/ir/typecheck.h"
#include "engine/passes/vjp.h"
#include "harness/program_case.h"

namespace tandem::vmap_suite {
namespace {

struct Workload {
  VmapProgram vp;
  Program per_example;          // f, or f's joint vjp program for a gradient case
  std::vector<VmapAxis> in, out;
  Program batched;
  std::vector<Tensor> inputs;   // host, batched
};

int batched_axis(VmapAxis a, int per_example_rank) { return int(*a < 0 ? *a + per_example_rank + 1 : *a); }

std::shared_ptr<Workload> make_workload(const std::string& program, const std::string& config, int64_t n,
                                        bool gradient, const std::string& key) {
  auto w = std::make_shared<Workload>();
  w->vp = make_program(program);
  AxisConfig cfg = axis_config(w->vp.program, config);
  w->in = cfg.in;
  w->out = cfg.out;
  w->per_example = w->vp.program;
  std::vector<std::pair<double, double>> ranges = w->vp.ranges;
  if (gradient) {  // (inputs..., output cts...) -> (outputs..., input cts...), cts mapped at 0
    w->per_example = vjp_joint(w->vp.program);
    for (size_t j = 0; j < w->vp.program.out_vars.size(); ++j) {
      w->in.push_back(0);
      ranges.push_back({-1, 1});
    }
    while (w->out.size() < w->per_example.out_vars.size()) w->out.push_back(0);
  }
  w->batched = vmap(w->per_example, w->in, w->out, n, "batch");
  typecheck(w->batched);
  for (size_t i = 0; i < w->in.size(); ++i) {
    AType t = w->per_example.in_vars[i]->type;
    if (w->in[i]) t.shape.insert(t.shape.begin() + batched_axis(w->in[i], t.rank()), n);
    w->inputs.push_back(seeded_uniform(t.shape, t.dtype, cat(key, "/", i), ranges[i].first, ranges[i].second));
  }
  return w;
}

// f on each example on the reference, stacked along each output's axis.
std::vector<Tensor> reference_stacked(const Workload& w) {
  int64_t n = -1;
  std::vector<std::vector<Tensor>> examples(w.inputs.size());
  for (size_t i = 0; i < w.inputs.size(); ++i)
    if (w.in[i]) {
      examples[i] = unstack(w.inputs[i], *w.in[i]);
      n = int64_t(examples[i].size());
    }
  std::vector<std::vector<Tensor>> per(w.per_example.out_vars.size());
  for (int64_t e = 0; e < n; ++e) {
    std::vector<ref::Array> args;
    for (size_t i = 0; i < w.inputs.size(); ++i) args.push_back(to_ref(w.in[i] ? examples[i][size_t(e)] : w.inputs[i]));
    std::vector<ref::Array> out = reference_eval(w.per_example, args);
    for (size_t j = 0; j < out.size(); ++j) per[j].push_back(from_ref(out[j]));
  }
  std::vector<Tensor> r;
  for (size_t j = 0; j < per.size(); ++j) r.push_back(w.out[j] ? stack(per[j], *w.out[j]) : per[j][0]);
  return r;
}

}  // namespace

Case vmap_case(const std::string& name, const std::string& profile, nlohmann::json params) {
  Case c;
  c.suite = "vmap";
  c.name = "vmap/" + name;
  c.params = std::move(params);
  c.profiles = profiles_from(profile);
  return c;
}

Case batch_case(const std::string& program, const std::string& config, int64_t n, bool gradient,
                const std::string& profile) {
  std::string name = cat(gradient ? "grad/" : "", program, "/axes:", config, "/n:", n);
  Case c = vmap_case(name, profile, {{"program", program}, {"axes", config}, {"n", n}, {"gradient", gradient}});
  c.instantiate = [program, config, n, gradient, key = c.name](Device dev) {
    auto w = make_workload(program, config, n, gradient, key);
    auto dev_in = std::make_shared<std::vector<Tensor>>();
    for (const Tensor& t : w->inputs) dev_in->push_back(t.to(dev));
    CaseInstance inst;
    inst.body = [w, dev_in, dev] {
      Executor(dev).run(w->batched, *dev_in);
      if (dev.kind == DeviceKind::cuda) cuda_synchronize(dev.index);
    };
    inst.check = [w, dev_in, dev, gradient] {
      std::vector<Tensor> got = Executor(dev).run(w->batched, *dev_in);
      std::vector<Tensor> want = reference_stacked(*w);
      CaseResult r;
      r.correctness = nlohmann::json::object();
      for (size_t j = 0; j < want.size(); ++j) {
        std::string label = cat("output ", j);
        if (got[j].shape() != want[j].shape()) {
          r.verdict = Verdict::fail;
          r.message += cat(label, ": shape ", got[j].type().str(), ", the stacked examples are ", want[j].type().str(), "\n");
          continue;
        }
        std::vector<double> wv = want[j].to_f64();
        double mx = 0;
        for (double v : wv) mx = std::max(mx, std::abs(v));
        ErrorSpec spec = per_example_spec(w->vp, std::max(mx, 1.0), gradient);
        CompareReport rep = compare(wv, got[j].to_f64(), spec);
        nlohmann::json jr = rep.to_json();
        jr["tolerance"] = {{"abs", spec.abs}, {"rel", spec.rel}, {"why", spec.why}};
        r.correctness[label] = jr;
        if (!rep.pass) {
          r.verdict = Verdict::fail;
          r.message += label + ": " + rep.text() + "\n";
        }
      }
      r.info["batched_eqns"] = w->batched.eqns.size();
      return r;
    };
    // jax.vmap of f (and jax.vjp of f for a gradient case), not tandem's vmap / vjp passes.
    inst.oracle = [w, gradient, n] {
      OracleProgram o;
      o.label = gradient ? "vmap(vjp(f))" : "vmap(f)";
      o.program = w->vp.program;
      const size_t n_in = o.program.in_vars.size();
      o.inputs.assign(w->inputs.begin(), w->inputs.begin() + int64_t(n_in));
      o.output_cts.assign(w->inputs.begin() + int64_t(n_in), w->inputs.end());
      o.vmap = OracleVmap{w->in, w->out, n};
      o.engine = Executor(Device::cpu()).run(w->batched, w->inputs);
      o.note = gradient ? "Executor on vmap(vjp_joint(f))" : "Executor on vmap(f)";
      return std::vector<OracleProgram>{o};
    };
    return inst;
  };
  return c;
}

Case refusal_case(const std::string& what, std::function<void()> bad, const std::string& needle) {
  Case c = vmap_case("refuses/" + what, "quick", {{"refusal", what}});
  c.instantiate = [bad, needle](Device) {
    CaseInstance inst;
    inst.body = [] {};
    inst.check = [bad, needle] {
      CaseResult r;
      try {
        bad();
        r.verdict = Verdict::fail;
        r.message = "vmap accepted it";
      } catch (const Error& e) {
        r.info["error"] = e.what();
        bool ok = e.kind() == ErrorKind::bad_input && !e.hint().empty() &&
                  e.message().find(needle) != std::string::npos;
        if (!ok) {
          r.verdict = Verdict::fail;
          r.message = cat("expected bad input with a hint naming '", needle, "', got: ", e.what());
        }
      }
      return r;
    };
    return inst;
  };
  return c;
}

}  // namespace tandem::vmap_suite
