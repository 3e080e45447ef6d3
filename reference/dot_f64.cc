// dot_general's f64-accumulation kernel (dot_f64.h). Rows that share one column panel (the
// same col_base: every row of a plain matmul) are swept tile by tile: a tile's K × 16 values
// (packed, or read in place where the operand's rows already hold them: a row-major [K, N]
// weight) stay in cache while 4 rows at a time run over them, 64 independent double sums, which
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

// 8 doubles in a vector register (GCC's and clang's vector extension: two halves or four
// quarters where the clone has no 512-bit registers); each lane its own IEEE multiply and add.
typedef double Lanes __attribute__((vector_size(64)));

// s[r][c] = sum_k a[r][k] * p[k·ldp + c] for a tile: 4 rows of K values (a[r] may repeat a row,
// its sums then dropped), p K rows of 16 values ldp apart (16: packed). Written with explicit
// lanes across the 16 columns (what the compiler did not find by itself once ldp varied).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void tile_sums(const double* a0, const double* a1, const double* a2, const double* a3, const double* p, int64_t ldp,
               int64_t K, double* s) {
  Lanes s00 = {}, s01 = {}, s10 = {}, s11 = {}, s20 = {}, s21 = {}, s30 = {}, s31 = {};
  for (int64_t k = 0; k < K; ++k, p += ldp) {
    Lanes p0, p1;
    std::memcpy(&p0, p, sizeof p0);
    std::memcpy(&p1, p + 8, sizeof p1);
    s00 += a0[k] * p0, s01 += a0[k] * p1;
    s10 += a1[k] * p0, s11 += a1[k] * p1;
    s20 += a2[k] * p0, s21 += a2[k] * p1;
    s30 += a3[k] * p0, s31 += a3[k] * p1;
  }
  const Lanes all[8] = {s00, s01, s10, s11, s20, s21, s30, s31};
  std::memcpy(s, all, sizeof all);
}

// The column operand's panel for one col_base, tile-major (a tile's K × 16 values contiguous,
// padded with zeros), read in the order its memory runs.
void pack_panel(const double* col, int64_t base, const std::vector<int64_t>& col_koff, int64_t cols, int64_t col_stride,
                double* panel) {
  const int64_t K = int64_t(col_koff.size());
  auto at = [&](int64_t j, int64_t k) -> double& { return panel[size_t(((j / kTileCols) * K + k) * kTileCols + j % kTileCols)]; };
  if (col_stride == 1) {
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < cols; ++j) at(j, k) = col[base + j + col_koff[size_t(k)]];
  } else {
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t k = 0; k < K; ++k) at(j, k) = col[base + j * col_stride + col_koff[size_t(k)]];
  }
}

// Whether column j of contracting position k sits at col_koff[0] + k·step + j: then a whole
// tile is read in place, ldp = step apart, with no packed copy.
int64_t in_place_step(const std::vector<int64_t>& col_koff, int64_t cols, int64_t col_stride) {
  if (col_stride != 1 || cols % kTileCols != 0 || col_koff.size() < 2) return 0;
  const int64_t step = col_koff[1] - col_koff[0];
  for (size_t k = 1; k < col_koff.size(); ++k)
    if (col_koff[k] - col_koff[k - 1] != step) return 0;
  return step > 0 ? step : 0;
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
  const int64_t step = in_place_step(col_koff, cols, col_stride);
  std::vector<double> panel(step ? 0 : size_t(tiles * K * kTileCols), 0.0), a, s(size_t(kTileRows * kTileCols));
  for (int64_t i = r0; i < r1;) {
    int64_t end = i + 1;  // rows [i, end) share this panel
    while (end < r1 && col_base[size_t(end)] == col_base[size_t(i)]) ++end;
    const int64_t base = col_base[size_t(i)];
    if (!step) pack_panel(col, base, col_koff, cols, col_stride, panel.data());
    a.assign(size_t((end - i) * K), 0.0);
    for (int64_t r = i; r < end; ++r)
      for (int64_t k = 0; k < K; ++k) a[size_t((r - i) * K + k)] = row[row_base[size_t(r)] + row_koff[size_t(k)]];
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t r = i; r < end; r += kTileRows) {
        const double* ar[kTileRows];
        for (int64_t q = 0; q < kTileRows; ++q) ar[q] = a.data() + (std::min(r + q, end - 1) - i) * K;  // past end: a repeat, dropped
        const double* p = step ? col + base + col_koff[0] + t * kTileCols : panel.data() + t * K * kTileCols;
        tile_sums(ar[0], ar[1], ar[2], ar[3], p, step ? step : kTileCols, K, s.data());
        for (int64_t q = 0; q < kTileRows && r + q < end; ++q)
          for (int64_t c = 0; c < kTileCols && t * kTileCols + c < cols; ++c)
            out[(r + q) * cols + t * kTileCols + c] = s[size_t(q * kTileCols + c)];
      }
    i = end;
  }
}

}  // namespace tandem::ref::detail
