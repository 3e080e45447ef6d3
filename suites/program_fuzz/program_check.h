// `tandem check --program`: a user's own Program (read from Program JSON, e.g. one that
// tools/import/export_jax_program.py wrote from a JAX function) made into the harness's cases, so it
// gets the records, exit codes, report and gate every suite gets. The checks reuse the
// fuzzer's oracle (fuzz_oracle.h: the reference in f64, at the program's dtypes and under the
// error model) and tolerance (fuzz_compare.h), since a user's program is a case like a
// generated one. Cases (suite "program"), named program/<name>/...:
//   forward            engine vs the f64 reference on the example inputs; JAX's own outputs
//                      (when exported) within the same tolerance: the import itself checked
//   vjp/policy:P       reverse mode under top-level policy P vs the reference's tape, with the
//                      saved residuals, their bytes, predicted and measured peak and the
//                      recompute counts (checked against what the backward executes); JAX's
//                      saved_residuals for P (when exported) must be the same multiset of types
//   vmap/size:B        vmap over the inputs' named axes vs the reference's per-example loop,
//                      and its time against the engine's own loop over the examples
//   hoist              hoist_scan_reductions: what the cost model would move (its log), the legal
//                      rewrite checked, and its time against the program's (interleaved)
//   dot/alg:A          every dot_general under precision A: checked at A, and how far A moves
//                      the outputs from the program's own f64 truth
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"
#include "harness/case.h"
#include "suites/program_fuzz/fuzz_reference_cache.h"

namespace tandem {

struct ImportedProgram {
  std::string name;                 // the cases' stem: program/<name>/...
  std::string source;               // where it was read from (for messages and records)
  Program program;
  std::vector<Tensor> inputs;       // the example inputs (empty: seeded uniform ones)
  std::vector<Tensor> jax_outputs;  // JAX's outputs on those inputs (empty: none exported)
  // JAX's saved residuals per tandem policy string, as type strings ("f32[8,16]",
  // "f32<host>[8]"); absent policies are not compared (said in the record).
  std::map<std::string, std::vector<std::string>> jax_residuals;
  // The inputs the vjp cases differentiate, as JAX's residuals were taken (export.json's
  // residuals_wrt: the floating arguments, not the closed-over constants after them); empty:
  // every floating input.
  std::vector<bool> wrt;
  // The axis of each input vmap maps (nullopt: unmapped); empty: no vmap case.
  std::vector<std::optional<int64_t>> vmap_in_axes;
  int64_t vmap_size = 4;
  std::vector<std::string> policies;  // empty: default_policies(program)
  // The reference runs its cases share (the cases run one after another in one worker).
  std::shared_ptr<fuzz::ReferenceCache> reference_cache = std::make_shared<fuzz::ReferenceCache>();
  // everything_saveable's backward applications (every policy's recompute baseline): run once.
  using Counts = std::optional<std::map<std::string, int64_t>>;
  std::shared_ptr<Counts> saveable_backward = std::make_shared<Counts>();
  bool time_effects = true;  // false under `check`: the vmap and hoist cases compare, not time
};

// The policies checked when the user names none: JAX's four without arguments, and when the
// program names values (checkpoint_name), save_only_these_names and save_any_names_but_these
// over all of them (sorted, joined by ","): the strings tools/import/export_jax_program.py uses.
std::vector<std::string> default_policies(const Program& p);

std::vector<Case> program_check_cases(std::shared_ptr<const ImportedProgram> p);
namespace program_check {
// The selected cases' reference runs planned on p's cache: computed on threads while the engine runs (`check` only: a
// benchmark timed beside them would time the load). What each computes is unchanged (fuzz_reference_cache.h).
void plan_references(const std::shared_ptr<const ImportedProgram>& p, const std::vector<const Case*>& selected);
}  // namespace program_check

}  // namespace tandem
