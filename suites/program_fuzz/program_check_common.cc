// The shared pieces of `tandem check --program` (program_check_parts.h).
#include <algorithm>
#include <chrono>

#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "harness/error_outcome.h"
#include "harness/program_case.h"
#include "harness/timing.h"
#include "suites/program_fuzz/fuzz_engine.h"
#include "suites/program_fuzz/gen_state.h"
#include "suites/program_fuzz/program_check_parts.h"

namespace tandem::program_check {

namespace {
// The seeded inputs of a program imported without example inputs: uniform in [-1, 1) for
// floats, small non-negative integers (0..3) for i32 and bool as 0 / 1.
Tensor seeded_argument(const AType& t, const std::string& key) {
  if (t.dtype == DType::pred) return seeded_uniform(t.shape, t.dtype, key, 0, 2);
  if (!is_floating(t.dtype)) return seeded_uniform(t.shape, t.dtype, key, 0, 4);
  return seeded_uniform(t.shape, t.dtype, key);
}
}  // namespace

Setup make_setup(std::shared_ptr<const ImportedProgram> p) {
  Setup s;
  s.p = p;
  s.seed = std::hash<std::string>{}(p->name);
  const std::vector<AType> in = p->program.in_types();
  if (p->inputs.empty()) {
    for (size_t i = 0; i < in.size(); ++i) s.args.push_back(seeded_argument(in[i], cat(p->name, "/arg", i)));
  } else {
    s.args = p->inputs;
  }
  const std::vector<AType> out = p->program.out_types();
  for (size_t i = 0; i < out.size(); ++i)
    s.cotangents.push_back(out[i].shape.empty() ? Tensor::scalar(1, out[i].dtype)
                                                : seeded_argument(out[i], cat(p->name, "/ct", i)));
  return s;
}

fuzz::FuzzCase case_of(const Setup& s, fuzz::ChainKind kind) {
  fuzz::FuzzCase c;
  c.seed = s.seed;
  c.program = s.p->program;
  c.chain.kind = kind;
  c.args = s.args;
  c.wrt = s.p->wrt;
  if (fuzz::differentiates(kind)) c.cotangents = s.cotangents;
  return c;
}

std::vector<Tensor> on_device(const std::vector<Tensor>& host, Device device) {
  std::vector<Tensor> r;
  for (const Tensor& t : host) r.push_back(t.to(device));
  return r;
}

std::vector<Tensor> execute(const Program& p, const std::vector<Tensor>& args, Device device) {
  std::vector<Tensor> out = fuzz::fuzz_executor(device).run(p, args);
  if (device.kind == DeviceKind::cuda) cuda_synchronize(device.index);
  return out;
}

nlohmann::json verdict_json(const fuzz::Verdict& v) {
  return {{"error_over_tolerance", v.worst}, {"elements_checked", v.checked}, {"elements_unstable", v.unstable},
          {"tolerance", "8 x the reference's spread under the error model + 4 u |f64| (suites/program_fuzz/fuzz_compare.h); "
                        "a pass within the own and first perturbed runs' spread is a pass within all six's "
                        "(suites/program_fuzz/fuzz_driver.h), its error over tolerance an upper bound"}};
}

tandem::CaseResult result_of(const fuzz::CaseResult& f, const std::string& what) {
  tandem::CaseResult r;
  switch (f.outcome) {
    case fuzz::Outcome::agree: break;
    case fuzz::Outcome::disagree:
      r.verdict = Verdict::fail;
      r.message = cat(what, ": ", f.message);
      break;
    case fuzz::Outcome::engine_refused:
    case fuzz::Outcome::reference_refused:
    case fuzz::Outcome::engine_error:
      // The program was validated on import: the engine refusing it, or failing its own
      // invariant on it, is a wrong result (exit 1); the machine failing (error_outcome.h) or
      // the reference lacking a feature is not.
      r.verdict = f.outcome == fuzz::Outcome::engine_refused ? Verdict::fail
                  : f.outcome == fuzz::Outcome::engine_error ? error_outcome(f.error_kind).case_verdict
                                                             : Verdict::error;
      r.message = cat(what, ": ", f.outcome == fuzz::Outcome::reference_refused ? "the reference" : "the engine",
                      f.outcome == fuzz::Outcome::engine_error ? " failed: " : " refuses it: ", f.message);
      break;
    case fuzz::Outcome::unsupported:  // a combination the engine is known not to have: said, not failed
      r.verdict = Verdict::skip;
      r.message = cat(what, ": ", f.message);
      break;
  }
  if (f.outcome == fuzz::Outcome::agree || f.outcome == fuzz::Outcome::disagree)
    r.correctness["engine_vs_reference"] = verdict_json(f.verdict);
  return r;
}

Interleaved time_interleaved(const std::function<void()>& a, const std::function<void()>& b, int rounds, Device device) {
  a();
  b();
  std::vector<double> ta, tb;
  for (int i = 0; i < rounds; ++i) {
    ta.push_back(time_once(a, device));
    tb.push_back(time_once(b, device));
  }
  Interleaved r;
  r.a_min_s = *std::min_element(ta.begin(), ta.end());
  r.b_min_s = *std::min_element(tb.begin(), tb.end());
  r.a_over_b = r.b_min_s > 0 ? r.a_min_s / r.b_min_s : 0;
  return r;
}

bool has_primitive(const Program& p, const std::string& name) {
  for (const Eqn& e : p.eqns) {
    if (e.prim->name == name) return true;
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value); sub && has_primitive(**sub, name)) return true;
  }
  return false;
}

Program with_dot_precision(const Program& p, const std::string& precision) {
  Program r = p;
  for (Eqn& e : r.eqns) {
    if (e.prim->name == "dot_general") e.params.set("precision", precision);
    std::vector<std::pair<std::string, ProgramPtr>> bodies;  // rewritten after the walk over params
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value))
        bodies.emplace_back(key, std::make_shared<const Program>(with_dot_precision(**sub, precision)));
    for (auto& [key, body] : bodies) e.params.set(key, body);
  }
  return r;
}

}  // namespace tandem::program_check
