// Tape methods of the ops added after grad_tape.cc filled its budget: is_finite, reduce_min,
// rev, pad, cumsum and reduce_prod. Each evaluates with the reference op and records its derivative as a
// plain loop through Tape::custom (in f64, on the primal's shape).
#include <cmath>

#include "reference/elementwise.h"
#include "reference/grad_tape.h"
#include "reference/pad_rev_cumsum.h"
#include "reference/reduce.h"

namespace tandem::ref {
namespace {

// For every element of x, the flat index of its output position when `axes` are reduced.
std::vector<int64_t> out_index(const std::vector<int64_t>& shape, const std::vector<int64_t>& axes) {
  std::vector<int64_t> kept_shape, kept_of(shape.size(), -1);
  for (size_t d = 0; d < shape.size(); ++d) {
    bool reduced = false;
    for (int64_t a : axes) reduced |= a == int64_t(d);
    if (!reduced) kept_of[d] = int64_t(kept_shape.size()), kept_shape.push_back(shape[d]);
  }
  const std::vector<int64_t> st = row_major_strides(kept_shape);
  std::vector<int64_t> idx(shape.size(), 0), r(size_t(shape_numel(shape)));
  for (size_t i = 0; i < r.size(); ++i, next_index(idx, shape)) {
    int64_t o = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (kept_of[d] >= 0) o += idx[d] * st[size_t(kept_of[d])];
    r[i] = o;
  }
  return r;
}

}  // namespace

// A bool result: no gradient (JAX's is_finite has a zero derivative), as compare's.
Tape::Id Tape::is_finite(Id x) { return constant(ref::is_finite(value(x))); }

// Every position equal to its minimum gets an equal share of the cotangent (JAX's chooser rule).
Tape::Id Tape::reduce_min(Id x, std::vector<int64_t> axes) {
  const Array& xv = value(x);
  Array y = ref::reduce_min(xv, axes);
  return custom(y, {x}, [xv, y, o = out_index(xv.shape, axes)](const Array& g) {
    std::vector<double> ties(y.data.size(), 0.0);
    for (size_t i = 0; i < o.size(); ++i) ties[size_t(o[i])] += xv.data[i] == y.data[size_t(o[i])];
    Array r{xv.shape, DType::f64, std::vector<double>(xv.data.size(), 0.0)};
    for (size_t i = 0; i < o.size(); ++i)
      if (xv.data[i] == y.data[size_t(o[i])]) r.data[i] = g.data[size_t(o[i])] / ties[size_t(o[i])];
    return std::vector<Array>{r};
  });
}

// rev's cotangent is rev'd back (an f64 array, whatever the primal dtype).
Tape::Id Tape::rev(Id x, std::vector<int64_t> dimensions) {
  return custom(ref::rev(value(x), dimensions), {x},
                [dimensions](const Array& g) { return std::vector<Array>{ref::rev(g, dimensions)}; });
}

// Each operand element that lands in the output takes the cotangent there (one cropped by
// negative padding takes 0); the padding value takes the sum of the rest.
Tape::Id Tape::pad(Id x, Id padding_value, std::vector<int64_t> low, std::vector<int64_t> high,
                   std::vector<int64_t> interior) {
  Array y = ref::pad(value(x), value(padding_value), low, high, interior);
  const std::vector<int64_t> xs = value(x).shape, ys = y.shape;
  return custom(std::move(y), {x, padding_value}, [xs, ys, low, interior](const Array& g) {
    Array gx{xs, DType::f64, std::vector<double>(size_t(shape_numel(xs)), 0.0)};
    double total = 0, taken = 0;
    for (double v : g.data) total += v;
    const std::vector<int64_t> st = row_major_strides(ys);
    std::vector<int64_t> idx(xs.size(), 0), at(xs.size());
    for (size_t i = 0; i < gx.data.size(); ++i, next_index(idx, xs)) {
      bool inside = true;
      for (size_t d = 0; d < xs.size(); ++d) {
        at[d] = low[d] + idx[d] * (interior[d] + 1);
        inside &= at[d] >= 0 && at[d] < ys[d];
      }
      if (inside) taken += gx.data[i] = g.data[size_t(flat_offset(at, st))];
    }
    return std::vector<Array>{gx, Array{{}, DType::f64, {total - taken}}};
  });
}

// cumsum's cotangent is the cumsum of the cotangent the other way.
Tape::Id Tape::cumsum(Id x, int64_t axis, bool reverse) {
  return custom(ref::cumsum(value(x), axis, reverse), {x},
                [axis, reverse](const Array& g) { return std::vector<Array>{ref::cumsum(g, axis, !reverse)}; });
}

Tape::Id Tape::reduce_prod(Id x, std::vector<int64_t> axes) {
  const Array& xv = value(x);
  Array y = ref::reduce_prod(xv, axes);
  return custom(y, {x}, [xv, n = y.data.size(), o = out_index(xv.shape, axes)](const Array& g) {
    std::vector<std::vector<size_t>> members(n);  // each output's inputs, in order
    for (size_t i = 0; i < o.size(); ++i) members[size_t(o[i])].push_back(i);
    Array gx{xv.shape, DType::f64, std::vector<double>(xv.data.size(), 0.0)};
    for (size_t k = 0; k < n; ++k) {
      const std::vector<size_t>& m = members[k];
      std::vector<double> suffix(m.size() + 1, 1.0);
      for (size_t j = m.size(); j-- > 0;) suffix[j] = suffix[j + 1] * xv.data[m[j]];
      double prefix = 1.0;
      for (size_t j = 0; j < m.size(); ++j) {
        gx.data[m[j]] = g.data[k] * (prefix * suffix[j + 1]);
        prefix *= xv.data[m[j]];
      }
    }
    return std::vector<Array>{gx};
  });
}

}  // namespace tandem::ref
