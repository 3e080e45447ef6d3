// dot_general: for each output element, a plain loop over the contracting index space, in
// compensated double-double arithmetic (simple_dot, the definition: dot_f64.h's plain_sum_dot2);
// the same sums computed blocked and threaded (blocked_dot: dot_f64.cc's tiles, output rows split
// across std::threads). Each element's sum still runs over the contracting positions in order
// from 0, so both give the same bits (dot_test.cc checks it). Under Accumulation::f64 (dot.h)
// the sums run in plain double instead, again in order from 0.
#include "reference/dot.h"

#include <algorithm>
#include <string>
#include <thread>

#include "reference/dot_f64.h"
#include "reference/rounding.h"

namespace tandem::ref {
namespace {

thread_local Accumulation t_accumulation = Accumulation::compensated;

// Checks that dims are distinct, in range for x, and not already used; marks them used.
void claim_axes(const char* side, const char* kind, const std::vector<int64_t>& dims,
                const Array& x, std::vector<bool>& used) {
  for (int64_t d : dims) {
    require(d >= 0 && d < x.rank() && !used[d],
            std::string("dot_general: ") + side + " " + kind + " dims " + shape_string(dims) +
                " invalid for " + side + " " + shape_string(x.shape) +
                " (in range, each axis used once)");
    used[d] = true;
  }
}

std::vector<int64_t> free_axes(const std::vector<bool>& used) {
  std::vector<int64_t> free;
  for (size_t d = 0; d < used.size(); ++d)
    if (!used[d]) free.push_back(static_cast<int64_t>(d));
  return free;
}


// An output as [rows, cols] (cols: the last output axis) and where each operand's element
// for (output position, contracting position) lives: base(output) + k_off[contracting].
struct Layout {
  std::vector<int64_t> out_shape, out_lstride, out_rstride;  // per output axis
  std::vector<int64_t> k_loff, k_roff;                       // per contracting position
};

void simple_dot(const double* l, const double* r, const Layout& L, double* out, Accumulation acc) {
  std::vector<int64_t> o(L.out_shape.size(), 0);
  for (int64_t flat = 0, n = shape_numel(L.out_shape); flat < n; ++flat, next_index(o, L.out_shape)) {
    const int64_t l0 = flat_offset(o, L.out_lstride), r0 = flat_offset(o, L.out_rstride);
    out[flat] = (acc == Accumulation::f64 ? detail::plain_sum_f64 : detail::plain_sum_dot2)(l, r, L.k_loff, L.k_roff, l0, r0);
  }
}

// i32 x i32 -> i32: wraps modulo 2^64, hence also modulo 2^32.
void integer_dot(const double* l, const double* r, const Layout& L, double* out) {
  std::vector<int64_t> o(L.out_shape.size(), 0);
  for (int64_t flat = 0, n = shape_numel(L.out_shape); flat < n; ++flat, next_index(o, L.out_shape)) {
    const int64_t l0 = flat_offset(o, L.out_lstride), r0 = flat_offset(o, L.out_rstride);
    uint64_t isum = 0;
    for (size_t kk = 0; kk < L.k_loff.size(); ++kk)
      isum += static_cast<uint64_t>(static_cast<int64_t>(l[l0 + L.k_loff[kk]])) *
              static_cast<uint64_t>(static_cast<int64_t>(r[r0 + L.k_roff[kk]]));
    out[flat] = static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(isum)));
  }
}

void blocked_dot(const double* l, const double* r, const Layout& L, double* out, Accumulation acc) {
  const size_t rank = L.out_shape.size();
  const int64_t cols = rank ? L.out_shape.back() : 1;
  const int64_t cl = rank ? L.out_lstride.back() : 0, cr = rank ? L.out_rstride.back() : 0;
  if (cl != 0 && cr != 0) return simple_dot(l, r, L, out, acc);  // last axis a batch axis: no panel
  std::vector<int64_t> row_shape(L.out_shape.begin(), L.out_shape.end() - (rank ? 1 : 0));
  const int64_t rows = shape_numel(row_shape);
  if (rows == 0 || cols == 0) return;  // an empty output
  std::vector<int64_t> lbase(static_cast<size_t>(rows)), rbase(static_cast<size_t>(rows)), o(row_shape.size(), 0);
  for (int64_t i = 0; i < rows; ++i, next_index(o, row_shape)) {
    lbase[size_t(i)] = flat_offset(o, L.out_lstride);  // the last stride is not read: o is shorter
    rbase[size_t(i)] = flat_offset(o, L.out_rstride);
  }
  // The product is commutative, so which operand packs does not change a bit.
  const bool lhs_rows = cl == 0, compensated = acc == Accumulation::compensated;
  auto work = [&](int64_t r0, int64_t r1) {
    if (lhs_rows) detail::blocked_rows_f64(l, r, L.k_loff, L.k_roff, lbase, rbase, cols, cr, out, r0, r1, compensated);
    else detail::blocked_rows_f64(r, l, L.k_roff, L.k_loff, rbase, lbase, cols, cl, out, r0, r1, compensated);
  };
  // Threads over output rows, for dots big enough to pay for them (~2^22 products each).
  const int64_t macs = rows * cols * int64_t(L.k_loff.size());
  const int64_t hw = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t n = std::clamp<int64_t>(macs >> 22, 1, std::min(hw, rows));
  if (n == 1) return work(0, rows);
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < n; ++t) pool.emplace_back(work, rows * t / n, rows * (t + 1) / n);
  for (std::thread& t : pool) t.join();
}

