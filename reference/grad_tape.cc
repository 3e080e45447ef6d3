// The store-everything tape (grad_tape.h): each op runs the reference op forward and records
// a closure holding whatever primal values its derivative needs; gradients() replays the
// closures in reverse. Derivatives are plain loops over row-major indices, in f64.
#include "reference/grad_tape.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "reference/elementwise.h"
#include "reference/reduce.h"
#include "reference/structure.h"

namespace tandem::ref {
namespace {

bool floating(DType t) { return t == DType::f64 || t == DType::f32 || t == DType::bf16 || t == DType::f16; }

// A cotangent: f64 zeros of a shape.
Array zeros_like(const std::vector<int64_t>& shape) { return Array{shape, DType::f64, std::vector<double>(size_t(shape_numel(shape)), 0.0)}; }
Array none() { return Array{{}, DType::f64, {}}; }  // "no contribution"

// Sums a full-size cotangent down to a rank-0 operand that was broadcast against it.
Array to_operand(const Array& g, const Array& operand) {
  if (!operand.shape.empty() || g.shape.empty()) return g;
  double s = 0;
  for (double v : g.data) s += v;
  return Array{{}, DType::f64, {s}};
}
double at(const Array& x, size_t i) { return x.shape.empty() ? x.data[0] : x.data[i]; }

// For every output position of a reduction or broadcast, the flat index into the smaller
// array that keeps only the dims in `kept` (in order). Visits all positions of `full`.
template <class F>
void for_each_kept(const std::vector<int64_t>& full, const std::vector<int64_t>& kept, F f) {
  std::vector<int64_t> small;
  for (int64_t d : kept) small.push_back(full[size_t(d)]);
  std::vector<int64_t> st = row_major_strides(small), idx(full.size(), 0);
  for (int64_t i = 0, n = shape_numel(full); i < n; ++i) {
    int64_t o = 0;
    for (size_t k = 0; k < kept.size(); ++k) o += idx[size_t(kept[k])] * st[k];
    f(i, o);
    next_index(idx, full);
  }
}

std::vector<int64_t> clamp_starts(std::vector<int64_t> s, const std::vector<int64_t>& x,
                                  const std::vector<int64_t>& window) {
  for (size_t i = 0; i < s.size(); ++i) s[i] = std::clamp<int64_t>(s[i], 0, x[i] - window[i]);
  return s;
}

std::vector<int64_t> kept_dims(size_t rank, const std::vector<int64_t>& axes) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < int64_t(rank); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(d);
  return kept;
}

}  // namespace

Tape::Id Tape::push(Array v, std::vector<Id> parents, Backward bw) {
  return push(std::make_shared<const Array>(std::move(v)), std::move(parents), std::move(bw));
}
Tape::Id Tape::push(std::shared_ptr<const Array> v, std::vector<Id> parents, Backward bw) {
  Node n{std::move(v), std::move(parents), std::move(bw), false};
  for (Id p : n.parents) n.needs_grad = n.needs_grad || node(p).needs_grad;
  if (!n.backward) n.needs_grad = false;
  nodes_.push_back(std::move(n));
  return Id(nodes_.size() - 1);
}
const Tape::Node& Tape::node(Id id) const {
  require(id >= 0 && size_t(id) < nodes_.size(), "Tape: unknown value id " + std::to_string(id));
  return nodes_[size_t(id)];
}
Tape::Id Tape::input(Array v) {
  check_array(v, "Tape::input");
  nodes_.push_back(Node{std::make_shared<const Array>(std::move(v)), {}, nullptr, true});
  return Id(nodes_.size() - 1);
}
Tape::Id Tape::constant(Array v) { return push(std::move(v), {}, nullptr); }
Tape::Id Tape::custom(Array value, std::vector<Id> parents, Backward backward) {
  check_array(value, "Tape::custom");
  for (Id p : parents) node(p);  // rejects an unknown id now, not in gradients()
  return push(std::move(value), std::move(parents), std::move(backward));
}
const Array& Tape::value(Id id) const { return *node(id).value; }

