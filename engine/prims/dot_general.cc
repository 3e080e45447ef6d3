// dot_general: shape rule (JAX dimension numbers, checked with clear errors) and the CPU
// impl, which resolves precision → DotAlgorithm and runs it (engine/cpu/dot_cpu.cc).
#include <set>

#include "engine/core/error.h"
#include "engine/cpu/dot_cpu.h"
#include "engine/prims/primitive_of.h"
#include "engine/prims/dot_general.h"

namespace tandem {

namespace {
// The lhs_f8_format / rhs_f8_format params: known names, and only beside an ANY_F8 preset,
// where they stand for the operands' f8 dtypes (absent: e4m3fn).
F8Operands f8_operands(const Params& p, const std::string& precision) {
  F8Operands f8;
  const std::optional<DotAlgorithm> alg = parse_algorithm(precision);
  const bool f8_preset = alg && algorithm_info(*alg).f8_inputs;
  for (auto [key, slot] : {std::pair{"lhs_f8_format", &f8.lhs}, std::pair{"rhs_f8_format", &f8.rhs}}) {
    if (!p.has(key)) continue;
    const std::string name = p.get_string(key, "");
    if (!f8_preset)
      throw_bad_input(cat("dot_general: ", key, " '", name, "' given with precision ", precision),
                      "f8 formats apply only to the ANY_F8_ANY_F8_* presets");
    const std::optional<F8Format> f = parse_f8_format(name);
    if (!f) throw_bad_input(cat("dot_general: ", key, " '", name, "' is not an f8 format"), f8_format_names());
    *slot = *f;
  }
  return f8;
}
}  // namespace

DotSignature dot_signature(const std::vector<AType>& in, const Params& p) {
  if (in.size() != 2) throw_bad_input(cat("dot_general takes 2 operands, got ", in.size()));
  const AType &l = in[0], &r = in[1];
  DotSignature s;
  auto axes = [&](const char* key, const AType& t) {
    std::vector<int64_t> a = p.get_ints(key);
    std::set<int64_t> seen;
    for (int64_t& d : a) {
      d = normalize_axis(d, t.rank(), key);
      if (!seen.insert(d).second) throw_bad_input(cat("dot_general: ", key, " repeats axis ", d));
    }
    return a;
  };
  s.lhs_contract = axes("lhs_contracting_dimensions", l);
  s.rhs_contract = axes("rhs_contracting_dimensions", r);
  s.lhs_batch = axes("lhs_batch_dimensions", l);
  s.rhs_batch = axes("rhs_batch_dimensions", r);
  if (s.lhs_contract.size() != s.rhs_contract.size() || s.lhs_batch.size() != s.rhs_batch.size())
    throw_bad_input(cat("dot_general: lhs and rhs list different numbers of contracting (",
                        s.lhs_contract.size(), " vs ", s.rhs_contract.size(), ") or batch (",
                        s.lhs_batch.size(), " vs ", s.rhs_batch.size(), ") dimensions"),
                    "dimension numbers pair lhs and rhs axes one to one");
  for (int64_t d : s.lhs_contract)
    for (int64_t b : s.lhs_batch)
      if (d == b) throw_bad_input(cat("dot_general: lhs axis ", d, " is both batch and contracting"));
  for (int64_t d : s.rhs_contract)
    for (int64_t b : s.rhs_batch)
      if (d == b) throw_bad_input(cat("dot_general: rhs axis ", d, " is both batch and contracting"));
  for (size_t i = 0; i < s.lhs_contract.size(); ++i)
    if (l.shape[s.lhs_contract[i]] != r.shape[s.rhs_contract[i]])
      throw_bad_input(cat("dot_general: contracting sizes differ: lhs ", l.str(), " axis ",
                          s.lhs_contract[i], " vs rhs ", r.str(), " axis ", s.rhs_contract[i]),
                      "contracted axes must have equal sizes");
  for (size_t i = 0; i < s.lhs_batch.size(); ++i)
    if (l.shape[s.lhs_batch[i]] != r.shape[s.rhs_batch[i]])
      throw_bad_input(cat("dot_general: batch sizes differ: lhs ", l.str(), " axis ",
                          s.lhs_batch[i], " vs rhs ", r.str(), " axis ", s.rhs_batch[i]));
  s.precision = p.get_string("precision", "DEFAULT");
  if (!parse_algorithm(s.precision) && !parse_precision(s.precision))
    resolve_dot_algorithm(s.precision, DType::f32, DeviceKind::cpu);  // throws the clear error
  s.f8 = f8_operands(p, s.precision);
  s.input_dtype = promote_dot_inputs(l.dtype, r.dtype);
  s.out_dtype = p.get_optional_dtype("preferred_element_type").value_or(s.input_dtype);
  return s;
}

namespace {
std::vector<AType> dot_shape(const std::vector<AType>& in, const Params& p) {
  DotSignature s = dot_signature(in, p);
  cpu::DotPlan plan = cpu::plan_dot(in[0].shape, in[1].shape, s.lhs_contract, s.rhs_contract, s.lhs_batch, s.rhs_batch);
  return {AType{plan.out_shape, s.out_dtype}};
}

std::vector<Tensor> dot_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  DotSignature s = dot_signature({in[0].type(), in[1].type()}, p);
  DotAlgorithm alg = resolve_dot_algorithm(s.precision, s.input_dtype, s.out_dtype, DeviceKind::cpu);
  cpu::DotPlan plan = cpu::plan_dot(in[0].shape(), in[1].shape(), s.lhs_contract,
                                    s.rhs_contract, s.lhs_batch, s.rhs_batch);
  return {cpu::dot_general(in[0], in[1], plan, alg, s.out_dtype, s.f8)};
}
}  // namespace

void register_dot_general_primitive() {
  register_primitive(primitive_of("dot_general", kContraction,
                                  {"lhs_contracting_dimensions", "rhs_contracting_dimensions", "lhs_batch_dimensions",
                                   "rhs_batch_dimensions", "precision", "preferred_element_type", "lhs_f8_format",
                                   "rhs_f8_format"},
                                  dot_shape, dot_cpu));
}

}  // namespace tandem
