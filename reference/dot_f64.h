// The f64-accumulating kernel of dot_general's Accumulation::f64 mode (dot.h): output rows of a
// dot laid out as dot.cc's blocked_rows sees them, each element's sum in double, over the
// contracting positions in order from 0 (no reassociation, no fused multiply-add: the bits of
// the plain sequential double loop, whatever the CPU's vector width or the thread count).
#pragma once
#include <cstdint>
#include <vector>

namespace tandem::ref::detail {

// Output rows [r0, r1) (row-major, `cols` columns) of sum_k row[row_base[i] + row_koff[k]] *
// col[col_base[i] + j * col_stride + col_koff[k]].
void blocked_rows_f64(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                      const std::vector<int64_t>& col_koff, const std::vector<int64_t>& row_base,
                      const std::vector<int64_t>& col_base, int64_t cols, int64_t col_stride, double* out,
                      int64_t r0, int64_t r1);

// The definition the kernel is tested against: one element at a time, a plain double loop.
double plain_sum_f64(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                     const std::vector<int64_t>& col_koff, int64_t row0, int64_t col0);

}  // namespace tandem::ref::detail
