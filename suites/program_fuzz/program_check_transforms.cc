// The vmap, hoist and dot cases of an imported program (program_check.h).
#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "engine/passes/hoist_scan_reductions.h"
#include "engine/passes/vmap.h"
#include "engine/prims/dot_algorithm.h"
#include "suites/program_fuzz/fuzz_oracle.h"
#include "suites/program_fuzz/gen_state.h"
#include "suites/program_fuzz/program_check_parts.h"

namespace tandem::program_check {
namespace {

// Example b of a batch: example 0 is the user's own argument; the others move each floating
// element by up to 10% of the argument's largest magnitude (seeded), and permute the elements
// of an integer or bool argument (token ids, lengths, masks: the values stay ones the user
// gave, so in range, but each example's differ), so a vmap that mixed examples up is seen.
Tensor example(const Tensor& arg, int64_t b, uint64_t seed) {
  if (b == 0) return arg;
  std::vector<double> v = arg.to_f64();
  fuzz::Rng rng(seed + uint64_t(b));
  if (!is_floating(arg.dtype())) {
    const std::vector<double> own = v;
    rng.shuffle(v);
    if (v == own && !v.empty()) std::rotate(v.begin(), v.begin() + 1, v.end());  // a shuffle that moved nothing
    return Tensor::from_f64(v, arg.shape(), arg.dtype());
  }
  double scale = 0;
  for (double x : v) scale = std::isfinite(x) ? std::max(scale, std::fabs(x)) : scale;
  for (double& x : v) x += 0.1 * (scale > 0 ? scale : 1) * rng.uniform(-1, 1);
  return Tensor::from_f64(v, arg.shape(), arg.dtype());
}

// The examples stacked along `axis` (of the result's rank): slice b along it is examples[b].
Tensor stack_along(const std::vector<Tensor>& examples, int64_t axis) {
  const Shape& s = examples[0].shape();
  const int64_t rank = int64_t(s.size()) + 1, a = axis < 0 ? axis + rank : axis;
  const int64_t outer = num_elements(Shape(s.begin(), s.begin() + a)), inner = num_elements(Shape(s.begin() + a, s.end()));
  const int64_t n = int64_t(examples.size());
  std::vector<double> out(size_t(outer * n * inner));
  for (int64_t b = 0; b < n; ++b) {
    const std::vector<double> v = examples[size_t(b)].to_f64();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) out[size_t((o * n + b) * inner + i)] = v[size_t(o * inner + i)];
  }
  Shape shape = s;
  shape.insert(shape.begin() + a, n);
  return Tensor::from_f64(out, shape, examples[0].dtype());
}

}  // namespace

