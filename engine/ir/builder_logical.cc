// The builder functions of builder_logical.h: each binds its primitive in the operands' builder.
#include "engine/ir/builder_logical.h"

#include "engine/core/error.h"

namespace tandem {
namespace {
Builder* builder_of(const Value& a, const Value& b) {
  if (a.builder()) return a.builder();
  if (b.builder()) return b.builder();
  throw_bad_input("operation on literals only: no builder to record it", "start from a Builder input");
}
Value bind(const char* name, std::vector<Value> in, Params p = {}) {
  return builder_of(in[0], in.back())->bind1(name, in, std::move(p));
}
Value axes_op(const char* name, Value x, const std::vector<int64_t>& axes) { return bind(name, {x}, {{"axes", axes}}); }
Value arg_op(const char* name, Value x, int64_t axis) {
  return bind(name, {x}, {{"axes", std::vector<int64_t>{axis}}, {"index_dtype", DType::i32}});
}
}  // namespace

Value rem(Value a, Value b) { return bind("rem", {a, b}); }
Value pow(Value a, Value b) { return bind("pow", {a, b}); }
Value bitwise_and(Value a, Value b) { return bind("and", {a, b}); }
Value bitwise_or(Value a, Value b) { return bind("or", {a, b}); }
Value bitwise_xor(Value a, Value b) { return bind("xor", {a, b}); }
Value bitwise_not(Value x) { return bind("not", {x}); }
Value round(Value x, const std::string& rounding_method) { return bind("round", {x}, {{"rounding_method", rounding_method}}); }
Value reduce_prod(Value x, const std::vector<int64_t>& axes) { return axes_op("reduce_prod", x, axes); }
Value reduce_and(Value x, const std::vector<int64_t>& axes) { return axes_op("reduce_and", x, axes); }
Value reduce_or(Value x, const std::vector<int64_t>& axes) { return axes_op("reduce_or", x, axes); }
Value argmax(Value x, int64_t axis) { return arg_op("argmax", x, axis); }
Value argmin(Value x, int64_t axis) { return arg_op("argmin", x, axis); }

}  // namespace tandem
