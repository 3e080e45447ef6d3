// The vjp/policy:P case of an imported program (program_check.h): reverse mode under a
// top-level policy checked against the reference's tape, and what the policy costs — the
// saved residuals, their bytes, the predicted and the measured peak, the recompute counts
// (checked against the applications the backward really executes) — and, when the exporter
// wrote JAX's saved_residuals for the policy, the saved set compared with JAX's.
#include <map>

#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/primitive.h"
#include "engine/ir/remat_policy.h"
#include "engine/passes/saved_residuals.h"
#include "suites/program_fuzz/program_check_parts.h"

namespace tandem::program_check {
namespace {

// As tools/oracles/saved_residuals_vs_jax.py writes types: "f32[8,16]", "f32<host>[8]" when offloaded.
std::string residual_type(const Residual& r) {
  std::string t = r.type.str();
  if (r.offloaded) t.insert(t.find('['), "<host>");
  return t;
}

// The difference of two multisets of types, in words ("" when equal).
std::string multiset_difference(const std::vector<std::string>& tandem, const std::vector<std::string>& jax) {
  std::map<std::string, int> count;
  for (const std::string& t : tandem) ++count[t];
  for (const std::string& t : jax) --count[t];
  std::string words;
  for (const auto& [type, n] : count)
    if (n != 0) words += cat(words.empty() ? "" : "; ", "tandem saves ", n > 0 ? n : -n, n > 0 ? " more " : " fewer ", type);
  return words;
}

// Where the saved sets may differ by rule rather than by policy: JAX's JVP rules save their
// own derivative values (tanh's 1 - y and y, logistic's s·(1 − s) terms) where tandem's VJP
// rules save the primal value they read, so under a policy that saves elementwise results the
// counts differ (tools/oracles/saved_residuals_vs_jax.py and docs/JAX_ORACLE.md, "Saved residuals",
// list the same). A policy that saves no unnamed elementwise result must match exactly.
constexpr const char* kRuleDifference =
    "JAX's JVP rules save derivative values (tanh: y and 1 - y), tandem's VJP rules the primal value, "
    "and this policy saves elementwise results";

bool saves_elementwise_results(const std::string& policy) {
  Eqn tanh;
  tanh.prim = &primitive("tanh");
  return policy_from_string(policy)(tanh) != Remat::recompute;
}

// JAX's saved set for the policy against tandem's, into the result (a difference fails).
void compare_with_jax(const Setup& s, const std::string& policy, const SavedResiduals& saved, tandem::CaseResult& r) {
  auto it = s.p->jax_residuals.find(policy);
  if (it == s.p->jax_residuals.end()) {
    r.correctness["saved_residuals_vs_jax"] = "not compared: the export has no JAX saved_residuals for this policy";
    return;
  }
  std::vector<std::string> mine;
  for (const Residual& res : saved.residuals) mine.push_back(residual_type(res));
  const std::string diff = multiset_difference(mine, it->second);
  r.correctness["saved_residuals_vs_jax"] = {{"same", diff.empty()}, {"tandem", mine}, {"jax", it->second}};
  if (diff.empty()) return;
  if (saves_elementwise_results(policy)) {  // known, said in the record and the note, not failed
    r.correctness["saved_residuals_vs_jax"]["known_difference"] = kRuleDifference;
    r.message += cat(r.message.empty() ? "" : "\n", "saved residuals differ from JAX's by rule (", diff, "): ", kRuleDifference);
    return;
  }
  r.verdict = Verdict::fail;
  r.message += cat(r.message.empty() ? "" : "\n", "saved residuals differ from JAX's (jax.ad_checkpoint.saved_residuals "
                   "of jax.checkpoint(f, policy=", policy, ")): ", diff);
}

// v's reported recompute counts less base's, per primitive (zero entries dropped).
std::map<std::string, int64_t> recompute_beyond(const VjpProgram& v, const VjpProgram& base) {
  std::map<std::string, int64_t> r(v.recompute.by_prim.begin(), v.recompute.by_prim.end());
  for (const auto& [prim, n] : base.recompute.by_prim) r[prim] -= n;
  std::erase_if(r, [](const auto& kv) { return kv.second == 0; });
  return r;
}

struct Measured {
  VjpRun run;
  int64_t peak_bytes = 0;
};

// One forward + backward with the device's peak measured by the Allocator (the caller's
// inputs and cotangents counted, as predicted_vjp_peak_bytes counts them).
Measured run_measured(const VjpProgram& v, const std::vector<Tensor>& in, const std::vector<Tensor>& cts, Device d) {
  Allocator& A = Allocator::instance();
  int64_t held = 0;
  for (const auto* ts : {&in, &cts})
    for (const Tensor& t : *ts) held += int64_t(t.nbytes());
  const int64_t live0 = A.stats(d).live_bytes;
  A.reset_peak(d);
  Measured m;
  m.run = run_vjp(v, in, cts, d);
  if (d.kind == DeviceKind::cuda) cuda_synchronize(d.index);
  m.peak_bytes = A.stats(d).peak_bytes - live0 + held;
  return m;
}

}  // namespace

CaseInstance vjp_instance(const Setup& s, const std::string& policy, Device d) {
  auto v = std::make_shared<VjpProgram>(vjp(s.p->program, {}, policy_from_string(policy)));
  auto in = std::make_shared<std::vector<Tensor>>(on_device(s.args, d));
  auto cts = std::make_shared<std::vector<Tensor>>(on_device(s.cotangents, d));
  CaseInstance inst;
  inst.body = [v, in, cts, d] {
    run_vjp(*v, *in, *cts, d);
    if (d.kind == DeviceKind::cuda) cuda_synchronize(d.index);
  };
  inst.check = [s, policy, v, in, cts, d] {
    fuzz::FuzzCase c = case_of(s, fuzz::ChainKind::vjp);
    c.chain.top_policy = policy;
    tandem::CaseResult r = result_of(fuzz::check_case(c, d), "gradients vs the reference's reverse mode");
    const Measured m = run_measured(*v, *in, *cts, d);
    const SavedResiduals saved = saved_residuals(*v);
    // The recompute counts are what the backward runs: measured as the applications beyond
    // the backward of everything_saveable at the top, whose own recomputation (the program's
    // checkpoints under their own policies) both count, so it is subtracted from the report.
    const VjpProgram base = vjp(s.p->program, {}, everything_saveable());
    const std::map<std::string, int64_t> executed = executed_recompute(*v, base, s.args, s.cotangents);
    const std::map<std::string, int64_t> reported = recompute_beyond(*v, base);
    r.correctness["recompute_counts_match_executed"] = executed == reported;
    if (executed != reported) {
      r.verdict = Verdict::fail;
      r.message += cat(r.message.empty() ? "" : "\n", "recompute counts differ from what the backward executes:");
      for (const auto& [prim, n] : executed) r.message += cat(" ", prim, " ran ", n, ", reported ", reported.count(prim) ? reported.at(prim) : 0, ";");
    }
    compare_with_jax(s, policy, saved, r);
    r.metrics = {{"residuals", double(saved.count_non_arguments()), "count", "lower"},
                 {"residual_bytes", double(saved.bytes - saved.argument_bytes), "B", "lower"},
                 {"offloaded_bytes", double(saved.offloaded_bytes), "B", "lower"},
                 {"recomputed_eqns", double(saved.recompute.eqns), "count", "lower"},
                 {"recomputed_flops", saved.recompute.flops, "FLOP", "lower"},
                 {"predicted_peak_bytes", double(predicted_vjp_peak_bytes(*v)), "B", "lower"},
                 {"measured_peak_bytes", double(m.peak_bytes), "B", "lower"}};
    r.info["saved_residuals"] = format_saved_residuals(saved);
    return r;
  };
  // For tools/oracles/program_vs_jax.py and tools/oracles/saved_residuals_vs_jax.py: the forward program, which
  // JAX differentiates itself, under jax.checkpoint with the same policy.
  inst.oracle = [s, v, policy] {
    OracleProgram o;
    o.label = "forward";
    o.program = s.p->program;
    o.inputs = s.args;
    o.output_cts = s.cotangents;
    o.wrt = v->wrt;
    const VjpRun run = run_vjp(*v, s.args, s.cotangents, Device::cpu());
    o.engine = run.outputs;
    o.engine.insert(o.engine.end(), run.cotangents.begin(), run.cotangents.end());
    o.note = cat("run_vjp(vjp(program, top-level policy ", policy, "))");
    if (policy == "everything_saveable") o.residuals = v->residuals;  // JAX's unwrapped function saves this way
    return std::vector<OracleProgram>{o};
  };
  return inst;
}

}  // namespace tandem::program_check
