// The vjp/policy:P case of an imported program (program_check.h): reverse mode under a
// top-level policy checked against the reference's tape, and what the policy costs — the
// saved residuals, their bytes, the predicted and the measured peak, the recompute counts
// (checked against the applications the backward really executes) — and, when the exporter
// wrote JAX's saved_residuals for the policy, the saved set compared with JAX's.
#include <cstdlib>
#include <map>
#include <set>
#include <variant>

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

using TypeCounts = std::map<std::string, int>;  // a residual type -> tandem's count less JAX's

TypeCounts count_difference(const std::vector<std::string>& tandem, const std::vector<std::string>& jax) {
  TypeCounts count;
  for (const std::string& t : tandem) ++count[t];
  for (const std::string& t : jax) --count[t];
  std::erase_if(count, [](const auto& kv) { return kv.second == 0; });
  return count;
}

// The difference in words ("" when equal).
std::string in_words(const TypeCounts& count) {
  std::string words;
  for (const auto& [type, n] : count)
    words += cat(words.empty() ? "" : "; ", "tandem saves ", n > 0 ? n : -n, n > 0 ? " more " : " fewer ", type);
  return words;
}

// Where JAX's JVP rule and tandem's VJP rule save different values for the same equation:
// one row per primitive, what each saves and so why the saved sets differ there. Under a
// policy that saves elementwise results, a difference is excused only when each type in it
// is the result type (or the bool mask of that shape) of an equation of a primitive listed
// here, stacked over the scans around it; any other difference fails.
struct RuleDifference {
  const char* prim;
  const char* why;
};
constexpr RuleDifference kRuleDifferences[] = {
    {"tanh", "JAX's JVP rule computes 1 - y² from y = tanh(x) in the forward and saves y and 1 - y; "
             "tandem's VJP rule saves y and computes 1 - y² in the backward"},
    {"max", "JAX's rule (_balanced_eq) saves the 1, 1/2 or 0 weight of each operand, and jax.nn.relu's "
            "custom JVP (inlined here: max(x, 0)) the bool mask x > 0 and a broadcast zero; tandem's rule "
            "saves the operands and the result and forms the weights in the backward"},
    {"min", "as max: JAX saves the balanced weight, tandem the operands and the result"},
    {"logistic", "JAX's JVP rule saves its s·(1 − s) factor and the products around it (an LSTM's gates "
                 "multiply them), computed in the forward; tandem's rule saves s and forms them in the backward"},
    {"broadcast_in_dim", "JAX's elementwise ops take size-1 dims (f32[3,4] * f32[1,4]) and JAX saves the "
                         "f32[1,4] operand; the importer writes that broadcast to the full shape (tandem's "
                         "elementwise ops take equal shapes), so tandem saves the full-shape operand"},
};

// The residual types each rule-difference primitive's equations could account for, with how
// many such results there are (a rule differs by at most two values per application).
using RuleTypes = std::map<std::string, std::pair<std::set<std::string>, int>>;
void rule_types(const Program& p, const std::string& stack, RuleTypes& out) {
  for (const Eqn& e : p.eqns) {
    for (const RuleDifference& row : kRuleDifferences)
      if (e.prim->name == row.prim)
        for (const Var& v : e.out)
          for (DType t : {v->type.dtype, DType::pred}) {
            std::string ty = AType{v->type.shape, t}.str();
            if (!stack.empty()) ty.insert(ty.find('[') + 1, stack + (v->type.shape.empty() ? "" : ","));
            auto& [prims, n] = out[ty];
            prims.insert(row.prim);
            ++n;
          }
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value))
        rule_types(**sub, e.prim->has(kLoop) ? cat(stack, stack.empty() ? "" : ",", e.params.get_int("length")) : stack, out);
  }
}

// The rows that explain every type of the difference ("" when some type is not explained).
std::string explained_by_rules(const Program& p, const TypeCounts& diff) {
  RuleTypes types;
  rule_types(p, "", types);
  std::set<std::string> rows;
  for (const auto& [type, n] : diff) {
    auto it = types.find(type);
    if (it == types.end() || std::abs(n) > 2 * it->second.second) return "";
    rows.insert(it->second.first.begin(), it->second.first.end());
  }
  std::string why;
  for (const RuleDifference& row : kRuleDifferences)
    if (rows.count(row.prim)) why += cat(why.empty() ? "" : "; ", row.prim, ": ", row.why);
  return why;
}

bool saves_elementwise_results(const std::string& policy) {
  Eqn tanh;
  tanh.prim = &primitive("tanh");
  return policy_from_string(policy)(tanh) != Remat::recompute;
}