Tape::Id Tape::unary(const std::string& op, Id x) {
  auto yv = std::make_shared<const Array>(ref::unary(op, value(x)));
  auto d = unary_op(op).derivative;
  // No derivative (stop_gradient), no parent: nothing flows back, as JAX's symbolic zero (a
  // NaN cotangent times 0 would be NaN).
  if (!d) return push(yv, {}, [](const Array&) { return std::vector<Array>{}; });
  auto xv = shared(x);
  return push(yv, {x}, [d, xv, yv](const Array& g) {
    Array r = zeros_like(xv->shape);
    for (size_t i = 0; i < r.data.size(); ++i) r.data[i] = g.data[i] * d(xv->data[i], yv->data[i]);
    return std::vector<Array>{r};
  });
}

Tape::Id Tape::integer_pow(Id x, int64_t n) {
  auto xv = shared(x);
  return push(ref::integer_pow(*xv, n), {x}, [xv, n](const Array& g) {
    Array r = zeros_like(xv->shape);
    for (size_t i = 0; i < r.data.size(); ++i)
      r.data[i] = n == 0 ? 0 : g.data[i] * double(n) * std::pow(xv->data[i], double(n - 1));
    return std::vector<Array>{r};
  });
}

Tape::Id Tape::binary(const std::string& op, Id a, Id b) {
  auto av = shared(a), bv = shared(b);
  Array out = ref::binary(op, *av, *bv);
  auto backward = binary_op(op).backward;  // looked up once, not per element
  return push(std::move(out), {a, b}, [backward, av, bv](const Array& g) {
    Array ga = zeros_like(g.shape), gb = zeros_like(g.shape);
    for (size_t i = 0; i < g.data.size(); ++i) backward(at(*av, i), at(*bv, i), g.data[i], ga.data[i], gb.data[i]);
    return std::vector<Array>{to_operand(ga, *av), to_operand(gb, *bv)};
  });
}

Tape::Id Tape::compare(Id a, Id b, const std::string& direction) {
  return push(ref::compare(value(a), value(b), direction), {a, b}, nullptr);
}

Tape::Id Tape::select(Id pred, Id t, Id f) {
  auto p = shared(pred);
  return push(ref::select(*p, value(t), value(f)), {pred, t, f}, [p](const Array& g) {
    Array gt = zeros_like(g.shape), gf = zeros_like(g.shape);
    for (size_t i = 0; i < g.data.size(); ++i) (at(*p, i) != 0 ? gt : gf).data[i] = g.data[i];
    return std::vector<Array>{none(), gt, gf};
  });
}

Tape::Id Tape::convert(Id x, DType to) {
  bool diff = floating(value(x).dtype) && floating(to);
  return push(ref::convert(value(x), to), {x},
              diff ? Backward([](const Array& g) { return std::vector<Array>{g}; }) : nullptr);
}

Tape::Id Tape::broadcast_in_dim(Id x, std::vector<int64_t> shape, std::vector<int64_t> dims) {
  Array y = ref::broadcast_in_dim(value(x), shape, dims);
  return push(std::move(y), {x}, [xs = value(x).shape, shape, dims](const Array& g) {
    // Out position -> operand position: operand dim i follows out dim dims[i] (or stays 0
    // where the operand has size 1 and is repeated).
    Array r = zeros_like(xs);
    std::vector<int64_t> st = row_major_strides(xs), idx(shape.size(), 0);
    for (size_t i = 0; i < g.data.size(); ++i) {
      int64_t o = 0;
      for (size_t k = 0; k < dims.size(); ++k)
        if (xs[k] != 1) o += idx[size_t(dims[k])] * st[k];
      r.data[size_t(o)] += g.data[i];
      next_index(idx, shape);
    }
    return std::vector<Array>{r};
  });
}

Tape::Id Tape::reshape(Id x, std::vector<int64_t> shape) {
  std::vector<int64_t> from = value(x).shape;
  return push(ref::reshape(value(x), shape), {x}, [from](const Array& g) {
    return std::vector<Array>{Array{from, DType::f64, g.data}};
  });
}

