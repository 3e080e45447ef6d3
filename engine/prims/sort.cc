// sort (JAX's lax.sort_p): one or more operands of one shape, sorted together along
// `dimension` by the first num_keys of them, lexicographically. Floats follow JAX's
// comparator (_sort_lt_comparator over _canonicalize_float_for_sort): -0.0 and 0.0 compare
// equal, every NaN equal to the others and after +inf. The CPU impl is always stable, which
// an is_stable=false sort may be too, so the vjp's re-sort finds the same permutation.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/core/error.h"
#include "engine/prims/primitive_of.h"

namespace tandem {
namespace {

std::vector<AType> sort_shape(const std::vector<AType>& in, const Params& p) {
  if (in.empty()) throw_bad_input("sort takes at least one operand", "pass the keys (and any values to carry along)");
  for (const AType& t : in)
    if (t.shape != in[0].shape)
      throw_bad_input(cat("sort: operand ", t.str(), " does not match ", in[0].str()), "every operand has one shape");
  if (in[0].rank() == 0) throw_bad_input("sort of a scalar", "sort arrays of rank >= 1");
  int64_t dim = p.get_int("dimension");
  if (dim < 0 || dim >= in[0].rank())
    throw_bad_input(cat("sort: dimension ", dim, " is outside rank ", in[0].rank()),
                    "JAX's sort_p takes a dimension in [0, rank) (jnp.sort normalizes negative axes)");
  int64_t k = p.get_int("num_keys", 1);
  if (k < 1 || k > int64_t(in.size()))
    throw_bad_input(cat("sort: num_keys ", k, " for ", in.size(), " operands"), "need 1 <= num_keys <= operands");
  return in;
}

// JAX's order: NaN last (all NaNs tie), -0.0 == 0.0; integers and bools as numbers.
bool key_less(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

std::vector<Tensor> sort_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  const Shape& s = in[0].shape();
  const int dim = int(p.get_int("dimension"));
  const size_t keys = size_t(p.get_int("num_keys", 1));
  const int64_t n = s[size_t(dim)], stride = row_major_strides(s)[size_t(dim)];
  const int64_t rows = n == 0 ? 0 : in[0].numel() / n;
  std::vector<Tensor> out;
  for (const Tensor& x : in) out.push_back(Tensor::empty(s, x.dtype()));
  std::vector<std::vector<double>> key(keys, std::vector<double>(size_t(n)));
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = (r / stride) * stride * n + r % stride;  // row r's first element
    for (size_t k = 0; k < keys; ++k)
      for (int64_t j = 0; j < n; ++j) key[k][size_t(j)] = load_as_f64(in[k].raw(), in[k].dtype(), base + j * stride);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      for (size_t k = 0; k < keys; ++k) {
        double x = key[k][size_t(a)], y = key[k][size_t(b)];
        if (key_less(x, y)) return true;
        if (key_less(y, x)) return false;
      }
      return false;
    });
    for (size_t o = 0; o < in.size(); ++o) {
      const size_t e = size_t(dtype_size(in[o].dtype()));
      const char* src = static_cast<const char*>(in[o].raw());
      char* dst = static_cast<char*>(out[o].raw());
      for (int64_t j = 0; j < n; ++j)
        std::copy_n(src + (base + perm[size_t(j)] * stride) * int64_t(e), e, dst + (base + j * stride) * int64_t(e));
    }
  }
  return out;
}
}  // namespace

void register_sort_primitive() {
  register_primitive(primitive_of("sort", kStructural, {"dimension", "is_stable", "num_keys"}, sort_shape, sort_cpu));
}

}  // namespace tandem