// JAX's saved set for the policy against tandem's, into the result (a difference fails). The
// top-level everything_saveable is the vjp of the program as written (its checkpoints under
// their own policies), so it is compared with JAX's residuals of f itself ("as_written"),
// not of jax.checkpoint(f, everything_saveable), whose policy would rule inside them too.
void compare_with_jax(const Setup& s, const std::string& policy, const SavedResiduals& saved, tandem::CaseResult& r) {
  const std::string key = policy == "everything_saveable" && s.p->jax_residuals.count("as_written") ? "as_written" : policy;
  auto it = s.p->jax_residuals.find(key);
  if (it == s.p->jax_residuals.end()) {
    r.correctness["saved_residuals_vs_jax"] = "not compared: the export has no JAX saved_residuals for this policy";
    return;
  }
  std::vector<std::string> mine;
  for (const Residual& res : saved.residuals) mine.push_back(residual_type(res));
  const TypeCounts diff = count_difference(mine, it->second);
  r.correctness["saved_residuals_vs_jax"] = {{"same", diff.empty()}, {"tandem", mine}, {"jax", it->second}, {"jax_list", key}};
  if (diff.empty()) return;
  const std::string why = saves_elementwise_results(policy) ? explained_by_rules(s.p->program, diff) : "";
  if (!why.empty()) {  // named rule differences: said in the record and the note, not failed
    r.correctness["saved_residuals_vs_jax"]["known_difference"] = why;
    r.message += cat(r.message.empty() ? "" : "\n", "saved residuals differ from JAX's by rule (", in_words(diff), "): ", why);
    return;
  }
  r.verdict = Verdict::fail;
  r.message += cat(r.message.empty() ? "" : "\n", "saved residuals differ from JAX's (jax.ad_checkpoint.saved_residuals of ",
                   key == "as_written" ? std::string("f as written") : cat("jax.checkpoint(f, policy=", policy, ")"), "): ", in_words(diff));
}

using Counts = std::map<std::string, int64_t>;  // per primitive

Counts less(Counts a, const Counts& b) {
  for (const auto& [prim, n] : b) a[prim] -= n;
  std::erase_if(a, [](const auto& kv) { return kv.second == 0; });
  return a;
}

// One forward + backward with the device's peak measured by the Allocator (the caller's inputs
// and cotangents counted, as predicted_vjp_peak_bytes counts them); on the CPU, where the
// recompute counts are taken, the same run counts the backward's applications into `backward`.
int64_t run_measured(const VjpProgram& v, const std::vector<Tensor>& in, const std::vector<Tensor>& cts, Device d, Counts& backward) {
  Allocator& A = Allocator::instance();
  int64_t held = 0;
  for (const auto* ts : {&in, &cts})
    for (const Tensor& t : *ts) held += int64_t(t.nbytes());
  const int64_t live0 = A.stats(d).live_bytes;
  A.reset_peak(d);
  run_vjp(v, in, cts, d, d.kind == DeviceKind::cpu ? backward_counter(backward) : nullptr);
  if (d.kind == DeviceKind::cuda) cuda_synchronize(d.index);
  return A.stats(d).peak_bytes - live0 + held;
}

// The backward's applications under everything_saveable, run once per program (the same for
// every policy; under everything_saveable itself, the policy's own run is it).
const Counts& saveable_backward(const Setup& s, const std::string& policy, const VjpProgram& base, const Counts& mine) {
  ImportedProgram::Counts& c = *s.p->saveable_backward;
  if (!c) c = policy_from_string(policy).spec == everything_saveable().spec ? mine : executed_backward_applications(base, s.args, s.cotangents);
  return *c;
}

// Every executed count at most the reported one.
bool within(const Counts& executed, const Counts& reported) {
  for (const auto& [prim, n] : executed)
    if (n > (reported.count(prim) ? reported.at(prim) : 0)) return false;
  return true;
}

}  // namespace

CaseInstance vjp_instance(const Setup& s, const std::string& policy, Device d) {
  auto v = std::make_shared<VjpProgram>(vjp(s.p->program, s.p->wrt, policy_from_string(policy)));
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
    tandem::CaseResult r = result_of(fuzz::check_case(c, d, nullptr, s.p->reference_cache.get()), "gradients vs the reference's reverse mode");
    Counts backward;
    const int64_t peak_bytes = run_measured(*v, *in, *cts, d, backward);
    if (d.kind != DeviceKind::cpu) backward = executed_backward_applications(*v, s.args, s.cotangents);
    const SavedResiduals saved = saved_residuals(*v);
    // The recompute counts are what the backward runs: measured as the applications beyond
    // the backward of everything_saveable at the top, whose own recomputation (the program's
    // checkpoints under their own policies) both count, so it is subtracted from the report.
    const VjpProgram base = vjp(s.p->program, s.p->wrt, everything_saveable());
    const Counts executed = less(backward, saveable_backward(s, policy, base, backward));
    const Counts reported = less(v->recompute.by_prim, base.recompute.by_prim);
    // Which branch of a cond runs depends on the data: the report counts its costliest, a bound.
    const bool bound = has_primitive(s.p->program, "cond");
    const bool counts_ok = bound ? within(executed, reported) : executed == reported;
    r.correctness["recompute_counts_match_executed"] = counts_ok;
    if (bound) r.correctness["recompute_counts_bound_a_cond"] = true;
    if (!counts_ok) {
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
                 {"measured_peak_bytes", double(peak_bytes), "B", "lower"}};
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
