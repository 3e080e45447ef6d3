// reduce_sum, reduce_max and reduce_min: one pass over the input, each element added into the output
// position its kept axes name.
#include "reference/reduce.h"

#include <cmath>
#include <limits>
#include <string>

#include "reference/rounding.h"

namespace tandem::ref {
namespace {

struct Reduction {
  std::vector<int64_t> out_shape;
  std::vector<bool> reduced;  // per input axis
};

Reduction plan(const char* what, const Array& x, const std::vector<int64_t>& axes) {
  check_array(x, what);
  Reduction r{{}, std::vector<bool>(x.shape.size(), false)};
  for (int64_t a : axes) {
    require(a >= 0 && a < x.rank() && !r.reduced[a],
            std::string(what) + ": axes " + shape_string(axes) + " invalid for " +
                shape_string(x.shape) + " (each axis in range, at most once)");
    r.reduced[a] = true;
  }
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (!r.reduced[d]) r.out_shape.push_back(x.shape[d]);
  return r;
}

// Calls f(out_flat, value) for every element of x.
template <typename F>
void for_each_into(const Array& x, const Reduction& r, F f) {
  const auto out_strides = row_major_strides(r.out_shape);
  std::vector<int64_t> idx(x.shape.size(), 0);
  for (size_t flat = 0; flat < x.data.size(); ++flat, next_index(idx, x.shape)) {
    int64_t out = 0, k = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      if (!r.reduced[d]) out += idx[d] * out_strides[k++];
    f(out, x.data[flat]);
  }
}

}  // namespace

Array reduce_sum(const Array& x, std::vector<int64_t> axes) {
  const Reduction r = plan("reduce_sum", x, axes);
  require(x.dtype != DType::pred, "reduce_sum: dtype pred is not supported");
  const size_t n = static_cast<size_t>(shape_numel(r.out_shape));
  Array out{r.out_shape, x.dtype, std::vector<double>(n, 0.0)};
  if (x.dtype == DType::i32) {
    std::vector<int64_t> acc(n, 0);  // exact for fewer than 2^32 terms; wrapped at the end
    for_each_into(x, r, [&](int64_t o, double v) { acc[o] += static_cast<int64_t>(v); });
    for (size_t i = 0; i < n; ++i)
      out.data[i] = round_to(DType::i32, static_cast<double>(acc[i] % 4294967296LL));
    return out;
  }
  for_each_into(x, r, [&](int64_t o, double v) { out.data[o] += v; });
  round_each(x.dtype, out.data);
  return out;
}

// reduce_max (max) or reduce_min: from the dtype's lowest (highest) value; a NaN wins and stays.
static Array reduce_extreme(const char* name, const Array& x, const std::vector<int64_t>& axes, bool max) {
  const Reduction r = plan(name, x, axes);
  double init = (max ? -1 : 1) * std::numeric_limits<double>::infinity();
  if (x.dtype == DType::i32) init = max ? -2147483648.0 : 2147483647.0;
  if (x.dtype == DType::pred) init = max ? 0.0 : 1.0;
  Array out{r.out_shape, x.dtype,
            std::vector<double>(static_cast<size_t>(shape_numel(r.out_shape)), init)};
  for_each_into(x, r, [&](int64_t o, double v) {
    double& m = out.data[o];
    if (std::isnan(m)) return;
    if (std::isnan(v) || (max ? v > m : v < m)) m = v;
  });
  return out;
}

Array reduce_max(const Array& x, std::vector<int64_t> axes) { return reduce_extreme("reduce_max", x, axes, true); }
Array reduce_min(const Array& x, std::vector<int64_t> axes) { return reduce_extreme("reduce_min", x, axes, false); }

Array reduce_prod(const Array& x, std::vector<int64_t> axes) {
  const Reduction r = plan("reduce_prod", x, axes);
  require(x.dtype != DType::pred, "reduce_prod: dtype pred is not supported");
  const size_t n = static_cast<size_t>(shape_numel(r.out_shape));
  Array out{r.out_shape, x.dtype, std::vector<double>(n, 1.0)};
  if (x.dtype == DType::i32) {
    std::vector<uint32_t> acc(n, 1u);  // unsigned: wraps modulo 2^32 as i32 products do
    for_each_into(x, r, [&](int64_t o, double v) { acc[o] *= static_cast<uint32_t>(static_cast<int64_t>(v)); });
    for (size_t i = 0; i < n; ++i) out.data[i] = static_cast<double>(static_cast<int32_t>(acc[i]));
    return out;
  }
  for_each_into(x, r, [&](int64_t o, double v) { out.data[o] *= v; });
  round_each(x.dtype, out.data);
  return out;
}

namespace {
// reduce_and / reduce_or on the operand's bits (bool: the one bit).
Array reduce_bits(const char* what, const Array& x, const std::vector<int64_t>& axes, bool is_and) {
  const Reduction r = plan(what, x, axes);
  require(x.dtype == DType::pred || x.dtype == DType::i32, std::string(what) + ": needs bool or i32");
  std::vector<uint32_t> acc(static_cast<size_t>(shape_numel(r.out_shape)), is_and ? 0xffffffffu : 0u);
  for_each_into(x, r, [&](int64_t o, double v) {
    const uint32_t b = static_cast<uint32_t>(static_cast<int64_t>(v));
    acc[o] = is_and ? acc[o] & b : acc[o] | b;
  });
  Array out{r.out_shape, x.dtype, std::vector<double>(acc.size())};
  for (size_t i = 0; i < acc.size(); ++i)
    out.data[i] = x.dtype == DType::pred ? double(acc[i] & 1u) : double(static_cast<int32_t>(acc[i]));
  return out;
}

// The index along `axis` each output position takes: a NaN first seen wins for good; else a
// strictly better value (a tie keeps the earlier index).
Array arg_best(const char* what, const Array& x, int64_t axis, DType index_dtype, bool largest) {
  const Reduction r = plan(what, x, {axis});
  require(index_dtype == DType::i32, std::string(what) + ": index_dtype must be i32");
  require(x.shape[size_t(axis)] > 0, std::string(what) + ": the reduced axis is empty");
  const size_t n = static_cast<size_t>(shape_numel(r.out_shape));
  std::vector<double> best(n);
  std::vector<int64_t> at(n, -1);
  std::vector<int64_t> idx(x.shape.size(), 0);
  for_each_into(x, r, [&](int64_t o, double v) {
    const int64_t i = idx[size_t(axis)];
    next_index(idx, x.shape);
    if (at[o] >= 0 && (std::isnan(best[o]) || !(std::isnan(v) || (largest ? v > best[o] : v < best[o])))) return;
    best[o] = v, at[o] = i;
  });
  Array out{r.out_shape, index_dtype, std::vector<double>(n)};
  for (size_t i = 0; i < n; ++i) out.data[i] = double(at[i]);
  return out;
}
}  // namespace

Array reduce_and(const Array& x, std::vector<int64_t> axes) { return reduce_bits("reduce_and", x, axes, true); }
Array reduce_or(const Array& x, std::vector<int64_t> axes) { return reduce_bits("reduce_or", x, axes, false); }
Array argmax(const Array& x, int64_t axis, DType index_dtype) { return arg_best("argmax", x, axis, index_dtype, true); }
Array argmin(const Array& x, int64_t axis, DType index_dtype) { return arg_best("argmin", x, axis, index_dtype, false); }

}  // namespace tandem::ref
