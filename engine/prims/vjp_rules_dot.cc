// Reverse-mode rule for dot_general: both transposes reuse the eqn's precision, as JAX
// does. (scan, like checkpoint, is linearized by the vjp pass itself: its body is split by
// the remat policy, see engine/passes/vjp_scan.h.)
#include <algorithm>

#include "engine/core/error.h"
#include "engine/ir/vjp_args.h"
#include "engine/prims/dot_general.h"

namespace tandem {
namespace {
using Cts = std::vector<std::optional<Value>>;

std::vector<int64_t> free_dims(int rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> r;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) r.push_back(d);
  return r;
}
std::vector<int64_t> range(int64_t lo, int64_t hi) {
  std::vector<int64_t> r;
  for (int64_t i = lo; i < hi; ++i) r.push_back(i);
  return r;
}

// Where each result axis of dot(g, other) comes from in this operand (g's own free axes are
// this operand's free dims; other's remaining axes, its contracting dims in increasing order,
// are this operand's contracting dims they paired with), in the order `swapped` puts them:
// [batch, this-free, paired] for dot(g, other), [batch, paired, this-free] for dot(other, g).
std::vector<int64_t> result_dims(const std::vector<int64_t>& this_b, const std::vector<int64_t>& this_free,
                                 const std::vector<int64_t>& this_c, const std::vector<int64_t>& other_c,
                                 const std::vector<int64_t>& other_remaining, bool swapped) {
  std::vector<int64_t> paired;
  for (int64_t od : other_remaining)
    paired.push_back(this_c[size_t(std::find(other_c.begin(), other_c.end(), od) - other_c.begin())]);
  const std::vector<int64_t>& first = swapped ? paired : this_free;
  const std::vector<int64_t>& second = swapped ? this_free : paired;
  std::vector<int64_t> dims(this_b);
  dims.insert(dims.end(), first.begin(), first.end());
  dims.insert(dims.end(), second.begin(), second.end());
  return dims;
}

bool is_identity(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != int64_t(i)) return false;
  return true;
}

// Cotangent of one operand ("this") of dot_general: dot(g, other) contracted over other's free
// axes, then transposed into this operand's layout, as JAX's transpose rule writes it — or
// dot(other, g), the same products with the operands swapped, when that result is already in
// this operand's layout (a weight's cotangent, dW = xᵀ·g): no transpose to materialise, as
// XLA's simplifier folds JAX's transpose into the dot.
Value dot_transpose(Value g, Value other, int this_rank, const std::vector<int64_t>& this_c,
                    const std::vector<int64_t>& this_b, const std::vector<int64_t>& other_c,
                    const std::vector<int64_t>& other_b, bool this_is_lhs, const Params& p, DType this_dtype) {
  int64_t nb = int64_t(this_b.size());
  std::vector<int64_t> this_free = free_dims(this_rank, this_c, this_b);
  std::vector<int64_t> other_free = free_dims(other.rank(), other_c, other_b);
  int64_t nf = int64_t(this_free.size()), of = int64_t(other_free.size());
  // g's axes: [batch][lhs free][rhs free]
  std::vector<int64_t> g_other = this_is_lhs ? range(nb + nf, nb + nf + of) : range(nb, nb + of);
  const std::vector<int64_t> other_remaining = free_dims(other.rank(), other_b, other_free);
  std::vector<int64_t> axis_dim = result_dims(this_b, this_free, this_c, other_c, other_remaining, false);
  const bool swap = !is_identity(axis_dim) &&
                    is_identity(result_dims(this_b, this_free, this_c, other_c, other_remaining, true));
  if (swap) axis_dim = result_dims(this_b, this_free, this_c, other_c, other_remaining, true);
  if (other.dtype() != g.dtype()) g = convert_element_type(g, other.dtype());
  std::optional<DType> pref;
  if (p.has("preferred_element_type")) pref = p.get_dtype("preferred_element_type");
  // Under an ANY_F8 preset g takes this operand's f8 format and `other` keeps its own.
  std::optional<F8Operands> f8;
  if (p.has("lhs_f8_format") || p.has("rhs_f8_format")) {
    const F8Format lhs = *parse_f8_format(p.get_string("lhs_f8_format", "e4m3fn")),
                   rhs = *parse_f8_format(p.get_string("rhs_f8_format", "e4m3fn"));
    const F8Format g_format = this_is_lhs ? lhs : rhs, other_format = this_is_lhs ? rhs : lhs;
    f8 = swap ? F8Operands{other_format, g_format} : F8Operands{g_format, other_format};
  }
  const std::string precision = p.get_string("precision", "DEFAULT");
  Value r = swap ? dot_general(other, g, DotDims{other_free, g_other, other_b, range(0, nb)}, precision, pref, f8)
                 : dot_general(g, other, DotDims{g_other, other_free, range(0, nb), other_b}, precision, pref, f8);
  std::vector<int64_t> perm(static_cast<size_t>(this_rank));
  for (size_t ax = 0; ax < axis_dim.size(); ++ax) perm[size_t(axis_dim[ax])] = int64_t(ax);
  if (!is_identity(axis_dim)) r = transpose(r, perm);
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

}  // namespace

void register_dot_vjp_rules() { mutable_primitive("dot_general").vjp = dot_vjp; }

}  // namespace tandem
