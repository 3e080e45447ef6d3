// The error model of one equation (fuzz_rounding.h).
#include "suites/program_fuzz/fuzz_rounding.h"

#include <cstdio>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "reference/rounding.h"

namespace tandem::fuzz {
namespace {

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

int64_t contraction_terms(const Eqn& e) {
  int64_t k = 1;
  for (int64_t a : e.params.get_ints("lhs_contracting_dimensions")) {
    const Shape& s = e.in[0].type().shape;
    k *= s.at(size_t(a < 0 ? a + int64_t(s.size()) : a));
  }
  return k;
}

}  // namespace

Rounding rounding_of(const Eqn& e) {
  Rounding r;
  if (e.out.empty() || !is_floating(e.out[0]->type.dtype)) return r;
  const DType operand = e.in.empty() ? e.out[0]->type.dtype : e.in[0].type().dtype;
  if (e.prim->name == "dot_general") {
    const std::string p = e.params.get_string("precision", "DEFAULT");
    if (p == "BF16_BF16_F32" || p == "BF16_BF16_BF16") r.input_format = DType::bf16;
    if (p == "F16_F16_F32" || p == "F16_F16_F16") r.input_format = DType::f16;
    if (p == "BF16_BF16_BF16") r.accumulator_format = DType::bf16;
    if (p == "F16_F16_F16") r.accumulator_format = DType::f16;
    r.in = dot_input_roundoff(p, operand);
    r.acc = r.accumulator_format ? unit_roundoff(*r.accumulator_format)
                                 : operand == DType::f64 && (p == "DEFAULT" || p == "HIGHEST" || p == "F64_F64_F64")
                                       ? unit_roundoff(DType::f64) : unit_roundoff(DType::f32);
    r.terms = contraction_terms(e);
  } else if (e.prim->name == "conv_general_dilated") {
    // Each output sums in-features × kernel taps products: f32 sums for f32 (the engine's
    // sgemm), f64 otherwise, rounded once to the output dtype.
    const Shape& rhs = e.in[1].type().shape;
    const std::vector<int64_t> spec = e.params.get_ints("rhs_spec");
    int64_t terms = 1;
    for (size_t d = 1; d < spec.size(); ++d) terms *= rhs.at(size_t(spec[d]));
    r.terms = std::max<int64_t>(terms, 1);  // no term (no in-features): zeros, a bound of zero
    r.acc = unit_roundoff(operand == DType::f64 ? DType::f64 : DType::f32);
    r.out = unit_roundoff(e.out[0]->type.dtype);
  } else if (e.prim->name == "reduce_sum") {
    const int64_t out = num_elements(e.out[0]->type.shape);
    r.acc = unit_roundoff(operand);
    r.terms = out ? num_elements(e.in[0].type().shape) / out : 0;
  } else if (e.prim->name == "reduce_prod") {  // n factors, a rounding of the running product each
    const int64_t out = num_elements(e.out[0]->type.shape);
    r.acc = unit_roundoff(operand);
    r.terms = out ? num_elements(e.in[0].type().shape) / out : 0;
  } else if (e.prim->name == "cumsum") {  // each prefix: a sum of up to n terms, as reduce_sum's
    const Shape& s = e.in[0].type().shape;
    const int64_t axis = e.params.get_int("axis");
    r.acc = unit_roundoff(operand);
    r.terms = s.at(size_t(axis < 0 ? axis + int64_t(s.size()) : axis));
  } else if (e.prim->name == "reduce_window_sum") {  // each output: a sum of up to one window of terms
    const std::vector<int64_t> w = e.params.get_ints("window_dimensions");
    r.acc = unit_roundoff(operand);
    r.terms = 1;
    for (int64_t k : w) r.terms *= k;
  } else if (e.prim->name == "scatter_add") {  // each element: its operand plus at most one update per position
    const Shape& idx = e.in[1].type().shape;
    r.acc = unit_roundoff(operand);
    r.terms = 1 + num_elements(Shape(idx.begin(), idx.end() - 1));
  } else if (e.prim->has(kElementwiseUnary) || e.prim->has(kElementwiseBinary) || e.prim->name == "integer_pow") {
    r.out = unit_roundoff(e.out[0]->type.dtype);
  }
  return r;
}

double dot_input_roundoff(const std::string& p, DType operand) {
  // Every preset but F64_F64_F64 computes in f32 at best (X9 included), whatever the operands.
  const bool f64_exact = p == "DEFAULT" || p == "HIGHEST" || p == "F64_F64_F64";
  const double own = f64_exact ? unit_roundoff(operand) : std::max(unit_roundoff(operand), 0x1p-24);
  if (contains(p, "F8")) return std::max(own, 0x1p-3);        // e5m2 is the coarser f8 format
  if (contains(p, "BF16_BF16_F32_X3") || p == "HIGH") return std::max(own, 0x1p-16);
  if (contains(p, "BF16_BF16_F32_X6") || contains(p, "TF32_TF32_F32_X3")) return std::max(own, 0x1p-22);
  if (contains(p, "BF16_BF16_F32_X9") || p == "F32_F32_F32") return own;
  if (p == "BF16_BF16_BF16") return std::max(own, 4 * 0x1p-8);  // and a bf16 accumulator
  if (p == "F16_F16_F16") return std::max(own, 4 * 0x1p-11);    // and an f16 accumulator
  if (contains(p, "BF16")) return std::max(own, 0x1p-8);
  if (contains(p, "TF32") || contains(p, "F16")) return std::max(own, 0x1p-11);
  return own;
}

std::string dot_rounding_model(const Eqn& e) {
  const Rounding m = rounding_of(e);
  char bounds[64];
  std::snprintf(bounds, sizeof bounds, "in=%a acc=%a", m.in, m.acc);  // exact, not 6 digits
  return cat("model(", bounds, " fmt=", m.input_format ? dtype_name(*m.input_format) : "-",
             " accfmt=", m.accumulator_format ? dtype_name(*m.accumulator_format) : "-", ")");
}

}  // namespace tandem::fuzz
