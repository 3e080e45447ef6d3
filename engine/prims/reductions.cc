// Reductions over a set of axes: reduce_sum (accumulates in f32 for f32/bf16/f16 and f64
// for f64) and reduce_max (NaN propagates; an empty reduction gives -inf / INT32_MIN).
#include <cmath>
#include <limits>
#include <set>

#include "engine/cpu/dispatch.h"
#include "engine/ir/primitive.h"

namespace tandem {
namespace {

std::vector<int> reduced_axes(const std::vector<int64_t>& axes, int rank, const char* op) {
  std::set<int> s;
  for (int64_t a : axes)
    if (!s.insert(normalize_axis(a, rank, op)).second)
      throw_bad_input(cat(op, ": axis ", a, " listed twice"));
  return {s.begin(), s.end()};
}

std::vector<AType> reduce_shape(const char* op, const std::vector<AType>& in, const Params& p) {
  if (in.size() != 1) throw_bad_input(cat(op, " takes 1 operand"));
  if (in[0].dtype == DType::pred) throw_bad_input(cat(op, " is not defined on bool"));
  auto axes = reduced_axes(p.get_ints("axes"), in[0].rank(), op);
  Shape s;
  for (int d = 0, k = 0; d < in[0].rank(); ++d) {
    if (k < int(axes.size()) && axes[k] == d) { ++k; continue; }
    s.push_back(in[0].shape[d]);
  }
  return {AType{s, in[0].dtype}};
}

// Visits every input element with the flat index of the output element it reduces into.
template <class F>
void for_each_with_out_index(const Shape& shape, const std::vector<int>& axes, F f) {
  int rank = int(shape.size());
  Shape out_st(rank, 0);
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    bool reduced = false;
    for (int a : axes) reduced |= a == d;
    if (!reduced) { out_st[d] = stride; stride *= shape[d]; }
  }
  int64_t n = num_elements(shape);
  std::vector<int64_t> idx(rank, 0);
  int64_t o = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, o);
    for (int k = rank - 1; k >= 0; --k) {
      if (++idx[k] < shape[k]) { o += out_st[k]; break; }
      o -= out_st[k] * (shape[k] - 1);
      idx[k] = 0;
    }
  }
}

template <bool kMax>
Impl reduce_cpu(const char* op) {
  return [op](const std::vector<Tensor>& in, const Params& p, EvalContext&) {
    AType out_t = reduce_shape(op, {in[0].type()}, p)[0];
    auto axes = reduced_axes(p.get_ints("axes"), in[0].rank(), op);
    Tensor out = Tensor::empty(out_t.shape, out_t.dtype);
    cpu::dispatch_numeric(in[0].dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      using C = cpu::compute_t<T>;
      C init = C(0);
      if constexpr (kMax) {
        init = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                    : std::numeric_limits<C>::lowest();
      }
      std::vector<C> acc(size_t(out.numel()), init);
      const T* x = in[0].data<T>();
      for_each_with_out_index(in[0].shape(), axes, [&](int64_t i, int64_t o) {
        C v = cpu::load(x[i]);
        if constexpr (kMax) {
          if constexpr (std::is_floating_point_v<C>) {
            if (std::isnan(v) || std::isnan(acc[o])) { acc[o] = std::numeric_limits<C>::quiet_NaN(); return; }
          }
          if (v > acc[o]) acc[o] = v;
        } else {
          acc[o] += v;
        }
      });
      T* po = out.data<T>();
      for (size_t k = 0; k < acc.size(); ++k) po[k] = cpu::store<T>(acc[k]);
    });
    return std::vector<Tensor>{out};
  };
}

void add(const char* name, Impl cpu) {
  Primitive p;
  p.name = name;
  p.shape = [name](const std::vector<AType>& in, const Params& params) {
    return reduce_shape(name, in, params);
  };
  p.cpu = std::move(cpu);
  register_primitive(std::move(p));
}
}  // namespace

void register_reduction_primitives() {
  add("reduce_sum", reduce_cpu<false>("reduce_sum"));
  add("reduce_max", reduce_cpu<true>("reduce_max"));
}

}  // namespace tandem
