// Reductions over a set of axes: reduce_sum (accumulates in f32 for f32/bf16/f16 and f64
// for f64; a sum over contiguous elements uses 16 interleaved accumulators per block of 4096
// and a tree over the blocks), reduce_max and reduce_min
// (NaN propagates; an empty reduction gives -inf / INT32_MIN, and +inf / INT32_MAX for min);
// reduce_prod, reduce_and / reduce_or (bool or i32) and argmax / argmin over one axis.
#include <cmath>
#include <limits>
#include <set>

#include "engine/core/faults.h"
#include "engine/cpu/dispatch.h"
#include "engine/prims/primitive_of.h"

namespace tandem {
namespace {

std::vector<int> reduced_axes(const std::vector<int64_t>& axes, int rank, const char* op) {
  std::set<int> s;
  for (int64_t a : axes)
    if (!s.insert(normalize_axis(a, rank, op)).second) throw_bad_input(cat(op, ": axis ", a, " listed twice"));
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

// Sum of n contiguous values: blocks of at most kBlock values in kLanes interleaved
// accumulators (combined pairwise at the end), and the blocks' sums added pairwise, as a tree.
// One accumulator would be a chain of n dependent additions (latency-bound, ≈ 1.5 ns an
// element); kLanes independent chains vectorize. The tree over blocks keeps the worst-case
// rounding error bound at (kBlock/kLanes + log2 kLanes + log2(n/kBlock))·u instead of
// (n/kLanes)·u: close to XLA:CPU's tree reduction, which JAX's oracle compares with (a sum of
// 819,200 f32 terms was 60 ulps off without the tree; docs/JAX_ORACLE.md).
template <class T, class C>
C sum_block(const T* x, int64_t n) {
  constexpr int kLanes = 16;
  C acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += cpu::load(x[i + k]);
  for (int k = 0; i < n; ++i, ++k) acc[k] += cpu::load(x[i]);
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
  return acc[0];
}

template <class T, class C>
C sum_tree(const T* x, int64_t n) {
  constexpr int64_t kBlock = 4096;
  if (n <= kBlock) return sum_block<T, C>(x, n);
  const int64_t half = (n / 2 + kBlock - 1) / kBlock * kBlock;  // whole blocks on the left
  return sum_tree<T, C>(x, half) + sum_tree<T, C>(x + half, n - half);
}

template <class T, class C>
C sum_contiguous(const T* x, int64_t n) {
  if (n % 2 && fault_on(Fault::reduce_sum_odd_drops_last)) --n;  // fault: the odd tail is skipped
  return sum_tree<T, C>(x, n);
}

// reduce_sum over one contiguous run of axes, the input viewed as [outer, R, inner]. With
// inner > 1 each output keeps its own sequential chain over R, vectorized across inner.
template <class T, class C>
void sum_axis_block(const T* x, C* acc, int64_t outer, int64_t R, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* xo = x + o * R * inner;
    C* a = acc + o * inner;
    if (inner == 1) {
      a[0] = sum_contiguous<T, C>(xo, R);
      continue;
    }
    for (int64_t r = 0; r < R; ++r)
      for (int64_t j = 0; j < inner; ++j) a[j] += cpu::load(xo[r * inner + j]);
  }
}

// The [outer, R, inner] view when the reduced axes are consecutive; false otherwise.
bool as_axis_block(const Shape& shape, const std::vector<int>& axes, int64_t& outer, int64_t& R, int64_t& inner) {
  if (axes.empty()) return false;
  for (size_t k = 1; k < axes.size(); ++k)
    if (axes[k] != axes[k - 1] + 1) return false;
  outer = R = inner = 1;
  for (int d = 0; d < int(shape.size()); ++d) {
    if (d < axes.front()) outer *= shape[size_t(d)];
    else if (d <= axes.back()) R *= shape[size_t(d)];
    else inner *= shape[size_t(d)];
  }
  return true;
}

enum class Reduce { sum, max, min };

template <Reduce kOp>
Impl reduce_cpu(const char* op) {
  constexpr bool kMax = kOp != Reduce::sum;  // a chooser: max or min
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
        if (kOp == Reduce::min)
          init = std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity()
                                                      : std::numeric_limits<C>::max();
      }
      std::vector<C> acc(size_t(out.numel()), init);
      const T* x = in[0].data<T>();
      int64_t outer = 0, R = 0, inner = 0;
      if constexpr (!kMax) {
        if (as_axis_block(in[0].shape(), axes, outer, R, inner)) {
          sum_axis_block<T, C>(x, acc.data(), outer, R, inner);
          T* po = out.data<T>();
          for (size_t k = 0; k < acc.size(); ++k) po[k] = cpu::store<T>(acc[k]);
          return;
        }
      }
      for_each_with_out_index(in[0].shape(), axes, [&](int64_t i, int64_t o) {
        C v = cpu::load(x[i]);
        if constexpr (kMax) {
          if constexpr (std::is_floating_point_v<C>) {
            if (std::isnan(v) || std::isnan(acc[o])) { acc[o] = std::numeric_limits<C>::quiet_NaN(); return; }
          }
          if (kOp == Reduce::max ? v > acc[o] : v < acc[o]) acc[o] = v;
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

void add(const char* name, Impl cpu, ShapeRule shape = {}, std::vector<std::string> params = {"axes"}) {
  Primitive p = primitive_of(name, kReduction, std::move(params));
  p.shape = shape ? std::move(shape) : [name](const std::vector<AType>& in, const Params& params) {
    return reduce_shape(name, in, params);
  };
  p.cpu = std::move(cpu);
  register_primitive(std::move(p));
}

// ---- reduce_prod, reduce_and / reduce_or, argmax / argmin ----------------------------------

// reduce_prod: the product in the compute type (f32 for f32/bf16/f16, f64; i32 wraps as
// XLA's), element by element in the operand's order; an empty product is 1.
std::vector<Tensor> prod_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  AType out_t = reduce_shape("reduce_prod", {in[0].type()}, p)[0];
  auto axes = reduced_axes(p.get_ints("axes"), in[0].rank(), "reduce_prod");
  Tensor out = Tensor::empty(out_t.shape, out_t.dtype);
  cpu::dispatch_numeric(in[0].dtype(), "reduce_prod", [&](auto tag) {
    using T = decltype(tag);
    using C = std::conditional_t<std::is_same_v<T, int32_t>, uint32_t, cpu::compute_t<T>>;  // unsigned wraps
    std::vector<C> acc(size_t(out.numel()), C(1));
    const T* x = in[0].data<T>();
    for_each_with_out_index(in[0].shape(), axes, [&](int64_t i, int64_t o) { acc[o] *= C(cpu::load(x[i])); });
    T* po = out.data<T>();
    for (size_t k = 0; k < acc.size(); ++k) po[k] = cpu::store<T>(decltype(cpu::load(x[0]))(acc[k]));
  });
  return {out};
}

std::vector<AType> logical_reduce_shape(const char* op, const std::vector<AType>& in, const Params& p) {
  if (in.size() != 1) throw_bad_input(cat(op, " takes 1 operand"));
  if (in[0].dtype != DType::pred && in[0].dtype != DType::i32)
    throw_bad_input(cat(op, " needs a bool or i32 operand, got ", in[0].str()), "compare first (x > 0)");
  std::vector<AType> t = reduce_shape(op, {AType{in[0].shape, DType::i32}}, p);  // axes checked as reduce_sum's
  t[0].dtype = in[0].dtype;
  return t;
}

// reduce_and / reduce_or on the operand's bits: bool (all / any) or i32 (bitwise).
Impl bits_cpu(const char* op, bool is_and) {
  return [op, is_and](const std::vector<Tensor>& in, const Params& p, EvalContext&) {
    AType out_t = logical_reduce_shape(op, {in[0].type()}, p)[0];
    auto axes = reduced_axes(p.get_ints("axes"), in[0].rank(), op);
    Tensor out = Tensor::empty(out_t.shape, out_t.dtype);
    auto run = [&](auto ones) {
      using T = decltype(ones);
      std::vector<T> acc(size_t(out.numel()), is_and ? ones : T(0));
      const T* x = in[0].data<T>();
      for_each_with_out_index(in[0].shape(), axes, [&](int64_t i, int64_t o) {
        acc[o] = is_and ? T(acc[o] & x[i]) : T(acc[o] | x[i]);
      });
      std::copy(acc.begin(), acc.end(), out.data<T>());
    };
    if (out_t.dtype == DType::i32) run(int32_t(-1));
    else run(uint8_t(1));
    return std::vector<Tensor>{out};
  };
}

// argmax / argmin: params axes (one axis, non-empty) and index_dtype (i32); the result drops
// the axis. XLA's comparator: the first NaN wins, else the first strictly better value.
std::vector<AType> arg_shape(const char* op, const std::vector<AType>& in, const Params& p) {
  if (in.size() != 1) throw_bad_input(cat(op, " takes 1 operand"));
  auto axes = p.get_ints("axes");
  if (axes.size() != 1) throw_bad_input(cat(op, " takes one axis, got ", axes.size()), "lax.argmax(x, axis, index_dtype)");
  if (p.get_dtype("index_dtype") != DType::i32)
    throw_bad_input(cat(op, ": index_dtype must be i32, got ", dtype_name(p.get_dtype("index_dtype"))));
  const int axis = normalize_axis(axes[0], in[0].rank(), op);
  if (in[0].shape[size_t(axis)] == 0)
    throw_bad_input(cat(op, " of an empty axis (", in[0].str(), ", axis ", axis, ")"), "argmax needs at least one element");
  Shape s = in[0].shape;
  s.erase(s.begin() + axis);
  return {AType{s, DType::i32}};
}

Impl arg_cpu(const char* op, bool largest) {
  return [op, largest](const std::vector<Tensor>& in, const Params& p, EvalContext&) {
    AType out_t = arg_shape(op, {in[0].type()}, p)[0];
    const int axis = normalize_axis(p.get_ints("axes")[0], in[0].rank(), op);
    Tensor out = Tensor::empty(out_t.shape, out_t.dtype);
    cpu::dispatch_any(in[0].dtype(), op, [&](auto tag) {
      using T = decltype(tag);
      using C = cpu::compute_t<T>;
      const Shape& s = in[0].shape();
      int64_t inner = 1;
      for (size_t d = size_t(axis) + 1; d < s.size(); ++d) inner *= s[d];
      const int64_t n = s[size_t(axis)], outer = out.numel() / std::max<int64_t>(inner, 1);
      const T* x = in[0].data<T>();
      int32_t* po = out.data<int32_t>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          const T* row = x + o * n * inner + j;
          C best = cpu::load(row[0]);
          int32_t at = 0;
          for (int64_t k = 1; k < n && best == best; ++k) {  // best != best: a NaN, kept for good
            const C v = cpu::load(row[k * inner]);
            if (v != v || (largest ? v > best : v < best)) best = v, at = int32_t(k);
          }
          po[o * inner + j] = at;
        }
    });
    return std::vector<Tensor>{out};
  };
}
}  // namespace

void register_reduction_primitives() {
  add("reduce_sum", reduce_cpu<Reduce::sum>("reduce_sum"));
  add("reduce_max", reduce_cpu<Reduce::max>("reduce_max"));
  add("reduce_min", reduce_cpu<Reduce::min>("reduce_min"));
  add("reduce_prod", prod_cpu);
  for (auto [name, is_and] : {std::pair{"reduce_and", true}, std::pair{"reduce_or", false}})
    add(name, bits_cpu(name, is_and), [name = name](const std::vector<AType>& in, const Params& p) {
      return logical_reduce_shape(name, in, p);
    });
  for (auto [name, largest] : {std::pair{"argmax", true}, std::pair{"argmin", false}})
    add(name, arg_cpu(name, largest), [name = name](const std::vector<AType>& in, const Params& p) {
      return arg_shape(name, in, p);
    }, {"axes", "index_dtype"});
}

}  // namespace tandem
