// Reverse-mode rules for dot_general (both transposes reuse the eqn's precision, as JAX
// does) and scan (a reverse scan over the body's joint vjp). The scan rule recomputes the
// per-step carries with an augmented forward scan inside the backward, so a scan saves only
// its operands: the same trade as checkpointing its body with the carries saved.
#include <algorithm>

#include "engine/core/error.h"
#include "engine/passes/vjp.h"
#include "engine/prims/dot_general.h"

namespace tandem {
namespace {
using Cts = std::vector<std::optional<Value>>;

std::vector<int64_t> free_dims(int rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> r;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      r.push_back(d);
  return r;
}
std::vector<int64_t> range(int64_t lo, int64_t hi) {
  std::vector<int64_t> r;
  for (int64_t i = lo; i < hi; ++i) r.push_back(i);
  return r;
}

// Cotangent of one operand ("this") of dot_general. dot(g, other) has axes [batch,
// this-free, other-remaining]; other-remaining are the other's contracting dims in
// increasing order, each paired with one of this operand's contracting dims.
Value dot_transpose(Value g, Value other, int this_rank, const std::vector<int64_t>& this_c,
                    const std::vector<int64_t>& this_b, const std::vector<int64_t>& other_c,
                    const std::vector<int64_t>& other_b, bool this_is_lhs, const Params& p,
                    DType this_dtype) {
  int64_t nb = int64_t(this_b.size());
  std::vector<int64_t> this_free = free_dims(this_rank, this_c, this_b);
  std::vector<int64_t> other_free = free_dims(other.rank(), other_c, other_b);
  int64_t nf = int64_t(this_free.size()), of = int64_t(other_free.size());
  // g's axes: [batch][lhs free][rhs free]
  std::vector<int64_t> g_other = this_is_lhs ? range(nb + nf, nb + nf + of) : range(nb, nb + of);
  DotDims d{g_other, other_free, range(0, nb), other_b};
  if (other.dtype() != g.dtype()) g = convert_element_type(g, other.dtype());
  std::optional<DType> pref;
  if (p.has("preferred_element_type")) pref = p.get_dtype("preferred_element_type");
  Value r = dot_general(g, other, d, p.get_string("precision", "DEFAULT"), pref);
  std::vector<int64_t> axis_dim(this_b);  // which operand dim each result axis is
  axis_dim.insert(axis_dim.end(), this_free.begin(), this_free.end());
  for (int64_t od : free_dims(other.rank(), other_b, other_free)) {
    size_t k = size_t(std::find(other_c.begin(), other_c.end(), od) - other_c.begin());
    axis_dim.push_back(this_c[k]);
  }
  std::vector<int64_t> perm(static_cast<size_t>(this_rank));
  bool identity = true;
  for (size_t ax = 0; ax < axis_dim.size(); ++ax) {
    perm[size_t(axis_dim[ax])] = int64_t(ax);
    identity &= axis_dim[ax] == int64_t(ax);
  }
  if (!identity) r = transpose(r, perm);
  if (r.dtype() != this_dtype) r = convert_element_type(r, this_dtype);
  return r;
}

Cts dot_vjp(const VjpArgs& a, const Params& p) {
  DotSignature s = dot_signature(a.in_types, p);
  Cts r(2);
  if (!a.wants(0) && !a.wants(1)) return r;
  Value g = a.ct(0);
  if (a.wants(0))
    r[0] = dot_transpose(g, a.primal_in(1), a.in_types[0].rank(), s.lhs_contract, s.lhs_batch,
                         s.rhs_contract, s.rhs_batch, true, p, a.in_types[0].dtype);
  if (a.wants(1))
    r[1] = dot_transpose(g, a.primal_in(0), a.in_types[1].rank(), s.rhs_contract, s.rhs_batch,
                         s.lhs_contract, s.lhs_batch, false, p, a.in_types[1].dtype);
  return r;
}

template <class V>
std::vector<Value> part(const V& v, size_t lo, size_t n) { return {v.begin() + int64_t(lo), v.begin() + int64_t(lo + n)}; }

Cts scan_vjp(const VjpArgs& a, const Params& p) {
  const Program& body = *p.get_program("body");
  size_t nc = size_t(p.get_int("num_consts")), nk = size_t(p.get_int("num_carry"));
  int64_t T = p.get_int("length");
  bool reverse = p.get_bool("reverse", false);
  size_t nx = a.in_types.size() - nc - nk, ny = a.out_types.size() - nk;
  for (size_t i = nc; i < nc + nk; ++i)
    if (!is_floating(a.in_types[i].dtype))
      throw_unsupported("vjp of a scan with a non-floating carry", "carry only floating values");
  std::vector<Value> in;
  for (size_t i = 0; i < a.in_types.size(); ++i) in.push_back(a.primal_in(i));
  // 1. The carries entering each step, stacked: the body also emits its carry-in as a y.
  std::vector<AType> bt = body.in_types();
  Program aug = trace(bt, [&](Builder& b, const std::vector<Value>& v) {
    std::vector<Value> o = inline_program(b, body, v);
    for (size_t i = 0; i < nk; ++i) o.push_back(v[nc + i]);
    return o;
  });
  std::vector<Value> f = scan(aug, part(in, 0, nc), part(in, nc, nk), part(in, nc + nk, nx), T, reverse);
  std::vector<Value> k_stack = part(f, f.size() - nk, nk);
  // 2. Backward body: consts; carry (ct_carry, acc of const cts); xs (carry_t, x_t, ct_y_t).
  std::vector<bool> wrt;
  for (const AType& t : bt) wrt.push_back(is_floating(t.dtype));
  Program joint = vjp_joint(body, wrt);  // (consts, carry, x, ct_carry', ct_y) -> (outs, cts)
  std::vector<size_t> fc;                // floating consts
  for (size_t i = 0; i < nc; ++i)
    if (wrt[i]) fc.push_back(i);
  std::vector<AType> bo = body.out_types();
  std::vector<AType> bb_in(bt.begin(), bt.begin() + int64_t(nc));
  for (size_t i = 0; i < nk; ++i) bb_in.push_back(bt[nc + i]);
  for (size_t i : fc) bb_in.push_back(bt[i]);
  for (size_t i = nc; i < bt.size(); ++i) bb_in.push_back(bt[i]);
  for (size_t i = 0; i < ny; ++i) bb_in.push_back(bo[nk + i]);
  Program bb = trace(bb_in, [&](Builder& b, const std::vector<Value>& v) {
    std::vector<Value> ctk = part(v, nc, nk), acc = part(v, nc + nk, fc.size());
    size_t o = nc + nk + fc.size();
    std::vector<Value> jin = part(v, 0, nc), rest = part(v, o, nk + nx);
    jin.insert(jin.end(), rest.begin(), rest.end());
    jin.insert(jin.end(), ctk.begin(), ctk.end());
    std::vector<Value> cty = part(v, o + nk + nx, ny);
    jin.insert(jin.end(), cty.begin(), cty.end());
    std::vector<Value> jo = inline_program(b, joint, jin);
    size_t g = bo.size();  // skip the primal outputs
    std::vector<Value> out = part(jo, g + fc.size(), nk);
    for (size_t i = 0; i < fc.size(); ++i) out.push_back(acc[i] + jo[g + i]);
    for (size_t i = g + fc.size() + nk; i < jo.size(); ++i) out.push_back(jo[i]);
    return out;
  });
  std::vector<Value> init;
  for (size_t i = 0; i < nk; ++i) init.push_back(a.ct(i));
  for (size_t i : fc) init.push_back(zeros(*a.builder, bt[i]));
  std::vector<Value> xs = k_stack, xin = part(in, nc + nk, nx);
  xs.insert(xs.end(), xin.begin(), xin.end());
  for (size_t i = 0; i < ny; ++i) xs.push_back(a.ct(nk + i));
  std::vector<Value> r = scan(bb, part(in, 0, nc), init, xs, T, !reverse);
  Cts cts(a.in_types.size());
  for (size_t i = 0; i < fc.size(); ++i) cts[fc[i]] = r[nk + i];
  for (size_t i = 0; i < nk; ++i) cts[nc + i] = r[i];
  for (size_t i = 0, y = nk + fc.size(); i < nx; ++i)
    if (wrt[nc + nk + i]) cts[nc + nk + i] = r[y++];
  return cts;
}
}  // namespace

void register_dot_scan_vjp_rules() {
  mutable_primitive("dot_general").vjp = dot_vjp;
  mutable_primitive("scan").vjp = scan_vjp;
}

}  // namespace tandem
