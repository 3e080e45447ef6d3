// Elementwise primitives outside unary_ops.def / binary_ops.def: lax's bitwise ops (one row
// each in bitwise_ops.def: bool or i32 operands, not floats) and round (a param,
// rounding_method). Operands as the binary table's: one dtype, equal shapes or a rank-0 one
// broadcasting. None has a derivative (JAX's defjvp_zero): their VJP rules give none.
#include <cmath>

#include "engine/cpu/dispatch.h"
#include "engine/ir/fusion.h"

namespace tandem {
namespace {

Shape broadcast_shape(const char* op, const std::vector<AType>& in) {
  if (in[0].dtype != in[1].dtype)
    throw_bad_input(cat(op, ": operand dtypes differ: ", in[0].str(), " vs ", in[1].str()),
                    "convert_element_type one operand first");
  if (in[0].shape == in[1].shape || in[1].rank() == 0) return in[0].shape;
  if (in[0].rank() == 0) return in[1].shape;
  throw_bad_input(cat(op, ": operand shapes differ: ", in[0].str(), " vs ", in[1].str()),
                  "lax ops need equal shapes; use broadcast_in_dim first");
}

std::vector<AType> bitwise_shape(const char* op, int arity, const std::vector<AType>& in) {
  if (int(in.size()) != arity) throw_bad_input(cat(op, " takes ", arity, " operand(s), got ", in.size()));
  if (in[0].dtype != DType::pred && in[0].dtype != DType::i32)
    throw_bad_input(cat(op, " needs bool or i32 operands, got ", in[0].str()),
                    "compare floats first (x != 0), or convert_element_type to i32");
  return {AType{arity == 1 ? in[0].shape : broadcast_shape(op, in), in[0].dtype}};
}

template <class F>
void register_bitwise(const char* name, int arity, F f) {
  Primitive p;
  p.name = name;
  p.traits = kElementwise;
  p.shape = [name, arity](const std::vector<AType>& in, const Params&) { return bitwise_shape(name, arity, in); };
  const BlockKernel kernel = [arity, f](const ElementBlock& b, const Params&) {
    const int k = arity - 1;  // not reads its one operand twice
    auto zip = [&](auto ones) {
      using T = decltype(ones);
      const T *pa = static_cast<const T*>(b.in[0]), *pb = static_cast<const T*>(b.in[k]);
      const int64_t sa = b.scalar[0] ? 0 : 1, sb = b.scalar[k] ? 0 : 1;
      for (int64_t i = 0; i < b.n; ++i) static_cast<T*>(b.out)[i] = f(pa[i * sa], pb[i * sb], ones);
    };
    if (b.types[0] == DType::i32) zip(int32_t(-1));
    else zip(uint8_t(1));
  };
  register_elementwise(std::move(p), kernel);
}

bool to_nearest_even(const Params& p) {
  const std::string m = p.get_string("rounding_method", "AWAY_FROM_ZERO");
  if (m != "AWAY_FROM_ZERO" && m != "TO_NEAREST_EVEN")
    throw_bad_input(cat("round: unknown rounding_method '", m, "'"), "use AWAY_FROM_ZERO or TO_NEAREST_EVEN (lax.RoundingMethod)");
  return m == "TO_NEAREST_EVEN";
}

// lax.round: half-way cases away from zero (std::round) or to even (nearbyint under the
// default rounding mode, which this process never changes).
void register_round() {
  Primitive p;
  p.name = "round";
  p.traits = kElementwise;
  p.params = {"rounding_method"};
  p.shape = [](const std::vector<AType>& in, const Params& params) {
    to_nearest_even(params);
    if (in.size() != 1) throw_bad_input(cat("round takes 1 operand, got ", in.size()));
    if (!is_floating(in[0].dtype)) throw_bad_input(cat("round needs a floating operand, got ", in[0].str()));
    return std::vector<AType>{in[0]};
  };
  const BlockKernel kernel = [](const ElementBlock& b, const Params& params) {
    const bool even = to_nearest_even(params);
    cpu::dispatch_float(b.types[0], "round", [&](auto tag) {
      using T = decltype(tag);
      const T* px = static_cast<const T*>(b.in[0]);
      for (int64_t i = 0; i < b.n; ++i) {
        const auto v = cpu::load(px[i]);
        static_cast<T*>(b.out)[i] = cpu::store<T>(even ? std::nearbyint(v) : std::round(v));
      }
    });
  };
  register_elementwise(std::move(p), kernel);
}

}  // namespace

void register_elementwise_more_primitives() {
#define TANDEM_BITWISE(id, name, arity, expr) \
  register_bitwise(name, arity, [](auto a, auto b, auto ones) { using T = decltype(a); (void)b, (void)ones; return expr; });
#include "engine/prims/bitwise_ops.def"
  register_round();
}

}  // namespace tandem
