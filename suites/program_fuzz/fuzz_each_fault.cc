// run_fuzz_each_fault: every fault over the same cases, each case's references computed once.
#include "suites/program_fuzz/fuzz_each_fault.h"

#include <cstring>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/ir/printer.h"
#include "suites/program_fuzz/fuzz_rng.h"

namespace tandem::fuzz {
namespace {

bool same_tensors(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dtype() != b[i].dtype() || a[i].shape() != b[i].shape() ||
        (a[i].nbytes() && std::memcmp(a[i].raw(), b[i].raw(), a[i].nbytes()) != 0))
      return false;
  return true;
}

// The fault-free case and its references, shared by every fault whose generator makes the same
// case (all of today's: no fault sits in what the generator binds with; one that did would get
// its own case and references below, so the verdict stays that of a run under it alone).
struct SharedCase {
  std::optional<FuzzCase> c;
  std::string program_text, generator_error;
  CheckedResults refs;
  bool nonfinite_forward = false;
  std::optional<CaseResult> refused;

  bool same_as(const FuzzCase& k) const {
    return c && k.chain.kind == c->chain.kind && k.wrt == c->wrt && to_string(k.program) == program_text &&
           same_tensors(k.args, c->args) && same_tensors(k.cotangents, c->cotangents);
  }
};

// Under the injected fault: "" when case `seed` passes, else what failed (as fuzz_one records it).
std::string failure_under_fault(uint64_t seed, const FuzzOptions& options, SharedCase& shared) {
  FuzzCase c;
  try {
    c = generate_case(seed, options);
  } catch (const std::exception& e) {
    return cat("generator_refused: the engine refused a generated program: ", e.what());
  }
  CaseResult r;
  if (!shared.same_as(c)) r = check_case(c);
  else if (shared.refused) r = *shared.refused;
  else r = check_engine(c, Device::cpu(), shared.nonfinite_forward, shared.refs);
  if (!failed(r)) return "";
  return cat(outcome_name(r.outcome), ": ", r.message.substr(0, r.message.find('\n')).substr(0, 200),
             " (chain ", chain_name(c.chain.kind), ")");
}

SharedCase fault_free_case(uint64_t seed, const FuzzOptions& options) {
  inject_fault("");
  SharedCase s;
  try {
    s.c = generate_case(seed, options);
    s.program_text = to_string(s.c->program);
  } catch (const std::exception& e) {
    s.c.reset();
    s.generator_error = e.what();
    return s;
  }
  s.refused = compute_references(*s.c, s.refs, s.nonfinite_forward);
  return s;
}

}  // namespace

int run_fuzz_each_fault(const FuzzRunOptions& o, const std::vector<std::string>& faults, std::ostream& log) {
  for (const std::string& f : faults) {  // every name checked before the first case
    if (f.empty()) throw_bad_input("--inject-each with an empty fault name", "`tandem faults --list` shows the faults");
    inject_fault(f);
  }
  std::vector<std::string> caught(faults.size());  // what failed; "" while the fault is not caught
  size_t open = faults.size();
  int64_t cases = 0;
  for (; cases < o.programs && open > 0; ++cases) {
    const uint64_t seed = program_seed(o.seed, uint64_t(cases));
    SharedCase shared = fault_free_case(seed, o.fuzz);
    for (size_t f = 0; f < faults.size(); ++f) {
      if (!caught[f].empty()) continue;
      inject_fault(faults[f]);
      const std::string what = failure_under_fault(seed, o.fuzz, shared);
      if (what.empty()) continue;
      caught[f] = what;
      --open;
      log << "caught " << faults[f] << " at case " << cases << " (seed " << seed << "): " << what << "\n" << std::flush;
    }
  }
  inject_fault("");
  for (size_t f = 0; f < faults.size(); ++f)
    if (caught[f].empty()) log << "missed " << faults[f] << " in " << cases << " cases\n";
  log << "fuzz: caught " << faults.size() - open << " of " << faults.size() << " faults (seed " << o.seed << ", "
      << cases << " cases)\n";
  return open < faults.size() ? 1 : 0;
}

}  // namespace tandem::fuzz
