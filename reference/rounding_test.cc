// Tests of round_to against known bit patterns and against independent conversions
// (the hardware f64 -> f32 cast, a bit-trick f32 -> bf16, and _Float16 where available).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "reference/reference.h"

namespace tandem::ref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Rounding, Bf16TiesToEven) {
  EXPECT_EQ(round_to(DType::bf16, 1 + 0x1p-8), 1.0);                   // tie, 1 is even
  EXPECT_EQ(round_to(DType::bf16, 1 + 3 * 0x1p-8), 1 + 0x1p-6);        // tie, up to even
  EXPECT_EQ(round_to(DType::bf16, 1 + 5 * 0x1p-8), 1 + 0x1p-6);        // tie, down to even
  EXPECT_EQ(round_to(DType::bf16, 1 + 0x1p-8 + 0x1p-30), 1 + 0x1p-7);  // just above the tie
  EXPECT_EQ(round_to(DType::bf16, 1 + 0x1p-8 - 0x1p-30), 1.0);         // just below it
  EXPECT_EQ(round_to(DType::bf16, -(1 + 3 * 0x1p-8)), -(1 + 0x1p-6));
  EXPECT_EQ(round_to(DType::bf16, 3.140625), 3.140625);  // exactly representable: kept
}

// Each tie of tie_points goes to its even neighbour: the grid the suites' tie cases feed the
// engine (dot/ties, the convert_ties rows) is a grid of real ties with these answers.
TEST(Rounding, TiePointsGoToTheEvenNeighbour) {
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    const FloatFormat f = float_format(t);
    const double u = std::ldexp(1.0, 1 - f.precision), q = std::ldexp(1.0, f.emin - f.precision + 1);
    const double max = max_finite(t), ulp_max = std::ldexp(1.0, f.emax - f.precision + 1);
    const std::vector<double> even = {1, 1 + 2 * u, 2, max - ulp_max, kInf, 0, 2 * q, 2 * q, std::ldexp(1.0, f.emin)};
    const std::vector<double> ties = tie_points(t);
    ASSERT_EQ(ties.size(), 2 * even.size());
    for (size_t i = 0; i < ties.size(); ++i) {
      const double want = i < even.size() ? even[i] : -even[i - even.size()];
      EXPECT_EQ(round_to(t, ties[i]), want) << dtype_name(t) << " tie " << ties[i];
      EXPECT_NE(round_to_format(FloatFormat{f.precision + 1, f.emin, f.emax}, ties[i]), want)
          << "a tie is representable with one more bit, not with p";
    }
  }
}

TEST(Rounding, Bf16RangeEnds) {
  const double max = 0x1.fep127;
  EXPECT_EQ(max_finite(DType::bf16), max);
  EXPECT_EQ(round_to(DType::bf16, max), max);
  EXPECT_EQ(round_to(DType::bf16, max + 0x1p119), kInf);  // max + half ulp: tie goes to inf
  EXPECT_EQ(round_to(DType::bf16, max + 0x1p118), max);
  EXPECT_EQ(round_to(DType::bf16, 0x1p-133), 0x1p-133);  // smallest subnormal
  EXPECT_EQ(round_to(DType::bf16, 0x1p-134), 0.0);       // half of it: tie to even zero
  EXPECT_EQ(round_to(DType::bf16, 3 * 0x1p-135), 0x1p-133);
  EXPECT_EQ(round_to(DType::bf16, 1e300), kInf);
  EXPECT_EQ(round_to(DType::bf16, -1e300), -kInf);
}

TEST(Rounding, F16KnownValues) {
  EXPECT_EQ(max_finite(DType::f16), 65504.0);
  EXPECT_EQ(round_to(DType::f16, 65504.0), 65504.0);
  EXPECT_EQ(round_to(DType::f16, 65519.0), 65504.0);
  EXPECT_EQ(round_to(DType::f16, 65520.0), kInf);
  EXPECT_EQ(round_to(DType::f16, -65520.0), -kInf);
  EXPECT_EQ(round_to(DType::f16, 0x1p-24), 0x1p-24);  // smallest subnormal
  EXPECT_EQ(round_to(DType::f16, 0x1p-25), 0.0);      // tie to even (zero)
  EXPECT_EQ(round_to(DType::f16, 3 * 0x1p-26), 0x1p-24);
  EXPECT_EQ(round_to(DType::f16, 3 * 0x1p-25), 0x1p-23);        // 1.5 quanta: tie up to even 2
  EXPECT_EQ(round_to(DType::f16, 0x1p-14 - 0x1p-25), 0x1p-14);  // rounds up into the normals
  EXPECT_EQ(round_to(DType::f16, 1 + 0x1p-11), 1.0);
  EXPECT_EQ(round_to(DType::f16, 1 + 3 * 0x1p-11), 1 + 0x1p-9);
  EXPECT_EQ(round_to(DType::f16, 2049.0), 2048.0);
  EXPECT_EQ(round_to(DType::f16, 2051.0), 2052.0);
  EXPECT_EQ(round_to(DType::f16, 0.1), 0x1.998p-4);
}

