// The table of known engine gaps (fuzz_unsupported.h), one predicate over the case per row.
#include "suites/program_fuzz/fuzz_unsupported.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "suites/program_fuzz/fuzz_oracle.h"

namespace tandem::fuzz {
namespace {

struct GapRow {
  const char* what;
  std::function<bool(const FuzzCase&)> matches;
};

// Whether some equation of p (sub-programs included) satisfies pred.
bool any_eqn(const Program& p, const std::function<bool(const Eqn&)>& pred) {
  for (const Eqn& e : p.eqns) {
    if (pred(e)) return true;
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value); sub && any_eqn(**sub, pred)) return true;
  }
  return false;
}

// A scan or checkpoint with an integer or bool result, differentiated: JAX gives such a result
// a float0 cotangent, the engine's vjp calls it "not differentiable".
bool nonfloat_structured_output(const Eqn& e) {
  if (e.prim->name != "scan" && e.prim->name != "checkpoint" && e.prim->name != "while") return false;
  for (const Var& v : e.out)
    if (!is_floating(v->type.dtype)) return true;
  return false;
}

const std::vector<GapRow>& gap_table() {
  static const std::vector<GapRow> rows = {
      {"a scan/checkpoint with an integer or bool result under reverse mode (JAX: a float0 cotangent)",
       [](const FuzzCase& c) { return differentiates(c.chain.kind) && any_eqn(c.program, nonfloat_structured_output); }},
      {"the vjp of a gather whose operand has a zero-size dimension (its transpose, a scatter_add, refuses the "
       "window the gather took)",
       [](const FuzzCase& c) {
         return differentiates(c.chain.kind) && any_eqn(c.program, [](const Eqn& e) {
                  if (e.prim->name != "gather") return false;
                  const Shape& s = e.in[0].type().shape;
                  return std::find(s.begin(), s.end(), 0) != s.end();
                });
       }},
  };
  return rows;
}

}  // namespace

// Declared in fuzz_oracle.h; here beside the other walks over a program's equations.
bool has_collective(const Program& p) {
  return any_eqn(p, [](const Eqn& e) { return e.prim->has(kCollective); });
}

std::optional<std::string> unsupported_reason(const FuzzCase& c) {
  for (const GapRow& r : gap_table())
    if (r.matches(c)) return std::string("unsupported: ") + r.what;
  return std::nullopt;
}

}  // namespace tandem::fuzz
