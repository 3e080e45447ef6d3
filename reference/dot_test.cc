// Tests of dot_general: hand-worked matmuls, batch and contracting dims in any position,
// output dim order, K = 0, accumulation width and the errors for bad dimension numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "reference/reference.h"

namespace tandem::ref {
namespace {

using Shape = std::vector<int64_t>;
using Values = std::vector<double>;

Array arange(Shape shape, DType t = DType::f32) {
  return convert(reshape(iota(DType::i32, {shape_numel(shape)}, 0), shape), t);
}

TEST(DotGeneral, Matmul) {
  const Array a = make({2, 3}, DType::f32, {1, 2, 3, 4, 5, 6});
  const Array b = make({3, 2}, DType::f32, {7, 8, 9, 10, 11, 12});
  const Array c = dot_general(a, b, {{1}, {0}, {}, {}}, DType::f32);
  EXPECT_EQ(c.shape, (Shape{2, 2}));
  EXPECT_EQ(c.data, (Values{58, 64, 139, 154}));
  const Array v = dot_general(make({3}, DType::f32, {1, 2, 3}), make({3}, DType::f32, {4, 5, 6}),
                              {{0}, {0}, {}, {}}, DType::f32);
  EXPECT_TRUE(v.shape.empty());
  EXPECT_EQ(v.data, (Values{32}));
  const Array outer = dot_general(make({2}, DType::f32, {1, 2}), make({2}, DType::f32, {3, 4}),
                                  {{}, {}, {}, {}}, DType::f32);
  EXPECT_EQ(outer.shape, (Shape{2, 2}));
  EXPECT_EQ(outer.data, (Values{3, 4, 6, 8}));
}

TEST(DotGeneral, BatchedMatmul) {
  // lhs [2,1,2], rhs [2,2,1]: per batch a (1x2)(2x1) product.
  const Array l = make({2, 1, 2}, DType::f32, {1, 2, 5, 6});
  const Array r = make({2, 2, 1}, DType::f32, {3, 4, 7, 8});
  const Array c = dot_general(l, r, {{2}, {1}, {0}, {0}}, DType::f32);
  EXPECT_EQ(c.shape, (Shape{2, 1, 1}));
  EXPECT_EQ(c.data, (Values{11, 83}));
}

TEST(DotGeneral, BatchAndContractAnywhere) {
  // lhs[k,b], rhs[b,k] -> out[b] = sum_k lhs[k,b] * rhs[b,k].
  const Array l = make({2, 2}, DType::f32, {1, 2, 3, 4});
  const Array r = make({2, 2}, DType::f32, {5, 6, 7, 8});
  EXPECT_EQ(dot_general(l, r, {{0}, {1}, {1}, {0}}, DType::f32).data, (Values{23, 46}));
  // lhs[b,m,k] = 3b + k + 1, rhs[k,b,n] = 4k + 2b + n -> out[b,m,n]: batch, lhs free, rhs free.
  const Array lhs = make({2, 1, 3}, DType::f32, {1, 2, 3, 4, 5, 6});
  const Array out = dot_general(lhs, arange({3, 2, 2}), {{2}, {0}, {0}, {1}}, DType::f32);
  EXPECT_EQ(out.shape, (Shape{2, 1, 2}));
  EXPECT_EQ(out.data, (Values{32, 38, 98, 113}));
  // lhs[k,m] = 3k + m, rhs[n,k] = 2n + k -> out[m,n] (free dims keep operand order).
  const Array t = dot_general(arange({2, 3}), arange({2, 2}), {{0}, {1}, {}, {}}, DType::f32);
  EXPECT_EQ(t.shape, (Shape{3, 2}));
  EXPECT_EQ(t.data, (Values{3, 9, 4, 14, 5, 19}));
  // Two contracting dims, paired in order.
  EXPECT_EQ(dot_general(l, r, {{0, 1}, {0, 1}, {}, {}}, DType::f32).data, (Values{70}));
  EXPECT_EQ(dot_general(l, r, {{0, 1}, {1, 0}, {}, {}}, DType::f32).data, (Values{69}));
}

TEST(DotGeneral, EmptyContractionGivesZeros) {
  const DotDims matmul{{1}, {0}, {}, {}};
  const Array c =
      dot_general(full({2, 0}, DType::f32, 1), full({0, 3}, DType::f32, 1), matmul, DType::f32);
  EXPECT_EQ(c.shape, (Shape{2, 3}));
  EXPECT_EQ(c.data, (Values(6, 0.0)));
  const Array b = dot_general(full({2, 4, 0}, DType::bf16, 1), full({2, 0, 1}, DType::bf16, 1),
                              {{2}, {1}, {0}, {0}}, DType::f32);
  EXPECT_EQ(b.shape, (Shape{2, 4, 1}));
  EXPECT_EQ(b.data, (Values(8, 0.0)));
  const Array no_rows =
      dot_general(full({0, 2}, DType::f32, 1), full({2, 3}, DType::f32, 1), matmul, DType::f32);
  EXPECT_EQ(no_rows.shape, (Shape{0, 3}));
}

// sum_k a[k] * b[k] of two vectors of dtype t, rounded to out.
double vdot(DType t, Values a, Values b, DType out) {
  const auto n = static_cast<int64_t>(a.size());
  return dot_general(make({n}, t, a), make({n}, t, b), {{0}, {0}, {}, {}}, out).data.at(0);
}

TEST(DotGeneral, ExactAccumulationRoundedOnceToOutDtype) {
  // A left-to-right f32 sum would stay 1; the exact 1 + 2^-23 is an f32.
  EXPECT_EQ(vdot(DType::f32, {1, 0x1p-24, 0x1p-24}, {1, 1, 1}, DType::f32), 1 + 0x1p-23);
  EXPECT_EQ(vdot(DType::bf16, {1, 1}, {1, 0x1p-8}, DType::bf16), 1.0);  // 1 + 2^-8 ties to 1
  EXPECT_EQ(vdot(DType::bf16, {1, 1}, {1, 0x1p-8}, DType::f64), 1 + 0x1p-8);
  EXPECT_EQ(vdot(DType::f16, {300, 300}, {200, 200}, DType::f16),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(vdot(DType::f64, {0x1p100, 1, -0x1p100}, {1, 1, 1}, DType::f64), 1.0);  // 2^100 + 1 needs 101 bits
}

TEST(DotGeneral, IntegersWrap) {
  EXPECT_EQ(vdot(DType::i32, {65536, 3}, {65536, -4}, DType::i32), -12.0);  // 2^32 - 12
  EXPECT_EQ(vdot(DType::i32, {65536}, {65536}, DType::f32), 0x1p32);
}

TEST(DotGeneral, RejectsBadDimensionNumbers) {
  const Array a = arange({2, 3}), b = arange({3, 2});
  const auto bad = [](const Array& l, const Array& r, const DotDims& d) {
    EXPECT_THROW(dot_general(l, r, d, DType::f32), std::invalid_argument);
  };
  bad(a, b, {{0}, {0}, {}, {}});                 // contracting sizes 2 vs 3
  bad(a, b, {{1}, {}, {}, {}});                  // unpaired contracting dims
  bad(a, b, {{2}, {0}, {}, {}});                 // axis out of range
  bad(a, b, {{1, 1}, {0, 0}, {}, {}});           // axis used twice
  bad(a, a, {{1}, {1}, {1}, {1}});               // axis both batch and contracting
  bad(a, arange({3, 3}), {{1}, {0}, {0}, {1}});  // batch sizes 2 vs 3
  bad(make({1}, DType::pred, {1}), make({1}, DType::pred, {1}), {{0}, {0}, {}, {}});
  EXPECT_EQ(dot_general(a, b, {{1}, {0}, {0}, {1}}, DType::f32).shape, (Shape{2}));  // valid
}

// Values with spread-out exponents and signs (so that long double sums round, and order
// would show), plus an inf and a NaN where asked.
Array scattered(Shape shape, uint64_t seed, bool specials = false) {
  std::vector<double> v(size_t(shape_numel(shape)));
  for (double& x : v) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    x = std::ldexp(double(seed >> 11) * 0x1p-53 - 0.5, int((seed >> 3) % 40) - 20);
  }
  if (specials && v.size() > 3) v[1] = std::numeric_limits<double>::infinity(), v[2] = std::nan("");
  return Array{shape, DType::f64, v};
}

// The truth's compensated sums (dot_f64.h's plain_sum_dot2) against the exact sum (quad
// precision: a product of doubles is exact in its 113 bits, a sum of K of them off by K·2^-113
// of Σ|a||b|) on ill-conditioned dots: within one rounding of the result plus γ_K²·Σ|a||b|, and
// within one rounding plus K·2^-63·Σ|a||b| of the long double sums the truth had before: the
// tolerance's runs move a dot by (2·u_in + K·u_acc)·Σ|a||b| ≥ (2 + K)·2^-53·Σ|a||b| (f64), so
// the change of truth is below 2^-10 of the smallest of them, beside the result's own rounding.
TEST(DotGeneral, CompensatedSumsWithinTheirBoundOfTheExactSum) {
#if defined(__SIZEOF_FLOAT128__) && !defined(__aarch64__)
  using Quad = __float128;
#else
  using Quad = long double;
  if (std::numeric_limits<long double>::digits < 113) GTEST_SKIP() << "no quad precision type";
#endif
  uint64_t seed = 11;
  for (int64_t K : {1, 2, 7, 300, 2048, 20000}) {
    Array a = scattered({K}, seed++), b = scattered({K}, seed++);
    for (int64_t k = 1; k < K; k += 3) a.data[size_t(k)] = -a.data[size_t(k - 1)] * b.data[size_t(k - 1)] / b.data[size_t(k)];
    Quad exact = 0;
    long double ld = 0;
    double abs_sum = 0, gamma = K * 0x1p-53 / (1 - K * 0x1p-53);
    for (size_t k = 0; k < size_t(K); ++k)
      exact += Quad(a.data[k]) * b.data[k], ld += (long double)a.data[k] * b.data[k], abs_sum += std::fabs(a.data[k] * b.data[k]);
    const double got = vdot(DType::f64, a.data, b.data, DType::f64), q = double(exact);
    EXPECT_LE(std::fabs(got - q), 0x1p-53 * std::fabs(q) + (gamma * gamma + K * 0x1p-112) * abs_sum) << K;
    EXPECT_LE(std::fabs(got - double(ld)), 0x1p-52 * std::fabs(q) + K * 0x1p-63 * abs_sum) << K;
  }
  // Partial sums past double's range, infinities and NaN: the long double loop's results.
  EXPECT_EQ(vdot(DType::f64, {0x1p1023, 0x1p1023, -0x1p1023}, {1, 1, 1}, DType::f64), 0x1p1023);
  EXPECT_EQ(vdot(DType::f64, {INFINITY, 1}, {1, 1}, DType::f64), INFINITY);
  EXPECT_TRUE(std::isnan(vdot(DType::f64, {INFINITY, -INFINITY}, {1, 1}, DType::f64)));
}

// The blocked, threaded dot_general gives the plain loop's bits (same summation order per
// element) for every layout it treats differently: the packed operand on either side, rhs
// free dims before the last (repacked per row), a batch axis last (the plain fallback), a
// scalar result, rounding to f32 / bf16, inf and NaN, and a dot big enough to be threaded.
TEST(DotGeneral, BlockedEqualsThePlainLoopBitForBit) {
  struct Row {
    Shape l, r;
    DotDims d;
  };
  const std::vector<Row> rows = {
      {{37, 53}, {53, 29}, {{1}, {0}, {}, {}}},             // matmul, cols not a multiple of 4
      {{53, 37}, {53, 29}, {{0}, {0}, {}, {}}},             // lhs transposed
      {{37, 53}, {29, 53}, {{1}, {1}, {}, {}}},             // rhs transposed
      {{37, 53}, {53}, {{1}, {0}, {}, {}}},                 // last axis lhs's: rhs packs as rows
      {{3, 5}, {5, 3}, {{1}, {0}, {0}, {1}}},               // last axis a batch axis
      {{2, 7, 3, 5}, {5, 2, 4, 3, 6}, {{2, 3}, {3, 0}, {0}, {1}}},  // batch, 2 contracting, 2 rhs free
      {{64}, {64}, {{0}, {0}, {}, {}}},                     // rank-0 result
      {{0, 5}, {5, 3}, {{1}, {0}, {}, {}}},                 // no rows
      {{4, 5}, {5, 0}, {{1}, {0}, {}, {}}},                 // no columns
      {{4, 0}, {0, 6}, {{1}, {0}, {}, {}}},                 // empty contraction: zeros
      {{2, 130, 300}, {2, 300, 131}, {{2}, {1}, {0}, {0}}},  // ~10M products: threaded
  };
  uint64_t seed = 1;
  for (const Row& row : rows)
    for (DType t : {DType::f64, DType::f32, DType::bf16})
      for (bool specials : {false, true}) {
        const Array l = scattered(row.l, seed++, specials), r = scattered(row.r, seed++);
        const Array want = dot_general_simple(l, r, row.d, t), got = dot_general(l, r, row.d, t);
        ASSERT_EQ(got.shape, want.shape);
        ASSERT_EQ(got.data.size(), want.data.size());
        // memcmp compares NaN payloads too; an empty result has no buffer to hand it (UBSan: nonnull).
        const bool same = got.data.empty() || std::memcmp(got.data.data(), want.data.data(), got.data.size() * sizeof(double)) == 0;
        EXPECT_TRUE(same)
            << shape_string(row.l) << " x " << shape_string(row.r) << " " << dtype_name(t) << (specials ? " inf/NaN" : "");
      }
}

// Accumulation::f64 (dot.h): the vectorised kernel and the threads give the plain double loop's
// bits, one element at a time, for the layouts the blocked path treats differently: rows not a
// multiple of its 4-row tiles, columns not of its 16-column tiles, a panel repacked per batch,
// tiles read in place, and a dot threaded over rows, so the result does not depend on the thread count.
TEST(DotGeneral, F64AccumulationEqualsThePlainDoubleLoopBitForBit) {
  const ScopedAccumulation f64(Accumulation::f64);
  struct Row {
    Shape l, r;
    DotDims d;
  };
  const std::vector<Row> rows = {
      {{37, 53}, {53, 29}, {{1}, {0}, {}, {}}},
      {{53, 37}, {29, 53}, {{0}, {1}, {}, {}}},
      {{2, 7, 3, 5}, {5, 2, 4, 3, 6}, {{2, 3}, {3, 0}, {0}, {1}}},
      {{3, 5}, {5, 3}, {{1}, {0}, {0}, {1}}},
      {{2, 130, 300}, {2, 300, 131}, {{2}, {1}, {0}, {0}}},  // ~10M products: threaded
      {{37, 53}, {53, 48}, {{1}, {0}, {}, {}}},              // whole tiles of a row-major rhs: read in place
      {{3, 37, 53}, {3, 53, 32}, {{2}, {1}, {0}, {0}}},      // in place, per batch
      {{2, 64, 512}, {512, 2048}, {{2}, {0}, {}, {}}},       // in place and threaded (~130M products)
  };
  uint64_t seed = 7;
  for (const Row& row : rows) {
    const Array l = scattered(row.l, seed++, true), r = scattered(row.r, seed++);
    const Array got = dot_general(l, r, row.d, DType::f64), want = dot_general_simple(l, r, row.d, DType::f64);
    ASSERT_EQ(got.data.size(), want.data.size());
    EXPECT_EQ(0, std::memcmp(got.data.data(), want.data.data(), got.data.size() * sizeof(double))) << shape_string(row.l);
  }
  // The definition itself, written out here for a matmul: sum += l[i][k] * r[k][j], in double.
  const Array l = scattered({9, 300}, 1), r = scattered({300, 21}, 2);
  const Array got = dot_general(l, r, DotDims{{1}, {0}, {}, {}}, DType::f64);
  for (int64_t i = 0; i < 9; ++i)
    for (int64_t j = 0; j < 21; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < 300; ++k) sum += l.data[size_t(i * 300 + k)] * r.data[size_t(k * 21 + j)];
      ASSERT_EQ(sum, got.data[size_t(i * 21 + j)]) << i << "," << j;
    }
  // And the mode is this thread's, for its scope only: compensated again outside it.
  { const ScopedAccumulation inner(Accumulation::compensated); EXPECT_EQ(accumulation(), Accumulation::compensated); }
  EXPECT_EQ(accumulation(), Accumulation::f64);
}

}  // namespace
}  // namespace tandem::ref
