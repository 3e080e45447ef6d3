// The values the fuzzer's error model knows to be exact (fuzz_exact.h).
#include "suites/program_fuzz/fuzz_exact.h"

#include <cmath>
#include <string>

#include "engine/ir/primitive.h"
#include "suites/program_fuzz/fuzz_limits.h"

namespace tandem::fuzz {
namespace {

bool is_power_of_two(double v) {
  int e = 0;
  return std::isfinite(v) && std::fabs(std::frexp(v, &e)) == 0.5;
}

bool in_set(const Atom& a, const std::unordered_set<int64_t>& s) { return !a.is_literal() && s.count(a.var->id); }
bool pow2_literal(const Atom& a) { return a.is_literal() && is_power_of_two(a.literal->value); }

}  // namespace

std::unordered_set<int64_t> exact_values(const Program& p) {
  std::unordered_set<int64_t> exact;
  for (const Var& v : p.in_vars) exact.insert(v->id);
  for (const Eqn& e : p.eqns) {
    // floor: an integer, which every run computes exactly from the same operand.
    const bool floored = e.prim->name == "floor" && in_set(e.in.at(0), exact);
    const bool scaled = e.prim->name == "mul" && e.in.size() == 2 &&
                        ((in_set(e.in[0], exact) && pow2_literal(e.in[1])) || (in_set(e.in[1], exact) && pow2_literal(e.in[0])));
    if (floored || scaled) exact.insert(e.out[0]->id);
  }
  return exact;
}

bool f8_dot_of_exact_values(const Eqn& e, const std::unordered_set<int64_t>& exact) {
  if (e.prim->name != "dot_general" || e.in.size() != 2) return false;
  const bool f8 = e.params.get_string("precision", "DEFAULT").find("F8") != std::string::npos;
  return f8 && in_set(e.in[0], exact) && in_set(e.in[1], exact);
}

bool power_of_two_product(const Eqn& e, const std::vector<ref::Array>& args, size_t i, double out, DType t) {
  if (e.prim->name != "mul" || args.size() != 2) return false;
  if (out != 0 && !(std::fabs(out) >= smallest_normal(t))) return false;  // a subnormal result may round
  auto at = [i](const ref::Array& a) { return a.data.size() == 1 ? a.data[0] : a.data[i]; };
  return is_power_of_two(at(args[0])) || is_power_of_two(at(args[1]));
}

}  // namespace tandem::fuzz