Tape::Id Tape::transpose(Id x, std::vector<int64_t> perm) {
  std::vector<int64_t> from = value(x).shape;
  Array y = ref::transpose(value(x), perm);
  std::vector<int64_t> out_shape = y.shape;
  return push(std::move(y), {x}, [from, perm, out_shape](const Array& g) {
    Array r = zeros_like(from);
    std::vector<int64_t> st = row_major_strides(from), idx(out_shape.size(), 0);
    for (size_t i = 0; i < g.data.size(); ++i) {
      int64_t o = 0;
      for (size_t k = 0; k < perm.size(); ++k) o += idx[k] * st[size_t(perm[k])];
      r.data[size_t(o)] = g.data[i];
      next_index(idx, out_shape);
    }
    return std::vector<Array>{r};
  });
}

Tape::Id Tape::slice(Id x, std::vector<int64_t> start, std::vector<int64_t> limit,
                     std::vector<int64_t> strides) {
  std::vector<int64_t> from = value(x).shape;
  Array y = ref::slice(value(x), start, limit, strides);
  if (strides.empty()) strides.assign(from.size(), 1);
  std::vector<int64_t> out_shape = y.shape;
  return push(std::move(y), {x}, [from, start, strides, out_shape](const Array& g) {
    Array r = zeros_like(from);
    std::vector<int64_t> st = row_major_strides(from), idx(out_shape.size(), 0);
    for (size_t i = 0; i < g.data.size(); ++i) {
      int64_t o = 0;
      for (size_t k = 0; k < idx.size(); ++k) o += (start[k] + idx[k] * strides[k]) * st[k];
      r.data[size_t(o)] += g.data[i];
      next_index(idx, out_shape);
    }
    return std::vector<Array>{r};
  });
}

Tape::Id Tape::dynamic_slice(Id x, std::vector<int64_t> starts, std::vector<int64_t> sizes) {
  std::vector<int64_t> from = value(x).shape;
  Array y = ref::dynamic_slice(value(x), starts, sizes);
  std::vector<int64_t> s = clamp_starts(starts, from, sizes);  // as the op clamps them
  return push(std::move(y), {x}, [from, s, sizes](const Array& g) {
    Array r = zeros_like(from);
    std::vector<int64_t> st = row_major_strides(from), idx(sizes.size(), 0);
    for (size_t i = 0; i < g.data.size(); ++i) {
      int64_t o = 0;
      for (size_t k = 0; k < idx.size(); ++k) o += (s[k] + idx[k]) * st[k];
      r.data[size_t(o)] += g.data[i];
      next_index(idx, sizes);
    }
    return std::vector<Array>{r};
  });
}

Tape::Id Tape::dynamic_update_slice(Id x, Id update, std::vector<int64_t> starts) {
  std::vector<int64_t> from = value(x).shape, us = value(update).shape;
  Array y = ref::dynamic_update_slice(value(x), value(update), starts);
  std::vector<int64_t> s = clamp_starts(starts, from, us);
  return push(std::move(y), {x, update}, [from, us, s](const Array& g) {
    Array gx = g, gu = zeros_like(us);
    gx.dtype = DType::f64;
    std::vector<int64_t> st = row_major_strides(from), idx(us.size(), 0);
    for (size_t i = 0; i < gu.data.size(); ++i) {  // the window: to the update, not to x
      int64_t o = 0;
      for (size_t k = 0; k < idx.size(); ++k) o += (s[k] + idx[k]) * st[k];
      gu.data[i] = g.data[size_t(o)];
      gx.data[size_t(o)] = 0;
      next_index(idx, us);
    }
    return std::vector<Array>{gx, gu};
  });
}

Tape::Id Tape::concatenate(const std::vector<Id>& xs, int64_t dim) {
  std::vector<Array> vals;
  for (Id x : xs) vals.push_back(value(x));
  Array y = ref::concatenate(vals, dim);
  std::vector<std::vector<int64_t>> shapes;
  for (const Array& v : vals) shapes.push_back(v.shape);
  std::vector<int64_t> out_shape = y.shape;
  return push(std::move(y), xs, [shapes, dim, out_shape](const Array& g) {
    std::vector<Array> r;
    int64_t off = 0;
    for (const auto& s : shapes) {
      Array part = zeros_like(s);
      std::vector<int64_t> st = row_major_strides(out_shape), idx(s.size(), 0);
      for (size_t i = 0; i < part.data.size(); ++i) {
        int64_t o = 0;
        for (size_t k = 0; k < idx.size(); ++k) o += (idx[k] + (int64_t(k) == dim ? off : 0)) * st[k];
        part.data[i] = g.data[size_t(o)];
        next_index(idx, s);
      }
      off += s[size_t(dim)];
      r.push_back(std::move(part));
    }
    return r;
  });
}