TEST(Rounding, NanInfAndSignedZero) {
  for (DType t : {DType::f64, DType::f32, DType::bf16, DType::f16}) {
    EXPECT_TRUE(std::isnan(round_to(t, kNaN))) << dtype_name(t);
    EXPECT_EQ(round_to(t, kInf), kInf);
    EXPECT_EQ(round_to(t, -kInf), -kInf);
    EXPECT_TRUE(std::signbit(round_to(t, -0.0)));
  }
  EXPECT_TRUE(std::signbit(round_to(DType::f16, -0x1p-40)));  // underflows to -0
  EXPECT_EQ(round_to(DType::f16, -0x1p-40), 0.0);
}

TEST(Rounding, F32MatchesHardwareCast) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> exp(-160, 140);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  for (int i = 0; i < 200000; ++i) {
    double v = std::ldexp(mant(rng), exp(rng)) * (i % 2 ? -1 : 1);
    if (i % 3 == 0) {  // an exact tie: a random f32 plus half its ulp
      const float f = static_cast<float>(v);
      const float next = std::nextafter(f, 2 * f);
      if (std::isfinite(next)) v = (static_cast<double>(f) + static_cast<double>(next)) / 2;
    }
    ASSERT_EQ(round_to(DType::f32, v), static_cast<double>(static_cast<float>(v))) << v;
  }
}

// bf16 from an f32 bit pattern: add 0x7fff plus the lowest kept bit, drop 16 bits.
double bf16_by_bits(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  return static_cast<double>(std::bit_cast<float>(rounded));
}

TEST(Rounding, Bf16MatchesBitTrickOnF32Values) {
  std::mt19937 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(f)) continue;
    ASSERT_EQ(round_to(DType::bf16, f), bf16_by_bits(f)) << f;
  }
}

// The compiler's IEEE half: _Float16, except under GCC 12 on AArch64, whose C++ front end knows
// it on x86 only; there __fp16, converted from double in one rounding (FCVT Hd, Dd).
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define TANDEM_COMPILER_F16 __fp16
#elif defined(__FLT16_MAX__)
#define TANDEM_COMPILER_F16 _Float16
#endif

#ifdef TANDEM_COMPILER_F16
TEST(Rounding, F16MatchesCompilerFloat16) {
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<int> exp(-30, 17);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::ldexp(mant(rng), exp(rng)) * (i % 2 ? -1 : 1);
    ASSERT_EQ(round_to(DType::f16, v), static_cast<double>(static_cast<TANDEM_COMPILER_F16>(v))) << v;
  }
}
#endif

// round_to_format as it was first written, from frexp / ldexp / floor (the definition): the
// bit-level routine must give its bits on every value below.
double defined_rounding(const FloatFormat& f, double v) {
  if (std::isnan(v) || std::isinf(v) || v == 0.0) return v;
  const double a = std::fabs(v);
  int e = 0;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  if (e - 1 > f.emax) return std::copysign(kInf, v);
  const int quantum_exp = std::max(e - 1, f.emin) - (f.precision - 1);
  const double scaled = std::ldexp(a, -quantum_exp), lower = std::floor(scaled), frac = scaled - lower;
  const double r = frac > 0.5 || (frac == 0.5 && std::fmod(lower, 2.0) != 0.0) ? lower + 1 : lower;
  const double rounded = std::ldexp(r, quantum_exp);
  return rounded > std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax) ? std::copysign(kInf, v) : std::copysign(rounded, v);
}

void expect_as_defined(const FloatFormat& f, double v) {
  const double got = round_to_format(f, v), want = defined_rounding(f, v);
  ASSERT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want))
      << "p=" << f.precision << " v=" << std::hexfloat << v << " got " << got << " want " << want;
}

// Around value x of a format with y its next value up: x, the midpoint and a double's ulp either
// side of each, both signs: every place where rounding decides.
void expect_around(const FloatFormat& f, double x, double y) {
  const double mid = (x + y) / 2;  // exact: both on a grid finer than f64's
  for (double v : {x, mid, std::nextafter(x, -kInf), std::nextafter(x, kInf), std::nextafter(mid, -kInf),
                   std::nextafter(mid, kInf)}) {
    expect_as_defined(f, v);
    expect_as_defined(f, -v);
  }
}

// Every value of the format in order (every `stride`-th inside a binade, its first and last four
// always): the subnormals k·q, then (2^(p-1) + j)·2^(e-p+1) per binade, and after max_finite its
// would-be next value (the overflow threshold is their midpoint).
void expect_every_value(const FloatFormat& f, int64_t stride) {
  const int64_t half = int64_t(1) << (f.precision - 1), binades = f.emax - f.emin + 2;  // the subnormals' included
  auto value = [&](int64_t i) {  // the i-th nonnegative value
    const int64_t b = i / half, j = i % half;
    return b == 0 ? std::ldexp(double(j), f.emin - f.precision + 1) : std::ldexp(double(half + j), f.emin + int(b) - f.precision);
  };
  for (int64_t b = 0; b < binades; ++b)
    for (int64_t j = 0; j < half; j = j < 4 || j >= half - 4 ? j + 1 : std::min(j + stride, half - 4))
      expect_around(f, value(b * half + j), value(b * half + j + 1));
}