CaseInstance vmap_instance(const Setup& s, Device d) {
  const ImportedProgram& p = *s.p;
  if (p.vmap_in_axes.size() != p.program.in_vars.size())
    throw_bad_input(cat("vmap: ", p.vmap_in_axes.size(), " in_axes for a program of ", p.program.in_vars.size(), " inputs"),
                    "give one axis per input, `none` for an input that is not mapped");
  fuzz::FuzzCase c = case_of(s, fuzz::ChainKind::vmap);
  c.chain.in_axes = p.vmap_in_axes;
  c.chain.out_axes.assign(p.program.out_vars.size(), VmapAxis(0));
  c.chain.axis_size = p.vmap_size;
  std::vector<std::vector<Tensor>> per_example(size_t(p.vmap_size));
  c.args.clear();
  nlohmann::json varied = nlohmann::json::object();  // per mapped input: do its examples differ?
  for (size_t i = 0; i < s.args.size(); ++i) {
    std::vector<Tensor> ex;
    for (int64_t b = 0; b < p.vmap_size; ++b) ex.push_back(p.vmap_in_axes[i] ? example(s.args[i], b, s.seed + i * 1000) : s.args[i]);
    if (p.vmap_in_axes[i] && p.vmap_size > 1) varied[cat("input_", i)] = ex[1].to_f64() != ex[0].to_f64();
    for (int64_t b = 0; b < p.vmap_size; ++b) per_example[size_t(b)].push_back(ex[size_t(b)].to(d));
    c.args.push_back(p.vmap_in_axes[i] ? stack_along(ex, *p.vmap_in_axes[i]) : s.args[i]);
  }
  auto batched = std::make_shared<Program>(vmap(p.program, c.chain.in_axes, c.chain.out_axes, c.chain.axis_size,
                                                fuzz::kCollectiveAxis));
  auto args = std::make_shared<std::vector<Tensor>>(on_device(c.args, d));
  auto loop_args = std::make_shared<std::vector<std::vector<Tensor>>>(std::move(per_example));
  CaseInstance inst;
  inst.body = [batched, args, d] { execute(*batched, *args, d); };
  inst.check = [c, s, batched, args, loop_args, d, varied] {
    tandem::CaseResult r = result_of(fuzz::check_case(c, d), "vmap vs the reference's loop over the examples");
    r.info["examples_differ"] = varied;
    if (!s.p->time_effects) return r;
    // What the transformation buys over running the examples one by one on the same engine.
    const Interleaved t = time_interleaved(
        [&] { for (const auto& a : *loop_args) execute(s.p->program, a, d); },
        [&] { execute(*batched, *args, d); }, 5, d);
    r.metrics = {{"vmap_speedup_over_loop", t.a_over_b, "x", "higher"},
                 {"loop_min_s", t.a_min_s, "s", "lower"}, {"vmap_min_s", t.b_min_s, "s", "lower"}};
    return r;
  };
  return inst;
}

CaseInstance hoist_instance(const Setup& s, Device d) {
  const HoistResult chosen = hoist_scan_reductions(s.p->program);  // the cost model's choice
  HoistOptions all;
  all.min_step_elements = 0;  // every legal rewrite: what is checked and timed
  auto legal = std::make_shared<HoistResult>(hoist_scan_reductions(s.p->program, all));
  auto args = std::make_shared<std::vector<Tensor>>(on_device(s.args, d));
  CaseInstance inst;
  inst.info = {{"cost_model_rewrites", chosen.rewrites}, {"cost_model_log", chosen.log},
               {"legal_rewrites", legal->rewrites}, {"legal_log", legal->log}};
  inst.body = [legal, args, d] { execute(legal->program, *args, d); };
  inst.check = [s, legal, args, d, chosen] {
    tandem::CaseResult r = result_of(fuzz::check_case(case_of(s, fuzz::ChainKind::hoist), d, nullptr, s.p->reference_cache.get()),
                                     "the hoisted program vs the original's f64 reference");  // its info: inst.info
    r.metrics = {{"rewrites", double(legal->rewrites), "count", ""}, {"cost_model_rewrites", double(chosen.rewrites), "count", ""}};
    if (legal->rewrites == 0 && r.verdict == Verdict::pass)  // nothing moves: no effect to time
      r.message = "nothing to hoist: " + (legal->log.empty() ? std::string("no scan output is reduced after the scan") : legal->log[0]);
    if (legal->rewrites == 0 || !s.p->time_effects) return r;
    const Interleaved t = time_interleaved([&] { execute(s.p->program, *args, d); },
                                           [&] { execute(legal->program, *args, d); }, 5, d);
    r.metrics.insert(r.metrics.begin(), {"hoist_speedup", t.a_over_b, "x", "higher"});
    return r;
  };
  return inst;
}

namespace {

// Whether every dot of p runs under `precision` on this backend; the reason when not.
std::string unsupported_precision(const Program& p, const std::string& precision, DeviceKind backend) {
  for (const Eqn& e : p.eqns) {
    if (e.prim->name == "dot_general") {
      const DType in = promote_dot_inputs(e.in[0].type().dtype, e.in[1].type().dtype);
      try {
        resolve_dot_algorithm(precision, in, e.out[0]->type.dtype, backend);
      } catch (const Error& err) {
        return err.message();
      }
    }
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value))
        if (std::string why = unsupported_precision(**sub, precision, backend); !why.empty()) return why;
  }
  return "";
}

