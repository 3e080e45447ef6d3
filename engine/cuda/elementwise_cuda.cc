// CUDA impls of the elementwise primitives: unary math, integer_pow, binary arithmetic, compare, select,
// convert_element_type, the bitwise ops and round. Each validates through the shape rule, takes its output from the
// Allocator on the context's device and launches one kernel (elementwise_kernels.cu); nothing comes back to the host
// (i32 division's error flag is read later, see device_faults.h).
#include <utility>

#include "engine/core/error.h"
#include "engine/core/check_cuda.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/cuda/device_faults.h"
#include "engine/cuda/elementwise_kernels.h"

namespace tandem {
namespace {
using namespace cuda_impl;

Impl unary_impl(std::string name, UnaryOp op) {
  return [name, op](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
    AType t = checked_out_types(name, in, p)[0];
    Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
    cuda_impl::unary(op, t.dtype, in[0].raw(), out.raw(), out.numel());
    return std::vector<Tensor>{out};
  };
}

std::vector<Tensor> integer_pow_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("integer_pow", in, p)[0];
  int64_t y = p.get_int("y");
  if (t.dtype == DType::i32 && y < 0) throw_bad_input("integer_pow: negative exponent on an integer operand");
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  cuda_impl::integer_pow(t.dtype, in[0].raw(), out.raw(), out.numel(), y);
  return {out};
}

// A rank-0 operand against a ranked output reads its one element everywhere.
Operand operand(const Tensor& x, const AType& out) {
  return Operand{x.raw(), x.rank() == 0 && out.rank() != 0};
}

Impl binary_impl(std::string name, BinaryOp op) {
  return [name, op](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
    AType t = checked_out_types(name, in, p)[0];
    Device d = current_device(ctx);
    Tensor out = Tensor::empty(t.shape, t.dtype, d);
    // Integer division by zero is bad input on the CPU; here the kernel raises a fault flag that the host reads when it
    // next waits for the device (device_faults.h): no copy and no synchronisation per call.
    bool flag = op == BinaryOp::div && t.dtype == DType::i32;
    cuda_impl::binary(op, t.dtype, operand(in[0], t), operand(in[1], t), out.raw(), out.numel(),
                      flag ? device_fault_flag(d.index, DeviceFault::int_division_by_zero) : nullptr);
    return std::vector<Tensor>{out};
  };
}

CompareDir direction(const std::string& d) {
  const std::pair<const char*, CompareDir> table[] = {
      {"eq", CompareDir::eq}, {"ne", CompareDir::ne}, {"lt", CompareDir::lt},
      {"le", CompareDir::le}, {"gt", CompareDir::gt}, {"ge", CompareDir::ge}};
  for (const auto& [name, dir] : table)
    if (d == name) return dir;
  throw_bad_input(cat("compare: unknown direction '", d, "'"), "use eq ne lt le gt ge");
}

std::vector<Tensor> compare_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("compare", in, p)[0];
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  cuda_impl::compare(direction(p.get_string("direction", "")), in[0].dtype(), operand(in[0], t),
                     operand(in[1], t), out.data<uint8_t>(), out.numel());
  return {out};
}

std::vector<Tensor> is_finite_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("is_finite", in, p)[0];
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  cuda_impl::is_finite(in[0].dtype(), in[0].raw(), out.data<uint8_t>(), out.numel());
  return {out};
}

std::vector<Tensor> select_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("select", in, p)[0];
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  cuda_impl::select(in[0].data<uint8_t>(), in[0].rank() == 0, in[1].raw(), in[2].raw(),
                    out.raw(), out.numel(), dtype_size(t.dtype));
  return {out};
}

std::vector<Tensor> convert_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("convert_element_type", in, p)[0];
  if (t.dtype == in[0].dtype()) return {in[0]};  // as the CPU: the same (immutable) buffer
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  cuda_impl::convert_element(in[0].dtype(), in[0].raw(), t.dtype, out.raw(), out.numel());
  return {out};
}

// not, and, or, xor (bitwise_ops.def): "not" passes its one operand as both.
Impl bitwise_impl(std::string name, BitwiseOp op) {
  return [name, op](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
    AType t = checked_out_types(name, in, p)[0];
    Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
    const Tensor& b = in.back();
    cuda_impl::bitwise(op, t.dtype, operand(in[0], t), operand(b, t), out.raw(), out.numel());
    return std::vector<Tensor>{out};
  };
}

std::vector<Tensor> round_impl(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  AType t = checked_out_types("round", in, p)[0];  // validates rounding_method
  Tensor out = Tensor::empty(t.shape, t.dtype, current_device(ctx));
  const bool even = p.get_string("rounding_method", "AWAY_FROM_ZERO") == "TO_NEAREST_EVEN";
  cuda_impl::round_integral(t.dtype, in[0].raw(), out.raw(), out.numel(), even);
  return {out};
}

}  // namespace

void register_elementwise_cuda_impls() {
#define TANDEM_UNARY(name, ...) attach_cuda_impl(#name, unary_impl(#name, UnaryOp::name));
#include "engine/prims/unary_ops.def"
#define TANDEM_BINARY(name, ...) attach_cuda_impl(#name, binary_impl(#name, BinaryOp::name));
#include "engine/prims/binary_ops.def"
  attach_cuda_impl("integer_pow", integer_pow_impl);
  attach_cuda_impl("compare", compare_impl);
  attach_cuda_impl("is_finite", is_finite_impl);
  attach_cuda_impl("select", select_impl);
  attach_cuda_impl("convert_element_type", convert_impl);
#define TANDEM_BITWISE(id, name, ...) attach_cuda_impl(name, bitwise_impl(name, BitwiseOp::id));
#include "engine/prims/bitwise_ops.def"
  attach_cuda_impl("round", round_impl);
}

}  // namespace tandem
