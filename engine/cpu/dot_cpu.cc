// CPU dot_general kernels. The fast path (f32 or f64 inputs already in a GEMM layout, plain
// F32/F64 algorithm) hands the caller's buffers straight to BLAS with transpose flags, so
// dot_general costs what sgemm costs. Other paths convert once, permuting only if needed.
#include "engine/cpu/dot_cpu.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/cpu/dispatch.h"
#include "engine/cpu/dot_narrow.h"
#include "engine/cpu/sgemm.h"
#include "engine/cpu/strided_copy.h"

namespace tandem::cpu {
namespace {

bool is_identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != int64_t(i)) return false;
  return true;
}

// A batched operand viewed as [rows, cols] matrices, stored transposed or not.
template <class T>
struct MatOperand {
  const T* data = nullptr;
  bool trans = false;  // stored as [cols, rows]
  int64_t rows = 0, cols = 0;
  int64_t ld() const { return trans ? rows : cols; }
  int64_t batch_stride() const { return rows * cols; }
  T at(int64_t b, int64_t r, int64_t c) const {
    return trans ? data[b * batch_stride() + c * rows + r] : data[b * batch_stride() + r * cols + c];
  }
};

// 1: `perm` is the identity (stored as canonical); 2: it is the identity with the two
// non-batch axis groups swapped (stored transposed); 0: needs a permuting copy.
int gemm_layout(const std::vector<int64_t>& perm, size_t n_batch, size_t n_first) {
  if (is_identity(perm)) return 1;
  size_t n_second = perm.size() - n_batch - n_first;
  std::vector<int64_t> swapped(perm.size());
  std::iota(swapped.begin(), swapped.begin() + long(n_batch), 0);
  for (size_t i = 0; i < n_first; ++i) swapped[n_batch + i] = int64_t(n_batch + n_second + i);
  for (size_t i = 0; i < n_second; ++i) swapped[n_batch + n_first + i] = int64_t(n_batch + i);
  return perm == swapped ? 2 : 0;
}

template <class T> constexpr DType dtype_of() {
  return std::is_same_v<T, double> ? DType::f64 : DType::f32;
}

// Views x as batched [rows, cols] T-matrices. Zero-copy when allowed and x is already T in
// a GEMM layout; otherwise converts each element through fn (rounding, splitting), keeping
// the layout when it is GEMM-ready and permuting into canonical order when not. fn is handed
// the element as a double, so a rounding taking doubles (f8) rounds an f64 input only once.
template <class T, class Fn>
MatOperand<T> as_matrix(const Tensor& x, const std::vector<int64_t>& perm, size_t n_batch, size_t n_first, int64_t rows,
                        int64_t cols, bool zero_copy_ok, Fn fn, Tensor& hold) {
  int layout = gemm_layout(perm, n_batch, n_first);
  if (zero_copy_ok && layout != 0 && x.dtype() == dtype_of<T>()) return {x.data<T>(), layout == 2, rows, cols};
  Tensor src = x;
  if (layout == 0) {
    Shape s, src_st, in_st = row_major_strides(x.shape());
    for (int64_t a : perm) { s.push_back(x.shape()[a]); src_st.push_back(in_st[a]); }
    src = Tensor::empty(s, x.dtype());
    strided_copy(x.raw(), 0, src_st, src.raw(), 0, row_major_strides(s), s, dtype_size(x.dtype()));
  }
  hold = Tensor::empty({x.numel()}, dtype_of<T>());
  T* po = hold.data<T>();
  dispatch_numeric(x.dtype(), "dot_general", [&](auto tag) {
    using S = decltype(tag);
    const S* ps = src.data<S>();
    for (int64_t i = 0, n = hold.numel(); i < n; ++i) po[i] = T(fn(double(load(ps[i]))));
  });
  return {po, layout == 2, rows, cols};
}

void sgemm_batched(const MatOperand<float>& a, const MatOperand<float>& b, float* c, const DotPlan& p, float beta) {
  // Fault: a vector kernel whose tail loop is missing drops the last term of an odd K.
  const int64_t k = fault_on(Fault::dot_odd_k_drops_last_term) && p.k % 2 ? p.k - 1 : p.k;
  for (int64_t i = 0; i < p.batch; ++i)
    sgemm(a.trans, b.trans, p.m, p.n, k, 1.0f, a.data + i * a.batch_stride(), a.ld(), b.data + i * b.batch_stride(),
          b.ld(), beta, c + i * p.m * p.n, p.n);
  // Fault (perf): the first 10% / 25% / all of the rows computed a second time, into scratch.
  const double extra = fault_on(Fault::perf_dot_extra_10pct) ? 0.10 : fault_on(Fault::perf_dot_extra_25pct) ? 0.25
                       : fault_on(Fault::perf_dot_twice) ? 1.0 : 0.0;
  if (extra == 0.0 || p.m == 0 || p.n == 0) return;
  const int64_t rows = std::max<int64_t>(1, int64_t(std::lround(extra * double(p.m))));
  std::vector<float> scratch(size_t(rows * p.n));
  for (int64_t i = 0; i < p.batch; ++i)
    sgemm(a.trans, b.trans, rows, p.n, k, 1.0f, a.data + i * a.batch_stride(), a.ld(), b.data + i * b.batch_stride(),
          b.ld(), 0.0f, scratch.data(), p.n);
}