// Normwise distance of each floating result from the f64 truth: max |got − want| / max |want|.
double worst_normwise(const std::vector<Tensor>& got, const std::vector<ref::Array>& want) {
  double worst = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (!is_floating(got[i].dtype())) continue;
    const std::vector<double> g = got[i].to_f64();
    double err = 0, scale = 0;
    for (size_t j = 0; j < g.size(); ++j) {
      const double w = want[i].data[j];
      if (!std::isfinite(w) || !std::isfinite(g[j])) continue;
      err = std::max(err, std::fabs(g[j] - w));
      scale = std::max(scale, std::fabs(w));
    }
    worst = std::max(worst, scale > 0 ? err / scale : err);
  }
  return worst;
}

}  // namespace

// The first runs each selected case of p asks its reference for, in an order that keeps both
// cores busy: the vjp's perturbed run (the longest) early, its wide and own runs after the
// forward's, whose outputs they take (fuzz_reference_cache.h).
void plan_references(const std::shared_ptr<const ImportedProgram>& p, const std::vector<const Case*>& selected) {
  using fuzz::RefVariant;
  const Setup s = make_setup(p);
  const fuzz::FuzzCase plain = case_of(s, fuzz::ChainKind::plain), vjp = case_of(s, fuzz::ChainKind::vjp);
  fuzz::ReferenceCache& cache = *p->reference_cache;
  bool any_vjp = false;
  for (const Case* c : selected) {
    const std::string check = c->params.value("check", ""), precision = c->params.value("precision", "");
    fuzz::FuzzCase f = check == "vjp" ? vjp : plain;
    if (check == "dot") {
      f.program = with_dot_precision(p->program, precision);
      if (!unsupported_precision(f.program, precision, DeviceKind::cpu).empty()) continue;
      cache.plan(plain, {{RefVariant::wide, 0}});  // the truth its metric reads
    }
    if (check == "forward" || check == "hoist" || check == "dot") cache.plan(f, {{RefVariant::wide, 0}, {RefVariant::own, 0}});
    if (check == "forward" || check == "hoist" || check == "dot" || check == "vjp") cache.plan(f, {{RefVariant::perturbed, s.seed + 1}});
    any_vjp |= check == "vjp";
  }
  if (any_vjp) cache.plan(vjp, {{RefVariant::wide, 0}, {RefVariant::own, 0}});
}

CaseInstance dot_instance(const Setup& s, const std::string& precision, Device d) {
  auto program = std::make_shared<Program>(with_dot_precision(s.p->program, precision));
  if (std::string why = unsupported_precision(*program, precision, d.kind); !why.empty())
    throw Error(ErrorKind::unsupported, cat("precision ", precision, " does not apply to this program's dots here: ", why));
  auto args = std::make_shared<std::vector<Tensor>>(on_device(s.args, d));
  CaseInstance inst;
  inst.body = [program, args, d] { execute(*program, *args, d); };
  inst.check = [s, program, precision, d] {
    fuzz::FuzzCase c = case_of(s, fuzz::ChainKind::plain);
    c.program = *program;
    fuzz::CheckedResults k;
    tandem::CaseResult r = result_of(fuzz::check_case(c, d, &k, s.p->reference_cache.get()), cat("engine vs the reference at ", precision));
    if (r.verdict != Verdict::pass) return r;
    // How far the preset moves the outputs from what the program means: the f64 truth of
    // the program as written (its own precision), not of the program under the preset.
    const std::vector<ref::Array> truth = s.p->reference_cache->results(case_of(s, fuzz::ChainKind::plain), fuzz::RefVariant::wide);
    r.metrics = {{"normwise_error_vs_f64", worst_normwise(k.engine, truth), "", "lower"}};
    return r;
  };
  return inst;
}

}  // namespace tandem::program_check
