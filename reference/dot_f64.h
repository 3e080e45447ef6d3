// dot_general's kernels (dot.h), output rows of a dot laid out as dot.cc's blocked_dot sees
// them, each element's sum over the contracting positions in order from 0 (no reassociation:
// the bits of the plain sequential loop, whatever the CPU's vector width or the thread count):
// in double (Accumulation::f64: no fused multiply-add), or compensated (the truth).
#pragma once
#include <cstdint>
#include <vector>

namespace tandem::ref::detail {

// Output rows [r0, r1) (row-major, `cols` columns) of sum_k row[row_base[i] + row_koff[k]] *
// col[col_base[i] + j * col_stride + col_koff[k]]: plain_sum_f64's or (compensated) plain_sum_dot2's.
void blocked_rows_f64(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                      const std::vector<int64_t>& col_koff, const std::vector<int64_t>& row_base,
                      const std::vector<int64_t>& col_base, int64_t cols, int64_t col_stride, double* out,
                      int64_t r0, int64_t r1, bool compensated);

// The definition the kernel is tested against: one element at a time, a plain double loop.
double plain_sum_f64(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                     const std::vector<int64_t>& col_koff, int64_t row0, int64_t col0);
// The truth's: Ogita, Rump and Oishi's Dot2 (an exact product error by fused multiply-add, an
// exact addition error by TwoSum, the errors summed in a second double), s + c rounded once.
// |result − Σab| ≤ 2^-53·|Σab| + γ_K²·Σ|a||b| (γ_K = K·2^-53/(1 − K·2^-53)), as accurate as a
// sum in twice double's precision; where an infinity or NaN shows (or a partial sum leaves
// double's range), the plain loop in long double instead.
double plain_sum_dot2(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                      const std::vector<int64_t>& col_koff, int64_t row0, int64_t col0);

}  // namespace tandem::ref::detail