void dgemm_batched(const MatOperand<double>& a, const MatOperand<double>& b, double* c, const DotPlan& p) {
  for (int64_t i = 0; i < p.batch; ++i)
    cblas_dgemm(CblasRowMajor, a.trans ? CblasTrans : CblasNoTrans, b.trans ? CblasTrans : CblasNoTrans, int(p.m),
                int(p.n), int(p.k), 1.0, a.data + i * a.batch_stride(), int(std::max<int64_t>(1, a.ld())),
                b.data + i * b.batch_stride(), int(std::max<int64_t>(1, b.ld())), 0.0, c + i * p.m * p.n,
                int(std::max<int64_t>(1, p.n)));
}

float truncate_bits(float x, int dropped) {
  return f32_from_bits(f32_bits(x) & ~((1u << dropped) - 1u));
}

// Partial products of split operands, smallest first, as (lhs part, rhs part) with parts
// 0 = hi, 1 = mid, 2 = lo (X3 has only hi and lo, indices 0 and 1). hi·hi comes last.
std::vector<std::pair<int, int>> split_products(int parts, int products) {
  if (parts == 2) return {{1, 0}, {0, 1}, {0, 0}};
  std::vector<std::pair<int, int>> x9 = {{2, 2}, {1, 2}, {2, 1}, {1, 1}, {2, 0}, {0, 2}, {1, 0}, {0, 1}, {0, 0}};
  return std::vector<std::pair<int, int>>(x9.end() - products, x9.end());
}

// The narrow-accumulator presets (dot_narrow.h), on row-major copies of transposed operands.
void narrow_accumulate(const MatOperand<float>& a, const MatOperand<float>& b, float* c, const DotPlan& p,
                       NarrowFormat format) {
  std::vector<float> ta, tb;
  auto row_major = [](const MatOperand<float>& x, int64_t bi, std::vector<float>& hold) {
    if (!x.trans) return x.data + bi * x.batch_stride();
    hold.resize(size_t(x.rows * x.cols));
    for (int64_t r = 0; r < x.rows; ++r)
      for (int64_t col = 0; col < x.cols; ++col) hold[size_t(r * x.cols + col)] = x.at(bi, r, col);
    return static_cast<const float*>(hold.data());
  };
  for (int64_t bi = 0; bi < p.batch; ++bi)
    narrow_matmul(row_major(a, bi, ta), p.k, row_major(b, bi, tb), p.n, c + bi * p.m * p.n, p.m, p.n, p.k, format);
}

Tensor integer_dot(const Tensor& lhs, const Tensor& rhs, const DotPlan& p, DType out_dtype) {
  Tensor hl, hr, out = Tensor::empty(p.out_shape, DType::f64);
  auto id = [](double v) { return v; };
  auto a = as_matrix<double>(lhs, p.lhs_perm, p.n_batch, p.n_lhs_free, p.m, p.k, false, id, hl);
  auto b = as_matrix<double>(rhs, p.rhs_perm, p.n_batch, p.n_contract, p.k, p.n, false, id, hr);
  double* c = out.data<double>();
  for (int64_t bi = 0; bi < p.batch; ++bi)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        int64_t acc = 0;  // wraps like two's-complement i32 once narrowed
        for (int64_t k = 0; k < p.k; ++k) acc += int64_t(a.at(bi, i, k)) * int64_t(b.at(bi, k, j));
        c[(bi * p.m + i) * p.n + j] = double(int32_t(uint32_t(uint64_t(acc))));
      }
  return out;
}

Tensor cast_result(const Tensor& acc, DType out_dtype) {
  if (fault_on(Fault::dot_nan_replaced_by_zero))  // fault: an epilogue that zeroes the first NaN
    for (int64_t i = 0, n = acc.numel(); i < n; ++i)
      if (std::isnan(load_as_f64(acc.raw(), acc.dtype(), i))) {
        store_from_f64(acc.raw(), acc.dtype(), i, 0.0);
        break;
      }
  if (acc.dtype() == out_dtype) return acc;
  Tensor out = Tensor::empty(acc.shape(), out_dtype);
  for (int64_t i = 0, n = acc.numel(); i < n; ++i)
    store_from_f64(out.raw(), out_dtype, i, load_as_f64(acc.raw(), acc.dtype(), i));
  return out;
}

}  // namespace