Array dot_impl(const Array& lhs, const Array& rhs, const DotDims& dims, DType out_dtype, bool simple) {
  check_array(lhs, "dot_general lhs");
  check_array(rhs, "dot_general rhs");
  require(lhs.dtype != DType::pred && rhs.dtype != DType::pred && out_dtype != DType::pred,
          "dot_general: pred is not supported");
  require(dims.lhs_contract.size() == dims.rhs_contract.size(),
          "dot_general: lhs_contract and rhs_contract differ in length");
  require(dims.lhs_batch.size() == dims.rhs_batch.size(),
          "dot_general: lhs_batch and rhs_batch differ in length");
  std::vector<bool> lhs_used(lhs.shape.size(), false), rhs_used(rhs.shape.size(), false);
  claim_axes("lhs", "batch", dims.lhs_batch, lhs, lhs_used);
  claim_axes("lhs", "contracting", dims.lhs_contract, lhs, lhs_used);
  claim_axes("rhs", "batch", dims.rhs_batch, rhs, rhs_used);
  claim_axes("rhs", "contracting", dims.rhs_contract, rhs, rhs_used);
  for (size_t i = 0; i < dims.lhs_batch.size(); ++i)
    require(lhs.shape[dims.lhs_batch[i]] == rhs.shape[dims.rhs_batch[i]],
            "dot_general: batch sizes differ: lhs " + shape_string(lhs.shape) + " rhs " +
                shape_string(rhs.shape));
  std::vector<int64_t> contract_shape;  // [K0, K1, ...], the contracting index space
  for (size_t i = 0; i < dims.lhs_contract.size(); ++i) {
    require(lhs.shape[dims.lhs_contract[i]] == rhs.shape[dims.rhs_contract[i]],
            "dot_general: contracting sizes differ: lhs " + shape_string(lhs.shape) + " rhs " +
                shape_string(rhs.shape));
    contract_shape.push_back(lhs.shape[dims.lhs_contract[i]]);
  }
  const std::vector<int64_t> lhs_free = free_axes(lhs_used), rhs_free = free_axes(rhs_used);

  // Each output axis, and each contracting axis, advances lhs and rhs by these strides.
  const auto ls = row_major_strides(lhs.shape), rs = row_major_strides(rhs.shape);
  std::vector<int64_t> out_shape, out_lstride, out_rstride;
  for (size_t i = 0; i < dims.lhs_batch.size(); ++i) {
    out_shape.push_back(lhs.shape[dims.lhs_batch[i]]);
    out_lstride.push_back(ls[dims.lhs_batch[i]]);
    out_rstride.push_back(rs[dims.rhs_batch[i]]);
  }
  for (int64_t d : lhs_free) {
    out_shape.push_back(lhs.shape[d]);
    out_lstride.push_back(ls[d]);
    out_rstride.push_back(0);
  }
  for (int64_t d : rhs_free) {
    out_shape.push_back(rhs.shape[d]);
    out_lstride.push_back(0);
    out_rstride.push_back(rs[d]);
  }
  std::vector<int64_t> k_lstride, k_rstride;
  for (size_t i = 0; i < dims.lhs_contract.size(); ++i) {
    k_lstride.push_back(ls[dims.lhs_contract[i]]);
    k_rstride.push_back(rs[dims.rhs_contract[i]]);
  }

  const bool integer =
      lhs.dtype == DType::i32 && rhs.dtype == DType::i32 && out_dtype == DType::i32;
  Layout lay{std::move(out_shape), std::move(out_lstride), std::move(out_rstride), {}, {}};
  // Every contracting position's offset into lhs and rhs, once (row-major, last axis fastest).
  std::vector<int64_t> k(contract_shape.size(), 0);
  for (int64_t kk = 0, kn = shape_numel(contract_shape); kk < kn; ++kk, next_index(k, contract_shape)) {
    lay.k_loff.push_back(flat_offset(k, k_lstride));
    lay.k_roff.push_back(flat_offset(k, k_rstride));
  }
  Array out{lay.out_shape, out_dtype, std::vector<double>(static_cast<size_t>(shape_numel(lay.out_shape)))};
  if (integer)
    integer_dot(lhs.data.data(), rhs.data.data(), lay, out.data.data());
  else if (simple)
    simple_dot(lhs.data.data(), rhs.data.data(), lay, out.data.data(), t_accumulation);
  else
    blocked_dot(lhs.data.data(), rhs.data.data(), lay, out.data.data(), t_accumulation);
  if (!integer)
    round_each(out_dtype, out.data);
  return out;
}

}  // namespace

Array dot_general(const Array& lhs, const Array& rhs, const DotDims& dims, DType out_dtype) {
  return dot_impl(lhs, rhs, dims, out_dtype, false);
}
Accumulation accumulation() { return t_accumulation; }
ScopedAccumulation::ScopedAccumulation(Accumulation a) : previous_(t_accumulation) { t_accumulation = a; }
ScopedAccumulation::~ScopedAccumulation() { t_accumulation = previous_; }

Array dot_general_simple(const Array& lhs, const Array& rhs, const DotDims& dims, DType out_dtype) {
  return dot_impl(lhs, rhs, dims, out_dtype, true);
}

}  // namespace tandem::ref