// The bit-level rounding gives the definition's bits: on every f16 and bf16 value and midpoint
// (exhaustive), every f32 subnormal and binade edge and a strided sample of the rest, f64's
// subnormals and extremes, and 10^6 random f64 bit patterns per format, half of them in its range.
TEST(Rounding, BitLevelRoutineEqualsTheDefinition) {
  for (DType t : {DType::f16, DType::bf16}) expect_every_value(float_format(t), 1);
  expect_every_value(float_format(DType::f32), 9973);
  expect_every_value(FloatFormat{11, -126, 127}, 1);  // tf32, as the dot suites round to it
  std::mt19937_64 rng(17);
  for (DType t : {DType::f64, DType::f32, DType::bf16, DType::f16}) {
    const FloatFormat f = float_format(t);
    for (double v : {0x1p-1074, 0x1p-1022, 0x1.fffffffffffffp-1023, 0x1.fffffffffffffp1023, 1e-300, 1e300})
      expect_around(f, v, std::nextafter(v, kInf));
    for (double v : tie_points(t)) expect_as_defined(f, v);
    // Any bit pattern, and (every other one) its exponent drawn from the format's range and a little beyond.
    std::uniform_int_distribution<uint64_t> exponent(uint64_t(std::max(1, 1023 + f.emin - f.precision - 2)),
                                                           uint64_t(1023 + std::min(f.emax + 1, 1023)));
    for (int i = 0; i < 1000000; ++i) {
      uint64_t bits = rng();
      if (i % 2) bits = (bits & 0x800fffffffffffffULL) | exponent(rng) << 52;
      if (!std::isnan(std::bit_cast<double>(bits))) expect_as_defined(f, std::bit_cast<double>(bits));
    }
  }
}

TEST(Rounding, I32TruncatesAndWraps) {
  EXPECT_EQ(round_to(DType::i32, 2.7), 2.0);
  EXPECT_EQ(round_to(DType::i32, -2.7), -2.0);
  EXPECT_FALSE(std::signbit(round_to(DType::i32, -0.5)));
  EXPECT_EQ(round_to(DType::i32, 2147483647.0), 2147483647.0);
  EXPECT_EQ(round_to(DType::i32, 2147483648.0), -2147483648.0);
  EXPECT_EQ(round_to(DType::i32, -2147483649.0), 2147483647.0);
  EXPECT_EQ(round_to(DType::i32, 4294967301.0), 5.0);
  EXPECT_EQ(round_to(DType::i32, kNaN), 0.0);
}

TEST(Rounding, Pred) {
  EXPECT_EQ(round_to(DType::pred, 0.0), 0.0);
  EXPECT_EQ(round_to(DType::pred, -0.0), 0.0);
  EXPECT_EQ(round_to(DType::pred, -3.5), 1.0);
  EXPECT_EQ(round_to(DType::pred, kNaN), 1.0);
}

TEST(Array, MakeRoundsAndChecksSize) {
  const Array a = make({2}, DType::bf16, {1 + 0x1p-8, 1 + 3 * 0x1p-8});
  EXPECT_EQ(a.data, (std::vector<double>{1.0, 1 + 0x1p-6}));
  EXPECT_EQ(scalar(DType::f16, 65520.0).data[0], kInf);
  EXPECT_EQ(scalar(DType::f32, 1.0).numel(), 1);
  EXPECT_THROW(make({2, 2}, DType::f32, {1, 2, 3}), std::invalid_argument);
  EXPECT_THROW(make({-1}, DType::f32, {}), std::invalid_argument);
  EXPECT_EQ(full({2, 0}, DType::f32, 1.0).numel(), 0);
}

// The memo of recurring operands: a repeat gets round_each's bits again; the same size with one
// value changed, or another format, gets its own rounding, never the remembered one.
TEST(Rounding, RecurringOperandRoundsAsEachTime) {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> d(-3, 3);
  std::vector<double> x(5000), want;
  for (double& v : x) v = d(g);
  want = x;
  round_each(DType::bf16, want);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<double> y = x;
    round_each_recurring(DType::bf16, y);
    EXPECT_EQ(y, want);
  }
  x.back() = 1 + 0x1p-9;  // 1 in bf16 (a quarter of its ulp above)
  std::vector<double> y = x;
  round_each_recurring(DType::bf16, y);
  EXPECT_EQ(y.back(), 1.0);
  EXPECT_TRUE(std::equal(y.begin(), y.end() - 1, want.begin()));
  EXPECT_EQ(round_to_f8("e5m2", x), round_to_f8("e5m2", x));
  EXPECT_NE(round_to_f8("e4m3fn", x), round_to_f8("e5m2", x));
  std::vector<double> f16 = x;
  round_each(DType::f16, f16);
  round_each_recurring(DType::f16, x);
  EXPECT_EQ(x, f16);
}

}  // namespace
}  // namespace tandem::ref