void split_value(float x, SplitFormat fmt, int parts, float* out) {
  if (!std::isfinite(x)) {
    out[0] = x;
    for (int i = 1; i < parts; ++i) out[i] = 0.0f;
    return;
  }
  int dropped = fmt == SplitFormat::bf16 ? 16 : 13;
  float rest = x;
  for (int i = 0; i < parts - 1; ++i) {
    out[i] = truncate_bits(rest, dropped);
    rest -= out[i];  // exact: the remainder fits in f32
  }
  out[parts - 1] = fmt == SplitFormat::bf16 ? round_to_bf16(rest) : round_to_tf32(rest);
}

DotPlan plan_dot(const Shape& lhs, const Shape& rhs, const std::vector<int64_t>& lc, const std::vector<int64_t>& rc,
                 const std::vector<int64_t>& lb, const std::vector<int64_t>& rb) {
  DotPlan p;
  p.n_batch = lb.size();
  p.n_contract = lc.size();
  auto free_axes = [](const Shape& s, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> f;
    for (int64_t d = 0; d < int64_t(s.size()); ++d)
      if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) f.push_back(d);
    return f;
  };
  auto lf = free_axes(lhs, lc, lb), rf = free_axes(rhs, rc, rb);
  p.n_lhs_free = lf.size();
  p.lhs_perm = lb;
  p.lhs_perm.insert(p.lhs_perm.end(), lf.begin(), lf.end());
  p.lhs_perm.insert(p.lhs_perm.end(), lc.begin(), lc.end());
  p.rhs_perm = rb;
  p.rhs_perm.insert(p.rhs_perm.end(), rc.begin(), rc.end());
  p.rhs_perm.insert(p.rhs_perm.end(), rf.begin(), rf.end());
  p.batch = p.m = p.n = p.k = 1;
  for (int64_t d : lb) { p.batch *= lhs[d]; p.out_shape.push_back(lhs[d]); }
  for (int64_t d : lf) { p.m *= lhs[d]; p.out_shape.push_back(lhs[d]); }
  for (int64_t d : rf) { p.n *= rhs[d]; p.out_shape.push_back(rhs[d]); }
  for (int64_t d : lc) p.k *= lhs[d];
  return p;
}

