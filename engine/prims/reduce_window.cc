// reduce_window_max and reduce_window_sum (reduce_window.h), XLA's ReduceWindow as JAX binds it:
// each output element reduces its window of the base-dilated, padded operand; padding and
// dilation holes hold the init value (-inf / INT32_MIN for max, 0 for sum). max propagates
// NaN; sum adds the window sequentially in row-major window order (f32 for f32/bf16/f16, f64
// for f64). Both walk one WindowPlan (window_plan.h), shared with the CUDA kernels.
#include "engine/prims/reduce_window.h"

#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "engine/cpu/dispatch.h"
#include "engine/prims/primitive_of.h"

namespace tandem {
namespace {

std::vector<int64_t> ints_or(const Params& p, const char* key, size_t n, int64_t v) {
  return p.has(key) ? p.get_ints(key) : std::vector<int64_t>(n, v);
}

int64_t dilated(int64_t extent, int64_t dilation) { return extent == 0 ? 0 : (extent - 1) * dilation + 1; }

std::vector<AType> window_shape(const char* op, const std::vector<AType>& in, const Params& p) {
  if (in.size() != 1) throw_bad_input(cat(op, " takes 1 operand, got ", in.size()));
  if (in[0].dtype == DType::pred)
    throw_bad_input(cat(op, " is not defined on bool"), "convert the operand to a number type first");
  return {AType{reduce_window_shape(in[0], window_dims_of(in[0], p, op)), in[0].dtype}};
}

template <bool kMax>
Impl window_cpu(const char* op) {
  return [op](const std::vector<Tensor>& in, const Params& p, EvalContext&) {
    const WindowDims w = window_dims_of(in[0].type(), p, op);
    const WindowPlan plan = window_plan(in[0].type(), w);
    Tensor out = Tensor::empty(reduce_window_shape(in[0].type(), w), in[0].dtype());
    cpu::dispatch_numeric(in[0].dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      using C = std::conditional_t<std::is_same_v<T, int32_t>, int64_t, cpu::compute_t<T>>;
      C init = C(0);
      if constexpr (kMax)
        init = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : C(INT32_MIN);
      const T* x = in[0].data<T>();
      T* y = out.data<T>();
      for (int64_t o = 0, n = out.numel(); o < n; ++o) {
        C acc = init;
        for (int64_t k = 0; k < plan.window_size; ++k) {
          const int64_t s = window_source(plan, o, k);
          if (s < 0) continue;  // padding or a hole: the init value, which changes nothing
          const C v = cpu::load(x[s]);
          if constexpr (kMax) acc = (v > acc || v != v) && acc == acc ? v : acc;  // NaN sticks
          else acc += v;
        }
        if constexpr (std::is_same_v<T, int32_t>) y[o] = int32_t(acc);  // i32 sums wrap, as XLA's
        else y[o] = cpu::store<T>(acc);
      }
    });
    return std::vector<Tensor>{out};
  };
}

void add(const char* name, Impl cpu) {
  register_primitive(primitive_of(
      name, kStructural, {"window_dimensions", "window_strides", "padding", "base_dilation", "window_dilation"},
      [name](const std::vector<AType>& in, const Params& q) { return window_shape(name, in, q); }, std::move(cpu)));
}
}  // namespace

WindowDims window_dims_of(const AType& operand, const Params& p, const char* op) {
  const size_t r = size_t(operand.rank());
  WindowDims w;
  w.window_dimensions = p.get_ints("window_dimensions");
  w.window_strides = ints_or(p, "window_strides", r, 1);
  w.base_dilation = ints_or(p, "base_dilation", r, 1);
  w.window_dilation = ints_or(p, "window_dilation", r, 1);
  const std::vector<int64_t> pad = ints_or(p, "padding", 2 * r, 0);
  for (const auto* v : {&w.window_dimensions, &w.window_strides, &w.base_dilation, &w.window_dilation})
    if (v->size() != r)
      throw_bad_input(cat(op, ": ", operand.str(), " needs one window dimension, stride and dilation per dim, got ",
                          v->size()),
                      "give window_dimensions, window_strides, base_dilation and window_dilation of the operand's rank");
  if (pad.size() != 2 * r)
    throw_bad_input(cat(op, ": padding has ", pad.size(), " entries for ", operand.str()),
                    "padding is one (lo, hi) pair per operand dim, flattened");
  for (size_t d = 0; d < r; ++d) {
    w.padding.emplace_back(pad[2 * d], pad[2 * d + 1]);
    if (w.window_dimensions[d] < 1 || w.window_strides[d] < 1 || w.base_dilation[d] < 1 || w.window_dilation[d] < 1)
      throw_bad_input(cat(op, ": window dimensions, strides and dilations must be >= 1 (dim ", d, ")"));
    if (dilated(operand.shape[d], w.base_dilation[d]) + pad[2 * d] + pad[2 * d + 1] < 0)
      throw_bad_input(cat(op, ": negative padding removes more than dim ", d, " of ", operand.str()));
  }
  if (r > size_t(kMaxWindowRank)) throw_bad_input(cat(op, ": ranks above ", kMaxWindowRank, " are not supported"));
  return w;
}

Shape reduce_window_shape(const AType& operand, const WindowDims& w) {
  Shape out;
  for (size_t d = 0; d < size_t(operand.rank()); ++d) {
    const int64_t in = dilated(operand.shape[d], w.base_dilation[d]) + w.padding[d].first + w.padding[d].second;
    const int64_t win = dilated(w.window_dimensions[d], w.window_dilation[d]);
    out.push_back(in < win ? 0 : (in - win) / w.window_strides[d] + 1);
  }
  return out;
}

WindowPlan window_plan(const AType& operand, const WindowDims& w) {
  WindowPlan p;
  p.rank = operand.rank();
  const Shape out = reduce_window_shape(operand, w);
  for (int d = 0; d < p.rank; ++d) {
    p.in_shape[d] = operand.shape[size_t(d)];
    p.out_shape[d] = out[size_t(d)];
    p.window[d] = w.window_dimensions[size_t(d)];
    p.strides[d] = w.window_strides[size_t(d)];
    p.pad_lo[d] = w.padding[size_t(d)].first;
    p.base_dilation[d] = w.base_dilation[size_t(d)];
    p.window_dilation[d] = w.window_dilation[size_t(d)];
    p.window_size *= p.window[d];
  }
  return p;
}

void register_reduce_window_primitives() {
  add("reduce_window_max", window_cpu<true>("reduce_window_max"));
  add("reduce_window_sum", window_cpu<false>("reduce_window_sum"));
}

}  // namespace tandem
