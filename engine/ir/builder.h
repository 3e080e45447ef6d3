// The tracing builder: C++ that reads like JAX (`auto h = tanh(dot(x, w) + b);`). Each call
// runs the primitive's shape rule at once, so a bad shape fails where it is written.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/core/f8.h"
#include "engine/ir/ir.h"
#include "engine/ir/primitive.h"

namespace tandem {

class Builder;

class Value {
 public:
  Value() = default;
  Value(Builder* b, Atom a) : builder_(b), atom_(std::move(a)) {}
  const Atom& atom() const { return atom_; }
  AType type() const { return atom_.type(); }
  const Shape& shape() const;
  DType dtype() const { return type().dtype; }
  int rank() const { return int(type().shape.size()); }
  Builder* builder() const { return builder_; }

 private:
  Builder* builder_ = nullptr;
  Atom atom_;
};

class Builder {
 public:
  Value input(const Shape& shape, DType dtype);
  Value literal(double v, DType dtype);
  std::vector<Value> bind(const std::string& prim, const std::vector<Value>& in, Params params = {});
  Value bind1(const std::string& prim, const std::vector<Value>& in, Params params = {});
  Program build(const std::vector<Value>& outputs) const;
  const std::vector<Eqn>& eqns() const { return eqns_; }

 private:
  std::vector<Var> inputs_;
  std::vector<Eqn> eqns_;
};

// Traces `fn` over fresh inputs of the given types into a standalone Program.
Program trace(const std::vector<AType>& in_types,
              const std::function<std::vector<Value>(Builder&, const std::vector<Value>&)>& fn);

// ---- elementwise --------------------------------------------------------------------
Value neg(Value x);   Value exp(Value x);  Value log(Value x);  Value sin(Value x);
Value cos(Value x);   Value tanh(Value x); Value logistic(Value x); Value sqrt(Value x);
Value integer_pow(Value x, int64_t y);
Value abs(Value x);   Value sign(Value x); Value rsqrt(Value x); Value log1p(Value x);
Value erfc(Value x);  Value floor(Value x);
Value add(Value a, Value b); Value sub(Value a, Value b); Value mul(Value a, Value b);
Value div(Value a, Value b); Value max(Value a, Value b); Value min(Value a, Value b);
// direction: "eq" "ne" "lt" "le" "gt" "ge"
Value compare(Value a, Value b, const std::string& direction);
Value select(Value pred, Value on_true, Value on_false);
Value is_finite(Value x);  // floating -> bool
Value convert_element_type(Value x, DType to);

Value operator+(Value a, Value b);  Value operator-(Value a, Value b);
Value operator*(Value a, Value b);  Value operator/(Value a, Value b);
Value operator-(Value a);
Value operator+(Value a, double b); Value operator*(Value a, double b);
Value operator-(Value a, double b); Value operator/(Value a, double b);
Value operator*(double a, Value b);

// ---- structure ----------------------------------------------------------------------
Value broadcast_in_dim(Value x, const Shape& shape, const std::vector<int64_t>& dims);
Value reshape(Value x, const Shape& shape);
Value transpose(Value x, const std::vector<int64_t>& perm);
Value slice(Value x, const std::vector<int64_t>& start, const std::vector<int64_t>& limit,
            const std::vector<int64_t>& strides = {});
Value dynamic_slice(Value x, const std::vector<Value>& starts, const Shape& sizes);
Value dynamic_update_slice(Value x, Value update, const std::vector<Value>& starts);
Value concatenate(const std::vector<Value>& xs, int64_t axis);
Value iota(Builder& b, DType dtype, const Shape& shape, int64_t dimension);
Value reduce_sum(Value x, const std::vector<int64_t>& axes);
Value reduce_max(Value x, const std::vector<int64_t>& axes);
Value reduce_min(Value x, const std::vector<int64_t>& axes);
Value rev(Value x, const std::vector<int64_t>& dimensions);
// lax.pad: a (low, high, interior) triple per dimension; low/high may be negative (crop).
struct PadDim {
  int64_t low = 0, high = 0, interior = 0;
};
Value pad(Value x, Value padding_value, const std::vector<PadDim>& config);
Value cumsum(Value x, int64_t axis, bool reverse = false);

// ---- dot_general --------------------------------------------------------------------
struct DotDims {
  std::vector<int64_t> lhs_contract, rhs_contract, lhs_batch, rhs_batch;
};
// precision: "DEFAULT" "HIGH" "HIGHEST" or a DotAlgorithm preset name (JAX accepts both).
// f8: the operands' f8 formats under an ANY_F8 preset (JAX: their dtypes); e4m3fn when absent.
Value dot_general(Value lhs, Value rhs, const DotDims& dims, const std::string& precision = "DEFAULT",
                  std::optional<DType> preferred_element_type = std::nullopt,
                  std::optional<F8Operands> f8 = std::nullopt);
// The params dot_general binds, for callers that validate them (dot_signature) first.
Params dot_general_params(const DotDims& dims, const std::string& precision = "DEFAULT",
                          std::optional<DType> preferred_element_type = std::nullopt,
                          std::optional<F8Operands> f8 = std::nullopt);
// Matrix product over the last axis of lhs and the first of rhs.
Value dot(Value lhs, Value rhs, const std::string& precision = "DEFAULT");

// ---- scan ---------------------------------------------------------------------------
// body: (consts..., carry..., x...) -> (carry..., y...), as lax.scan's jaxpr.
std::vector<Value> scan(const Program& body, const std::vector<Value>& consts, const std::vector<Value>& init,
                        const std::vector<Value>& xs, int64_t length, bool reverse = false, int64_t unroll = 1);

}  // namespace tandem