namespace {

// lhs and rhs as batched matrices of T, each element through fn; zero_copy: the tensor's own
// data where its layout allows, else a copy held in hl / hr.
template <class T, class F>
std::pair<MatOperand<T>, MatOperand<T>> matrices(const Tensor& lhs, const Tensor& rhs, const DotPlan& p,
                                                 bool zero_copy, F fn, Tensor& hl, Tensor& hr) {
  auto a = as_matrix<T>(lhs, p.lhs_perm, p.n_batch, p.n_lhs_free, p.m, p.k, zero_copy, fn, hl);
  auto b = as_matrix<T>(rhs, p.rhs_perm, p.n_batch, p.n_contract, p.k, p.n, zero_copy, fn, hr);
  return {a, b};
}

// The operands' converted copies, held until the result is cast.
struct Held {
  Tensor l, r;
  std::vector<Tensor> parts_l, parts_r;  // split algorithms: one per part
};

// f8 operands: each rounded to its own f8 format (from the element's value, not via f32); f8
// products are exact in f32 (at most 8 significant bits), the sum is sgemm's f32 one.
void f8_dot(const Tensor& lhs, const Tensor& rhs, const DotPlan& p, const F8Operands& f8, float* c, Held& h) {
  // Fault: the conversion drops the low bits (truncates) before rounding, so it never rounds up.
  const bool truncate = fault_on(Fault::dot_f8_truncate);
  auto to_f8 = [truncate](F8Format f) {
    return [f, truncate](double v) {
      if (truncate) {
        uint64_t u;
        std::memcpy(&u, &v, sizeof u);
        u &= ~((uint64_t(1) << (52 - f8_info(f).mantissa_bits)) - 1);
        std::memcpy(&v, &u, sizeof v);
      }
      return float(round_to_f8(v, f));
    };
  };
  auto a = as_matrix<float>(lhs, p.lhs_perm, p.n_batch, p.n_lhs_free, p.m, p.k, false, to_f8(f8.lhs), h.l);
  auto b = as_matrix<float>(rhs, p.rhs_perm, p.n_batch, p.n_contract, p.k, p.n, false, to_f8(f8.rhs), h.r);
  sgemm_batched(a, b, c, p, 0.0f);
}

// Split operands: each becomes `parts` f32 arrays; products are accumulated smallest first.
void split_dot(const Tensor& lhs, const Tensor& rhs, const DotPlan& p, const AlgorithmInfo& info, float* c,
               int64_t numel, Held& h) {
  h.parts_l.resize(size_t(info.parts)), h.parts_r.resize(size_t(info.parts));
  std::vector<MatOperand<float>> al, br;
  for (int part = 0; part < info.parts; ++part) {
    auto take = [&, part](float v) {
      float s[3];
      split_value(v, info.split, info.parts, s);
      return s[part];
    };
    auto [a, b] = matrices<float>(lhs, rhs, p, false, take, h.parts_l[size_t(part)], h.parts_r[size_t(part)]);
    al.push_back(a);
    br.push_back(b);
  }
  // Sum the small cross terms, then zero their NaNs before adding hi·hi: an Inf in hi
  // meets a zero lo in a cross term (Inf·0 = NaN) and must not poison the result, while a
  // real NaN or Inf still arrives through hi·hi (the guard XLA's and Triton's splits use).
  auto products = split_products(info.parts, info.products);
  // Faults: X3 as a single hi*hi pass; X6 with only X3's three products.
  if (info.products == 3 && fault_on(Fault::dot_x3_single_pass)) {
    products = {{0, 0}};
    std::fill(c, c + numel, 0.0f);
  }
  if (info.products == 6 && fault_on(Fault::dot_x6_as_x3)) products = {{1, 0}, {0, 1}, {0, 0}};
  float beta = 0.0f;
  for (size_t t = 0; t + 1 < products.size(); ++t) {
    sgemm_batched(al[size_t(products[t].first)], br[size_t(products[t].second)], c, p, beta);
    beta = 1.0f;
  }
  const int64_t guarded = fault_on(Fault::dot_split_nan_guard_dropped) ? 0 : numel;  // fault: no guard
  for (int64_t i = 0; i < guarded; ++i)
    if (std::isnan(c[i])) c[i] = 0.0f;
  sgemm_batched(al[0], br[0], c, p, 1.0f);
}

// f32 operands, rounded first to the algorithm's storage (TF32, bf16, f16) where it has one,
// then accumulated in f32 (sgemm) or a narrow type.
void rounded_dot(const Tensor& lhs, const Tensor& rhs, const DotPlan& p, const AlgorithmInfo& info, float* c, Held& h) {
  float (*round_in)(float) = nullptr;
  if (info.tf32_inputs) round_in = round_to_tf32;
  else if (info.storage == DType::bf16) round_in = round_to_bf16;
  // Faults: the input conversion truncates (drops the low bits) instead of rounding.
  if (round_in == round_to_tf32 && fault_on(Fault::dot_tf32_truncate)) round_in = [](float v) { return truncate_bits(v, 13); };
  if (round_in == round_to_bf16 && fault_on(Fault::dot_bf16_truncate)) round_in = [](float v) { return truncate_bits(v, 16); };
  else if (info.storage == DType::f16) round_in = round_to_f16;
  bool plain = round_in == nullptr;
  auto [a, b] = matrices<float>(lhs, rhs, p, plain, [&](float v) { return plain ? v : round_in(v); }, h.l, h.r);
  if (info.accumulation == DType::f32) sgemm_batched(a, b, c, p, 0.0f);
  // Fault: the F16 accumulator is rounded as bf16 (the wrong narrow type).
  else if (info.accumulation == DType::f16 && !fault_on(Fault::dot_f16_accumulator_as_bf16))
    narrow_accumulate(a, b, c, p, NarrowFormat::f16);
  else narrow_accumulate(a, b, c, p, NarrowFormat::bf16);
}

}  // namespace

Tensor dot_general(const Tensor& lhs, const Tensor& rhs, const DotPlan& p, DotAlgorithm alg,
                   DType out_dtype, const F8Operands& f8) {
  const AlgorithmInfo& info = algorithm_info(alg);
  if (p.batch * p.m * p.n == 0) return Tensor::empty(p.out_shape, out_dtype);
  if (p.k == 0) return Tensor::zeros(p.out_shape, out_dtype);
  if (alg == DotAlgorithm::DEFAULT) return cast_result(integer_dot(lhs, rhs, p, out_dtype), out_dtype);
  Held h;
  if (info.accumulation == DType::f64) {
    auto [a, b] = matrices<double>(lhs, rhs, p, true, [](double v) { return v; }, h.l, h.r);
    Tensor acc = Tensor::empty(p.out_shape, DType::f64);
    dgemm_batched(a, b, acc.data<double>(), p);
    return cast_result(acc, out_dtype);
  }
  Tensor acc = Tensor::empty(p.out_shape, DType::f32);
  if (info.f8_inputs) f8_dot(lhs, rhs, p, f8, acc.data<float>(), h);
  else if (info.split != SplitFormat::none) split_dot(lhs, rhs, p, info, acc.data<float>(), acc.numel(), h);
  else rounded_dot(lhs, rhs, p, info, acc.data<float>(), h);
  return cast_result(acc, out_dtype);
}

}  // namespace tandem::cpu
