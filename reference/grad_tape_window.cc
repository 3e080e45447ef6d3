// The tape's reduce_window_max and reduce_window_sum (grad_tape.h): the reference op and its
// derivative as plain loops over the windows (reduce_window.h).
#include <cmath>
#include <memory>

#include "reference/grad_tape.h"

namespace tandem::ref {

Tape::Id Tape::reduce_window_sum(Id x, const Window& w) {
  const std::vector<int64_t> shape = value(x).shape;
  return push(ref::reduce_window_sum(value(x), w), {x}, [shape, w](const Array& g) {
    // Every operand element in a window gets that window's cotangent.
    Array r = full(shape, DType::f64, 0);
    const std::vector<int64_t> st = row_major_strides(shape);
    std::vector<int64_t> o(g.shape.size(), 0);
    for (double gv : g.data) {
      std::vector<int64_t> k(w.dims.size(), 0);
      for (int64_t n = 0; n < shape_numel(w.dims); ++n) {
        if (auto at = window_element(shape, w, o, k)) r.data[size_t(flat_offset(*at, st))] += gv;
        next_index(k, w.dims);
      }
      next_index(o, g.shape);
    }
    return std::vector<Array>{r};
  });
}

Tape::Id Tape::reduce_window_max(Id x, const Window& w) {
  auto xp = std::make_shared<const Array>(value(x));
  auto yp = std::make_shared<const Array>(ref::reduce_window_max(*xp, w));
  return push(*yp, {x}, [xp, yp, w](const Array& g) {
    // Each window's cotangent goes to its first element equal to the max, in window order
    // (XLA's select_and_scatter with ge); padding is never chosen, a dilation hole (-inf) can
    // be, and then the cotangent is dropped.
    const Array& xv = *xp;
    Array r = full(xv.shape, DType::f64, 0);
    const std::vector<int64_t> st = row_major_strides(xv.shape);
    std::vector<int64_t> o(g.shape.size(), 0);
    for (size_t i = 0; i < g.data.size(); ++i) {
      std::vector<int64_t> k(w.dims.size(), 0);
      for (int64_t n = 0; n < shape_numel(w.dims); ++n) {
        bool padding = false;
        auto at = window_element(xv.shape, w, o, k, &padding);
        const double v = at ? xv.data[size_t(flat_offset(*at, st))] : -INFINITY;
        if (!padding && v == yp->data[i]) {
          if (at) r.data[size_t(flat_offset(*at, st))] += g.data[i];
          break;
        }
        next_index(k, w.dims);
      }
      next_index(o, g.shape);
    }
    return std::vector<Array>{r};
  });
}

}  // namespace tandem::ref
