// The case list of an imported program (program_check.h) and its forward case.
#include <algorithm>

#include "engine/core/dot_algorithm_types.h"
#include "engine/core/error.h"
#include "engine/ir/remat_policy.h"
#include "suites/program_fuzz/program_check_parts.h"

namespace tandem {
namespace program_check {

CaseInstance forward_instance(const Setup& s, Device d) {
  auto args = std::make_shared<std::vector<Tensor>>(on_device(s.args, d));
  CaseInstance inst;
  inst.body = [p = s.p, args, d] { execute(p->program, *args, d); };
  inst.check = [s, d] {
    fuzz::CheckedResults k;
    const fuzz::FuzzCase c = case_of(s, fuzz::ChainKind::plain);
    const fuzz::CaseResult f = fuzz::check_case(c, d, &k, s.p->reference_cache.get());
    tandem::CaseResult r = result_of(f, "engine vs the f64 reference");
    const std::vector<Tensor>& jax = s.p->jax_outputs;
    if (jax.empty() || k.wide.empty()) {
      r.correctness["jax_vs_reference"] = jax.empty() ? "no JAX outputs were exported with the program" : "no reference";
      return r;
    }
    // The import checked: JAX's own outputs of the function must sit within the tolerance
    // the engine is held to around the imported program's f64 truth. A misread param or a
    // wrongly inlined call moves them far outside it.
    fuzz::Verdict v = fuzz::compare_results(jax, k.wide, k.runs, k.kinds);
    if (!v.agree && !k.runs_complete) {  // judged, as the engine is, by every run's tolerance before it fails
      fuzz::complete_runs(c, k, s.p->reference_cache.get());
      v = fuzz::compare_results(jax, k.wide, k.runs, k.kinds);
    }
    r.correctness["jax_vs_reference"] = verdict_json(v);
    if (!v.agree) {
      r.verdict = Verdict::fail;
      r.message += cat(r.message.empty() ? "" : "\n", "JAX's own outputs (exported with the program) are off the "
                       "imported program's f64 reference, so the program does not compute what the JAX function "
                       "does: ", v.detail);
    }
    return r;
  };
  // For tools/oracles/program_vs_jax.py (`tandem dump-programs --program`): the program as imported.
  inst.oracle = [s] {
    return std::vector<OracleProgram>{oracle_eval("program", s.p->program, s.args, "Executor on the imported program")};
  };
  return inst;
}

}  // namespace program_check

std::vector<std::string> default_policies(const Program& p) {
  std::vector<std::string> r = {"everything_saveable", "nothing_saveable", "dots_saveable",
                                "dots_with_no_batch_dims_saveable"};
  std::vector<std::string> names = names_in(p);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (!names.empty()) {
    std::string joined;
    for (const std::string& n : names) joined += (joined.empty() ? "" : ",") + n;
    r.push_back(cat("save_only_these_names(", joined, ")"));
    r.push_back(cat("save_any_names_but_these(", joined, ")"));
  }
  return r;
}

namespace {

using program_check::Setup;

bool all_outputs_floating(const Program& p) {
  for (const AType& t : p.out_types())
    if (!is_floating(t.dtype)) return false;
  return true;
}

// Every precision a dot_general takes: JAX's three Precision values and the DotAlgorithm presets.
std::vector<std::string> dot_precisions() {
  std::vector<std::string> r = {"DEFAULT", "HIGH", "HIGHEST"};
  for (const AlgorithmInfo& a : all_algorithms())
    if (a.algorithm != DotAlgorithm::DEFAULT) r.push_back(a.name);
  return r;
}

Case make_case(const std::shared_ptr<const ImportedProgram>& p, const std::string& kind, const std::string& detail,
               nlohmann::json params, std::function<CaseInstance(const Setup&, Device)> build) {
  Case c;
  c.suite = "program";
  c.name = cat("program/", p->name, "/", kind, detail.empty() ? "" : "/" + detail);
  params["program"] = p->name;
  params["source"] = p->source;
  params["check"] = kind;
  c.params = std::move(params);
  c.profiles = profiles_from("quick");
  c.instantiate = [p, build](Device d) { return build(program_check::make_setup(p), d); };
  return c;
}

}  // namespace

std::vector<Case> program_check_cases(std::shared_ptr<const ImportedProgram> p) {
  namespace pc = program_check;
  std::vector<Case> cases;
  cases.push_back(make_case(p, "forward", "", {}, pc::forward_instance));
  const bool floating_out = all_outputs_floating(p->program);
  for (const std::string& policy : p->policies.empty() ? default_policies(p->program) : p->policies) {
    policy_from_string(policy);  // an unknown policy is bad input before any case runs
    cases.push_back(make_case(p, "vjp", "policy:" + policy, {{"policy", policy}},
                              [policy, floating_out](const Setup& s, Device d) {
                                if (!floating_out)
                                  throw Error(ErrorKind::unsupported, "reverse mode needs floating outputs, as jax.vjp does; "
                                                                      "this program has an integer or bool output");
                                return pc::vjp_instance(s, policy, d);
                              }));
  }
  if (!p->vmap_in_axes.empty())
    cases.push_back(make_case(p, "vmap", cat("size:", p->vmap_size), {{"size", p->vmap_size}}, pc::vmap_instance));
  if (pc::has_primitive(p->program, "scan")) cases.push_back(make_case(p, "hoist", "", {}, pc::hoist_instance));
  if (pc::has_primitive(p->program, "dot_general"))
    for (const std::string& precision : dot_precisions())
      cases.push_back(make_case(p, "dot", "alg:" + precision, {{"precision", precision}},
                                [precision](const Setup& s, Device d) { return pc::dot_instance(s, precision, d); }));
  return cases;
}

}  // namespace tandem