Tape::Id Tape::reduce_sum(Id x, std::vector<int64_t> axes) {
  std::vector<int64_t> from = value(x).shape, kept = kept_dims(from.size(), axes);
  return push(ref::reduce_sum(value(x), axes), {x}, [from, kept](const Array& g) {
    Array r = zeros_like(from);
    for_each_kept(from, kept, [&](int64_t i, int64_t o) { r.data[size_t(i)] = g.data[size_t(o)]; });
    return std::vector<Array>{r};
  });
}

Tape::Id Tape::reduce_max(Id x, std::vector<int64_t> axes) {
  auto xp = shared(x);
  auto yp = std::make_shared<const Array>(ref::reduce_max(*xp, axes));
  std::vector<int64_t> kept = kept_dims(xp->shape.size(), axes);
  return push(yp, {x}, [xp, yp, kept](const Array& g) {
    const Array &xv = *xp, &yv = *yp;
    // Every position equal to its max gets an equal share of the cotangent.
    std::vector<double> ties(yv.data.size(), 0.0);
    for_each_kept(xv.shape, kept, [&](int64_t i, int64_t o) { ties[size_t(o)] += xv.data[size_t(i)] == yv.data[size_t(o)]; });
    Array r = zeros_like(xv.shape);
    for_each_kept(xv.shape, kept, [&](int64_t i, int64_t o) {
      if (xv.data[size_t(i)] == yv.data[size_t(o)]) r.data[size_t(i)] = g.data[size_t(o)] / ties[size_t(o)];
    });
    return std::vector<Array>{r};
  });
}

// The cotangent of one dot operand: g contracted with the other operand over the other's free dims (batch dims stay
// batch), then transposed into this operand's axis order (a no-op for plain matmuls). g's axes are [batch..., lhs
// free..., rhs free...]; `mine`/`other` are this operand's and the other's (batch, contract) axes; mine_is_lhs orders g
// and other like the forward (lhs's cotangent: g·other, rhs's: other·g), so that the result comes out [batch, lhs-side
// axes, rhs-side axes]. A dot of the reference's own (compensated sums), cache-blocked and threaded like the forward.
Array dot_operand_ct(const Array& g, const Array& other, const std::vector<int64_t>& my_shape,
                     const std::vector<int64_t>& my_batch, const std::vector<int64_t>& my_contract,
                     const std::vector<int64_t>& other_batch, const std::vector<int64_t>& other_contract,
                     bool mine_is_lhs) {
  std::vector<int64_t> my_free, other_free;
  for (int64_t a : kept_dims(my_shape.size(), my_batch))
    if (std::find(my_contract.begin(), my_contract.end(), a) == my_contract.end()) my_free.push_back(a);
  for (int64_t a : kept_dims(other.shape.size(), other_batch))
    if (std::find(other_contract.begin(), other_contract.end(), a) == other_contract.end()) other_free.push_back(a);
  const int64_t nb = int64_t(my_batch.size()), nmf = int64_t(my_free.size()), nc = int64_t(my_contract.size());
  // g's axes holding the other operand's free dims, which this dot contracts away.
  std::vector<int64_t> g_other, g_batch;
  for (size_t f = 0; f < other_free.size(); ++f) g_other.push_back(nb + (mine_is_lhs ? nmf : 0) + int64_t(f));
  for (int64_t b = 0; b < nb; ++b) g_batch.push_back(b);
  Array res = mine_is_lhs ? ref::dot_general(g, other, DotDims{g_other, other_free, g_batch, other_batch}, DType::f64)
                          : ref::dot_general(other, g, DotDims{other_free, g_other, other_batch, g_batch}, DType::f64);
  // res: [batch, my free, partners of my contract axes (ascending)] for lhs, [batch, partners,
  // my free] for rhs. perm[a]: where my axis a sits in res.
  std::vector<int64_t> perm(my_shape.size()), oc_sorted = other_contract;
  std::sort(oc_sorted.begin(), oc_sorted.end());
  const int64_t free0 = mine_is_lhs ? nb : nb + nc, contract0 = mine_is_lhs ? nb + nmf : nb;
  for (int64_t b = 0; b < nb; ++b) perm[size_t(my_batch[size_t(b)])] = b;
  for (int64_t f = 0; f < nmf; ++f) perm[size_t(my_free[size_t(f)])] = free0 + f;
  for (size_t q = 0; q < my_contract.size(); ++q)
    perm[size_t(my_contract[q])] = contract0 + (std::find(oc_sorted.begin(), oc_sorted.end(), other_contract[q]) - oc_sorted.begin());
  for (size_t a = 0; a < perm.size(); ++a)
    if (perm[a] != int64_t(a)) return ref::transpose(res, perm);  // my axis a is res's axis perm[a]
  return res;
}

