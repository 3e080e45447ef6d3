// conv_general_dilated's CPU impl. f32 in and out: im2col — per group and output batch
// entry, the windows as rows of a [positions, in-features × taps] matrix — times the kernel
// as a [in-features × taps, group out-features] matrix through the engine's sgemm
// (engine/cpu/sgemm.h), whatever the precision param (f32 on the CPU, as XLA:CPU). Other
// dtypes: a direct loop accumulating in f64, rounded once to the output dtype.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/cpu/sgemm.h"
#include "engine/prims/conv.h"

namespace tandem {
namespace {

struct Layout {
  ConvSpec s;
  ConvGeometry g;
  std::vector<int64_t> ls, rs, os;  // row-major strides of lhs, rhs, out
  int64_t positions = 1, taps = 1;  // output spatial positions, kernel taps
  // For each (position, tap): the lhs spatial offset it reads, or -1 (padding, a dilation hole).
  std::vector<int64_t> window;
};

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> r(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) r[d - 1] = r[d] * s[d];
  return r;
}

// Advances a multi-index over `extent` (row-major); false after the last.
bool next(std::vector<int64_t>& idx, const std::vector<int64_t>& extent) {
  for (size_t d = idx.size(); d-- > 0;) {
    if (++idx[d] < extent[d]) return true;
    idx[d] = 0;
  }
  return false;
}

int64_t lhs_spatial_offset(const Layout& L, const std::vector<int64_t>& p, const std::vector<int64_t>& k) {
  int64_t off = 0;
  for (int64_t d = 0; d < L.g.nsp; ++d) {
    const size_t x = size_t(d);
    const int64_t pos = p[x] * L.s.window_strides[x] + k[x] * L.s.rhs_dilation[x] - L.s.pad_lo[x];
    if (pos < 0 || pos % L.s.lhs_dilation[x] != 0 || pos / L.s.lhs_dilation[x] >= L.g.lhs_sp[x]) return -1;
    off += pos / L.s.lhs_dilation[x] * L.ls[size_t(L.s.lhs_spec[x + 2])];
  }
  return off;
}

Layout layout(const Tensor& lhs, const Tensor& rhs, const Params& p) {
  Layout L{conv_spec(p), {}, strides_of(lhs.shape()), strides_of(rhs.shape()), {}, 1, 1, {}};
  L.g = conv_geometry(lhs.type(), rhs.type(), L.s);
  L.os = strides_of(L.g.out.shape);
  for (int64_t x : L.g.out_sp) L.positions *= x;
  for (int64_t x : L.g.rhs_sp) L.taps *= x;
  if (L.positions == 0 || L.taps == 0) return L;
  L.window.reserve(size_t(L.positions * L.taps));
  std::vector<int64_t> pi(size_t(L.g.nsp), 0);
  do {
    std::vector<int64_t> k(size_t(L.g.nsp), 0);
    do L.window.push_back(lhs_spatial_offset(L, pi, k));
    while (next(k, L.g.rhs_sp));
  } while (next(pi, L.g.out_sp));
  return L;
}

// Offset of the spatial index `flat` (row-major over extent) laid out by spec[2..].
int64_t spatial_offset(int64_t flat, const std::vector<int64_t>& extent, const std::vector<int64_t>& spec,
                       const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t d = extent.size(); d-- > 0;) {
    off += (flat % extent[d]) * strides[size_t(spec[d + 2])];
    flat /= extent[d];
  }
  return off;
}

// The group of out feature block g reads lhs batch lb(n) and features c0 + [0, i).
struct GroupPick {
  int64_t batch0, feature0;
};
GroupPick pick(const Layout& L, int64_t g) {
  return {L.s.batch_group_count > 1 ? g * L.g.n_out : 0, L.s.feature_group_count > 1 ? g * L.g.i : 0};
}

