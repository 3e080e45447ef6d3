// conv_general_dilated: for each output element (batch n, feature o, spatial position p),
// walk the input features of o's group and the kernel window; a kernel tap at k reads the
// lhs at p·stride + k·rhs_dilation − pad_lo of the lhs dilated by lhs_dilation (a position
// between dilated elements, or in the padding, reads zero).
#include "reference/conv.h"

#include <string>

#include "reference/rounding.h"

namespace tandem::ref {
namespace {

struct Geometry {
  int64_t nsp, n_out, o_total, i_per_group, groups_f, groups_b, n_per_bgroup;
  std::vector<int64_t> lhs_sp, rhs_sp, out_sp, out_shape;
};

Geometry geometry(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs, const ConvDims& d) {
  const size_t r = lhs.size();
  require(r >= 2 && rhs.size() == r, "conv: lhs and rhs need the same rank >= 2");
  const int64_t nsp = int64_t(r) - 2;
  for (const auto* v : {&d.strides, &d.pad_lo, &d.pad_hi, &d.lhs_dilation, &d.rhs_dilation})
    require(int64_t(v->size()) == nsp, "conv: one stride, padding and dilation per spatial dimension");
  for (const auto* v : {&d.lhs_spec, &d.rhs_spec, &d.out_spec}) require(v->size() == r, "conv: specs need rank entries");
  Geometry g{nsp, 0, rhs[size_t(d.rhs_spec[0])], rhs[size_t(d.rhs_spec[1])], d.feature_group_count,
             d.batch_group_count, 0, {}, {}, {}, {}};
  require(g.groups_f >= 1 && g.groups_b >= 1 && (g.groups_f == 1 || g.groups_b == 1), "conv: bad group counts");
  const int64_t n = lhs[size_t(d.lhs_spec[0])], c = lhs[size_t(d.lhs_spec[1])];
  require(c == g.i_per_group * g.groups_f, "conv: lhs features != rhs in-features × feature_group_count");
  require(g.o_total % (g.groups_f * g.groups_b) == 0, "conv: out features not divisible by the group count");
  require(n % g.groups_b == 0, "conv: batch not divisible by batch_group_count");
  g.n_per_bgroup = n / g.groups_b;
  g.n_out = g.n_per_bgroup;
  for (int64_t s = 0; s < nsp; ++s) {
    const int64_t li = lhs[size_t(d.lhs_spec[size_t(2 + s)])], ki = rhs[size_t(d.rhs_spec[size_t(2 + s)])];
    require(d.strides[size_t(s)] >= 1 && d.lhs_dilation[size_t(s)] >= 1 && d.rhs_dilation[size_t(s)] >= 1,
            "conv: strides and dilations must be >= 1");
    const int64_t in = (li == 0 ? 0 : (li - 1) * d.lhs_dilation[size_t(s)] + 1) + d.pad_lo[size_t(s)] + d.pad_hi[size_t(s)];
    const int64_t k = ki == 0 ? 0 : (ki - 1) * d.rhs_dilation[size_t(s)] + 1;
    g.lhs_sp.push_back(li);
    g.rhs_sp.push_back(ki);
    g.out_sp.push_back(in < k ? 0 : (in - k) / d.strides[size_t(s)] + 1);
  }
  g.out_shape.assign(r, 0);
  g.out_shape[size_t(d.out_spec[0])] = g.n_out;
  g.out_shape[size_t(d.out_spec[1])] = g.o_total;
  for (int64_t s = 0; s < nsp; ++s) g.out_shape[size_t(d.out_spec[size_t(2 + s)])] = g.out_sp[size_t(s)];
  return g;
}

// Row-major offset of (b, f, spatial...) placed by spec.
int64_t offset(const std::vector<int64_t>& strides, const std::vector<int64_t>& spec, int64_t b, int64_t f,
               const std::vector<int64_t>& sp) {
  int64_t o = b * strides[size_t(spec[0])] + f * strides[size_t(spec[1])];
  for (size_t s = 0; s < sp.size(); ++s) o += sp[s] * strides[size_t(spec[2 + s])];
  return o;
}

// Advances a multi-index over `extent` (row-major); false after the last.
bool next(std::vector<int64_t>& idx, const std::vector<int64_t>& extent) {
  for (size_t s = idx.size(); s-- > 0;) {
    if (++idx[s] < extent[s]) return true;
    idx[s] = 0;
  }
  return false;
}

// Calls visit(out offset, lhs offset, rhs offset) for every product of the convolution.
template <class Visit>
void for_each_product(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs, const ConvDims& d,
                      const Geometry& g, Visit visit) {
  const auto ls = row_major_strides(lhs), rs = row_major_strides(rhs), os = row_major_strides(g.out_shape);
  const int64_t o_per_f = g.o_total / g.groups_f, o_per_b = g.o_total / g.groups_b;
  for (int64_t x : g.out_sp) if (x == 0) return;
  for (int64_t x : g.rhs_sp) if (x == 0) return;
  for (int64_t n = 0; n < g.n_out; ++n)
    for (int64_t o = 0; o < g.o_total; ++o) {
      const int64_t lb = n + (o / o_per_b) * g.n_per_bgroup, c0 = (o / o_per_f) * g.i_per_group;
      std::vector<int64_t> p(size_t(g.nsp), 0);
      do {
        const int64_t out_at = offset(os, d.out_spec, n, o, p);
        std::vector<int64_t> k(size_t(g.nsp), 0), at(size_t(g.nsp));
        do {
          bool inside = true;
          for (int64_t s = 0; s < g.nsp && inside; ++s) {
            const int64_t pos = p[size_t(s)] * d.strides[size_t(s)] + k[size_t(s)] * d.rhs_dilation[size_t(s)] - d.pad_lo[size_t(s)];
            inside = pos >= 0 && pos % d.lhs_dilation[size_t(s)] == 0 && pos / d.lhs_dilation[size_t(s)] < g.lhs_sp[size_t(s)];
            at[size_t(s)] = inside ? pos / d.lhs_dilation[size_t(s)] : 0;
          }
          if (!inside) continue;
          for (int64_t i = 0; i < g.i_per_group; ++i)
            visit(out_at, offset(ls, d.lhs_spec, lb, c0 + i, at), offset(rs, d.rhs_spec, o, i, k));
        } while (next(k, g.rhs_sp));
      } while (next(p, g.out_sp));
    }
}

}  // namespace

std::vector<int64_t> conv_output_shape(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs,
                                       const ConvDims& d) {
  return geometry(lhs, rhs, d).out_shape;
}

Array conv_general_dilated(const Array& lhs, const Array& rhs, const ConvDims& d, DType out_dtype) {
  check_array(lhs, "conv lhs");
  check_array(rhs, "conv rhs");
  require(lhs.dtype != DType::pred && rhs.dtype != DType::pred, "conv: pred operands");
  const Geometry g = geometry(lhs.shape, rhs.shape, d);
  std::vector<long double> acc(size_t(shape_numel(g.out_shape)), 0.0L);
  for_each_product(lhs.shape, rhs.shape, d, g, [&](int64_t o, int64_t l, int64_t r) {
    acc[size_t(o)] += static_cast<long double>(lhs.data[size_t(l)]) * rhs.data[size_t(r)];
  });
  Array out{g.out_shape, out_dtype, std::vector<double>(acc.size())};
  for (size_t i = 0; i < acc.size(); ++i) out.data[i] = round_to(out_dtype, double(acc[i]));
  return out;
}

std::pair<Array, Array> conv_general_dilated_vjp(const Array& lhs, const Array& rhs, const Array& ct,
                                                 const ConvDims& d) {
  const Geometry g = geometry(lhs.shape, rhs.shape, d);
  require(ct.shape == g.out_shape, "conv vjp: cotangent of " + shape_string(ct.shape) + " for an output of " +
                                       shape_string(g.out_shape));
  Array dl{lhs.shape, DType::f64, std::vector<double>(lhs.data.size(), 0.0)};
  Array dr{rhs.shape, DType::f64, std::vector<double>(rhs.data.size(), 0.0)};
  for_each_product(lhs.shape, rhs.shape, d, g, [&](int64_t o, int64_t l, int64_t r) {
    dl.data[size_t(l)] += ct.data[size_t(o)] * rhs.data[size_t(r)];
    dr.data[size_t(r)] += ct.data[size_t(o)] * lhs.data[size_t(l)];
  });
  return {dl, dr};
}

}  // namespace tandem::ref