Tape::Id Tape::dot_general(Id lhs, Id rhs, const DotDims& d, DType out_dtype) {
  auto l = shared(lhs), r = shared(rhs);
  Array y = ref::dot_general(*l, *r, d, out_dtype);
  return push(std::move(y), {lhs, rhs}, [l, r, d](const Array& g) {
    return std::vector<Array>{
        dot_operand_ct(g, *r, l->shape, d.lhs_batch, d.lhs_contract, d.rhs_batch, d.rhs_contract, true),
        dot_operand_ct(g, *l, r->shape, d.rhs_batch, d.rhs_contract, d.lhs_batch, d.lhs_contract, false)};
  });
}

std::vector<Array> Tape::gradients(const std::vector<std::pair<Id, Array>>& seeds,
                                   const std::vector<Id>& wrt, const Hold& hold) const {
  std::vector<Array> ct(nodes_.size());
  std::vector<bool> has(nodes_.size(), false);
  auto accumulate = [&](Id id, Array&& g) {
    const Node& n = node(id);
    if (g.data.size() != n.value->data.size())
      require(false, "Tape::gradients: cotangent of " + shape_string(g.shape) + " for a value of " + shape_string(n.value->shape));
    if (!has[size_t(id)]) {
      ct[size_t(id)] = Array{n.value->shape, DType::f64, std::move(g.data)};
      has[size_t(id)] = true;
      return;
    }
    for (size_t i = 0; i < g.data.size(); ++i) ct[size_t(id)].data[i] += g.data[i];
  };
  std::vector<bool> wanted(nodes_.size(), false);
  for (Id w : wrt) wanted[size_t(w)] = (node(w), true);  // node() rejects an unknown id
  for (const auto& [id, g] : seeds)
    if (node(id).needs_grad) accumulate(id, Array(g));
  for (size_t i = nodes_.size(); i-- > 0;) {
    const Node& n = nodes_[i];
    if (!has[i]) continue;
    if (hold) hold(ct[i], n.value->dtype);
    if (!n.backward) continue;
    std::vector<Array> parts = n.backward(ct[i]);
    if (!wanted[i]) ct[i].data = std::vector<double>();  // spent: free it now
    for (size_t p = 0; p < n.parents.size(); ++p) {
      const Node& parent = nodes_[size_t(n.parents[p])];
      // An empty part is no cotangent, unless the parent itself has no element: then it is
      // one (JAX's cotangent of a zero-size value is an array, not a symbolic zero, and its
      // transpose, a slice's pad, say, makes zeros that reach the rest of the program).
      const bool none = parts[p].data.empty() && !parent.value->data.empty();
      if (none || !parent.needs_grad) continue;
      if (hold) hold(parts[p], parent.value->dtype);  // each contribution, as a rule's result is held
      accumulate(n.parents[p], std::move(parts[p]));
    }
  }
  std::vector<Array> r;
  for (Id w : wrt) r.push_back(has[size_t(w)] ? ct[size_t(w)] : zeros_like(node(w).value->shape));
  return r;
}

}  // namespace tandem::ref