void conv_f32(const Layout& L, const float* lhs, const float* rhs, float* out) {
  const int64_t og = L.g.o / L.g.groups, K = L.g.i * L.taps, P = L.positions;
  std::vector<float> A(size_t(P * K)), W(size_t(K * og)), C(size_t(P * og));
  for (int64_t g = 0; g < L.g.groups; ++g) {
    const GroupPick gp = pick(L, g);
    for (int64_t ii = 0; ii < L.g.i; ++ii)
      for (int64_t t = 0; t < L.taps; ++t)
        for (int64_t oo = 0; oo < og; ++oo)
          W[size_t((ii * L.taps + t) * og + oo)] =
              rhs[(g * og + oo) * L.rs[size_t(L.s.rhs_spec[0])] + ii * L.rs[size_t(L.s.rhs_spec[1])] +
                  spatial_offset(t, L.g.rhs_sp, L.s.rhs_spec, L.rs)];
    for (int64_t n = 0; n < L.g.n_out; ++n) {
      const float* base = lhs + (gp.batch0 + n) * L.ls[size_t(L.s.lhs_spec[0])] + gp.feature0 * L.ls[size_t(L.s.lhs_spec[1])];
      const int64_t cstride = L.ls[size_t(L.s.lhs_spec[1])];
      for (int64_t pos = 0; pos < P; ++pos)
        for (int64_t ii = 0; ii < L.g.i; ++ii)
          for (int64_t t = 0; t < L.taps; ++t) {
            const int64_t w = L.window[size_t(pos * L.taps + t)];
            A[size_t(pos * K + ii * L.taps + t)] = w < 0 ? 0.0f : base[ii * cstride + w];
          }
      cpu::sgemm(false, false, P, og, K, 1.0f, A.data(), K, W.data(), og, 0.0f, C.data(), og);
      for (int64_t pos = 0; pos < P; ++pos) {
        const int64_t at = n * L.os[size_t(L.s.out_spec[0])] + spatial_offset(pos, L.g.out_sp, L.s.out_spec, L.os);
        for (int64_t oo = 0; oo < og; ++oo) out[at + (g * og + oo) * L.os[size_t(L.s.out_spec[1])]] = C[size_t(pos * og + oo)];
      }
    }
  }
}

// im2col writes a padded tap as a zero that the product multiplies with the weight: 0 x Inf
// is NaN where XLA (and the reference) skip the padding, so such a kernel takes the direct loop.
bool padding_meets_non_finite(const Layout& L, const Tensor& rhs) {
  if (rhs.dtype() != DType::f32 || std::find(L.window.begin(), L.window.end(), int64_t{-1}) == L.window.end())
    return false;
  const float* w = rhs.data<float>();
  for (int64_t i = 0, n = rhs.numel(); i < n; ++i)
    if (!std::isfinite(w[i])) return true;
  return false;
}

std::vector<double> conv_direct(const Layout& L, const std::vector<double>& lhs, const std::vector<double>& rhs) {
  std::vector<double> out(size_t(num_elements(L.g.out.shape)), 0.0);
  const int64_t og = L.g.o / L.g.groups;
  for (int64_t o = 0; o < L.g.o; ++o) {
    const GroupPick gp = pick(L, o / og);
    for (int64_t n = 0; n < L.g.n_out; ++n)
      for (int64_t pos = 0; pos < L.positions; ++pos) {
        double acc = 0;
        for (int64_t ii = 0; ii < L.g.i; ++ii)
          for (int64_t t = 0; t < L.taps; ++t) {
            const int64_t w = L.window[size_t(pos * L.taps + t)];
            if (w < 0) continue;
            acc += lhs[size_t((gp.batch0 + n) * L.ls[size_t(L.s.lhs_spec[0])] + (gp.feature0 + ii) * L.ls[size_t(L.s.lhs_spec[1])] + w)] *
                   rhs[size_t(o * L.rs[size_t(L.s.rhs_spec[0])] + ii * L.rs[size_t(L.s.rhs_spec[1])] +
                              spatial_offset(t, L.g.rhs_sp, L.s.rhs_spec, L.rs))];
          }
        out[size_t(n * L.os[size_t(L.s.out_spec[0])] + o * L.os[size_t(L.s.out_spec[1])] +
                   spatial_offset(pos, L.g.out_sp, L.s.out_spec, L.os))] = acc;
      }
  }
  return out;
}
}  // namespace

std::vector<Tensor> conv_general_dilated_cpu(const std::vector<Tensor>& in, const Params& p, EvalContext&) {
  const Layout L = layout(in[0], in[1], p);
  const AType& out_t = L.g.out;
  if (num_elements(out_t.shape) == 0 || L.g.i == 0 || L.taps == 0) {
    return {Tensor::from_f64(std::vector<double>(size_t(num_elements(out_t.shape)), 0.0), out_t.shape, out_t.dtype)};
  }
  if (in[0].dtype() == DType::f32 && out_t.dtype == DType::f32 && !padding_meets_non_finite(L, in[1])) {
    Tensor out = Tensor::empty(out_t.shape, DType::f32);
    conv_f32(L, in[0].data<float>(), in[1].data<float>(), out.data<float>());
    return {out};
  }
  return {Tensor::from_f64(conv_direct(L, in[0].to_f64(), in[1].to_f64()), out_t.shape, out_t.dtype)};
}

}  // namespace tandem
