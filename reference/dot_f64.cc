// dot_general's kernels in double arithmetic (dot_f64.h): f64 accumulation and the compensated
// sums of the truth. Rows that share one column panel (the same col_base: every row of a plain
// matmul) are swept tile by tile: a tile's K × 16 values (packed, or read in place where the
// operand's rows already hold them: a row-major [K, N] weight) stay in cache while 4 rows at a
// time run over them, 64 independent sums in explicit lanes across the columns (each sum itself
// sequential in k). Built with -ffp-contract=off (reference/CMakeLists.txt), so a product is
// rounded before it is added, as in the plain loops, on every ISA the target_clones below pick.
#include "reference/dot_f64.h"

#include <algorithm>
#include <cmath>
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

// One term of a compensated sum (Ogita, Rump and Oishi's Dot2, 2005): the product split exactly
// into x + e (a fused multiply-add gives e), the addition into t + q (Knuth's TwoSum), the errors
// summed aside in c. The same operations for a double (the plain loop) and for lanes.
template <class V>
[[gnu::always_inline]] inline void dot2_step(V& s, V& c, double a, const V& p) {
  const V x = a * p;
  V e;
  if constexpr (sizeof(V) == sizeof(double)) e = __builtin_fma(a, p, -x);
  else for (int l = 0; l < 8; ++l) e[l] = __builtin_fma(a, p[l], -x[l]);
  const V t = s + x, z = t - s;
  c += ((s - (t - z)) + (x - z)) + e;
  s = t;
}

// tile_sums with each sum compensated: s[q·16 + c] = the sum's s + c (one rounding).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "fma", "default")))
#endif
void tile_sums_dot2(const double* a0, const double* a1, const double* a2, const double* a3, const double* p,
                    int64_t ldp, int64_t K, double* s) {
  Lanes s00 = {}, s01 = {}, s10 = {}, s11 = {}, s20 = {}, s21 = {}, s30 = {}, s31 = {};
  Lanes c00 = {}, c01 = {}, c10 = {}, c11 = {}, c20 = {}, c21 = {}, c30 = {}, c31 = {};
  for (int64_t k = 0; k < K; ++k, p += ldp) {  // named sums (not an array): GCC keeps them in registers
    Lanes p0, p1;
    std::memcpy(&p0, p, sizeof p0);
    std::memcpy(&p1, p + 8, sizeof p1);
    dot2_step(s00, c00, a0[k], p0), dot2_step(s01, c01, a0[k], p1);
    dot2_step(s10, c10, a1[k], p0), dot2_step(s11, c11, a1[k], p1);
    dot2_step(s20, c20, a2[k], p0), dot2_step(s21, c21, a2[k], p1);
    dot2_step(s30, c30, a3[k], p0), dot2_step(s31, c31, a3[k], p1);
  }
  const Lanes all[8] = {s00 + c00, s01 + c01, s10 + c10, s11 + c11, s20 + c20, s21 + c21, s30 + c30, s31 + c31};
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

double plain_sum_dot2(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                      const std::vector<int64_t>& col_koff, int64_t row0, int64_t col0) {
  double s = 0, c = 0;
  for (size_t k = 0; k < row_koff.size(); ++k) dot2_step(s, c, row[row0 + row_koff[k]], col[col0 + col_koff[k]]);
  if (std::isfinite(s + c)) return s + c;
  long double sum = 0;  // an infinity or NaN met, or a partial sum past double's range
  for (size_t k = 0; k < row_koff.size(); ++k) sum += (long double)row[row0 + row_koff[k]] * col[col0 + col_koff[k]];
  return double(sum);
}

void blocked_rows_f64(const double* row, const double* col, const std::vector<int64_t>& row_koff,
                      const std::vector<int64_t>& col_koff, const std::vector<int64_t>& row_base,
                      const std::vector<int64_t>& col_base, int64_t cols, int64_t col_stride, double* out,
                      int64_t r0, int64_t r1, bool compensated) {
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
        (compensated ? tile_sums_dot2 : tile_sums)(ar[0], ar[1], ar[2], ar[3], p, step ? step : kTileCols, K, s.data());
        for (int64_t q = 0; q < kTileRows && r + q < end; ++q)
          for (int64_t c = 0, j = t * kTileCols; c < kTileCols && j < cols; ++c, ++j) {
            const double v = s[size_t(q * kTileCols + c)];  // plain_sum_dot2 again where it falls back
            out[(r + q) * cols + j] = !compensated || std::isfinite(v) ? v
                : plain_sum_dot2(row, col, row_koff, col_koff, row_base[size_t(r + q)], base + j * col_stride);
          }
      }
    i = end;
  }
}

}  // namespace tandem::ref::detail
