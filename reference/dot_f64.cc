// dot_general's f64-accumulation kernel (dot_f64.h). Rows that share one column panel (the
// same col_base: every row of a plain matmul) are swept tile by tile: a tile's K × 16 packed
// values stay in cache while 4 rows at a time run over them, 64 independent double sums, which
// the compiler vectorises across the columns (each sum itself stays sequential in k). Built
// with -ffp-contract=off (reference/CMakeLists.txt), so a product is rounded before it is
// added, as in the plain loop, on every ISA the target_clones below pick.
#include "reference/dot_f64.h"

#include <algorithm>
#include <cstring>

namespace tandem::ref::detail {
namespace {

constexpr int64_t kTileCols = 16;
constexpr int64_t kTileRows = 4;

// s[r][c] = sum_k a[r][k] * p[k][c] for a tile: 4 rows of K values (a[r] may repeat a row,
// its sums then dropped), p packed K × 16.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void tile_sums(const double* a0, const double* a1, const double* a2, const double* a3, const double* p, int64_t K,
               double* s) {
  double s0[kTileCols] = {}, s1[kTileCols] = {}, s2[kTileCols] = {}, s3[kTileCols] = {};
  for (int64_t k = 0; k < K; ++k, p += kTileCols) {
    const double x0 = a0[k], x1 = a1[k], x2 = a2[k], x3 = a3[k];
    for (int64_t c = 0; c < kTileCols; ++c) {
      s0[c] += x0 * p[c];
      s1[c] += x1 * p[c];
      s2[c] += x2 * p[c];
      s3[c] += x3 * p[c];
    }
  }
  std::memcpy(s, s0, sizeof s0);
  std::memcpy(s + kTileCols, s1, sizeof s1);
  std::memcpy(s + 2 * kTileCols, s2, sizeof s2);
  std::memcpy(s + 3 * kTileCols, s3, sizeof s3);
}

}  // namespace

double plain_sum_f64(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                     const std::vector<int64_t>& col_koff, int64_t row0, int64_t col0) {
  double sum = 0;
  for (size_t k = 0; k < row_koff.size(); ++k) sum += row[row0 + row_koff[k]] * col[col0 + col_koff[k]];
  return sum;
}

void blocked_rows_f64(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                      const std::vector<int64_t>& col_koff, const std::vector<int64_t>& row_base,
                      const std::vector<int64_t>& col_base, int64_t cols, int64_t col_stride, double* out,
                      int64_t r0, int64_t r1) {
  const int64_t K = int64_t(row_koff.size()), tiles = (cols + kTileCols - 1) / kTileCols;
  std::vector<double> panel(size_t(tiles * K * kTileCols), 0.0), a, s(size_t(kTileRows * kTileCols));
  for (int64_t i = r0; i < r1;) {
    int64_t end = i + 1;  // rows [i, end) share this panel
    while (end < r1 && col_base[size_t(end)] == col_base[size_t(i)]) ++end;
    const int64_t base = col_base[size_t(i)];
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t k = 0; k < K; ++k)
        panel[size_t(((j / kTileCols) * K + k) * kTileCols + j % kTileCols)] = col[base + j * col_stride + col_koff[size_t(k)]];
    a.assign(size_t((end - i) * K), 0.0);
    for (int64_t r = i; r < end; ++r)
      for (int64_t k = 0; k < K; ++k) a[size_t((r - i) * K + k)] = row[row_base[size_t(r)] + row_koff[size_t(k)]];
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t r = i; r < end; r += kTileRows) {
        const double* ar[kTileRows];
        for (int64_t q = 0; q < kTileRows; ++q) ar[q] = a.data() + (std::min(r + q, end - 1) - i) * K;  // past end: a repeat, dropped
        tile_sums(ar[0], ar[1], ar[2], ar[3], panel.data() + t * K * kTileCols, K, s.data());
        for (int64_t q = 0; q < kTileRows && r + q < end; ++q)
          for (int64_t c = 0; c < kTileCols && t * kTileCols + c < cols; ++c)
            out[(r + q) * cols + t * kTileCols + c] = s[size_t(q * kTileCols + c)];
      }
    i = end;
  }
}

}  // namespace tandem::ref::detail
