// The reference's own reverse mode: a naive store-everything tape over reference ops.
// Every op evaluates with the reference (ref::unary, ref::dot_general, ...) and records its
// operands and result; gradients() walks the tape backwards once, each op's derivative
// written out as plain loops here (independent of the engine's rules in engine/prims).
// No rematerialization, no policies: it is the oracle the engine's vjp is compared with,
// itself checked against central finite differences (grad.h) in grad_tape_test.cc.
// Cotangents are f64 arrays with their primal's shape, whatever the primal dtype.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "reference/array.h"
#include "reference/dot.h"
#include "reference/gather.h"
#include "reference/reduce_window.h"

namespace tandem::ref {

class Tape {
 public:
  using Id = int;

  Id input(Array v);     // a leaf that gradients() can be asked for
  Id constant(Array v);  // a leaf no cotangent flows into (integer indices, literals)
  const Array& value(Id id) const;

  // Ops with the reference's semantics (elementwise.h, structure.h, reduce.h, dot.h). Results
  // of compare and iota, and of anything computed from constants only, carry no gradient.
  Id unary(const std::string& op, Id x);
  Id integer_pow(Id x, int64_t y);
  Id binary(const std::string& op, Id a, Id b);
  Id compare(Id a, Id b, const std::string& direction);
  Id select(Id pred, Id on_true, Id on_false);
  Id convert(Id x, DType to);
  Id broadcast_in_dim(Id x, std::vector<int64_t> shape, std::vector<int64_t> dims);
  Id reshape(Id x, std::vector<int64_t> shape);
  Id transpose(Id x, std::vector<int64_t> permutation);
  Id slice(Id x, std::vector<int64_t> start, std::vector<int64_t> limit, std::vector<int64_t> strides);
  Id dynamic_slice(Id x, std::vector<int64_t> starts, std::vector<int64_t> sizes);
  Id dynamic_update_slice(Id x, Id update, std::vector<int64_t> starts);
  Id concatenate(const std::vector<Id>& xs, int64_t dimension);
  Id reduce_sum(Id x, std::vector<int64_t> axes);
  Id reduce_max(Id x, std::vector<int64_t> axes);
  // grad_tape_more.cc: is_finite (no gradient), reduce_min, rev, pad, cumsum.
  Id is_finite(Id x);
  Id reduce_min(Id x, std::vector<int64_t> axes);
  Id rev(Id x, std::vector<int64_t> dimensions);
  Id pad(Id x, Id padding_value, std::vector<int64_t> low, std::vector<int64_t> high, std::vector<int64_t> interior);
  Id cumsum(Id x, int64_t axis, bool reverse);
  // Each element's cotangent: the output's times the product of the others in its reduction
  // (prefix times suffix, no division), so a zero operand gets the others' product.
  Id reduce_prod(Id x, std::vector<int64_t> axes);
  Id dot_general(Id lhs, Id rhs, const DotDims& dims, DType out_dtype);
  // gather.h and sort.h (grad_tape_indexing.cc); indices are values, not taped (no cotangent).
  // gather's cotangent is scattered back and scatter_add's gathered with JAX's transposes:
  // the same mode, so a window the forward fills or drops gets none.
  Id gather(Id x, const Array& indices, const GatherDims& d, std::vector<int64_t> slice_sizes, IndexMode mode,
            double fill);
  Id scatter_add(Id x, const Array& indices, Id updates, const ScatterDims& d, IndexMode mode);
  // scatter's derivative: the operand's cotangent is g where no update landed, an update's is
  // g at its position if it is the one kept there (the last), else 0.
  Id scatter(Id x, const Array& indices, Id updates, const ScatterDims& d, IndexMode mode);
  std::vector<Id> sort(const std::vector<Id>& xs, int64_t dimension, int64_t num_keys);
  // reduce_window.h (grad_tape_window.cc): a sum's cotangent goes to every element of each
  // window; a max's to the first element of each window equal to its max (XLA's
  // select_and_scatter with ge, as JAX's transpose).
  Id reduce_window_sum(Id x, const Window& w);
  Id reduce_window_max(Id x, const Window& w);

  // An op the tape has no method for (the LSTM, whose derivative lstm_ref.h writes out):
  // `value` computed by the caller from the parents' values; `backward` maps the value's
  // cotangent to each parent's cotangent, in parents' order (an empty data: none).
  using Backward = std::function<std::vector<Array>(const Array& ct)>;
  Id custom(Array value, std::vector<Id> parents, Backward backward);

  // d(sum_k <value(seed_k), ct_k>) / d value(w) for each w in wrt (zeros where no path).
  // hold (optional) sees each cotangent contribution and each value's total cotangent, with
  // the value's dtype, before it is added or flows on: a caller modelling a backward held in
  // the primal dtypes rounds (or perturbs) them there.
  using Hold = std::function<void(Array& ct, DType primal)>;
  std::vector<Array> gradients(const std::vector<std::pair<Id, Array>>& seeds,
                               const std::vector<Id>& wrt, const Hold& hold = {}) const;
  size_t size() const { return nodes_.size(); }

 private:
  struct Node {
    std::shared_ptr<const Array> value;  // shared with the backward closures that read it: no copies
    std::vector<Id> parents;
    Backward backward;
    bool needs_grad = false;
  };
  Id push(Array v, std::vector<Id> parents, Backward bw);
  Id push(std::shared_ptr<const Array> v, std::vector<Id> parents, Backward bw);
  std::shared_ptr<const Array> shared(Id id) const { return node(id).value; }
  const Node& node(Id id) const;
  std::vector<Node> nodes_;
};

}  // namespace tandem::ref
