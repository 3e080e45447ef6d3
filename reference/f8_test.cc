// The reference's f8 formats on their definitions: the patterns ml_dtypes documents (max,
// smallest normal and subnormal, Inf / NaN encodings) and hand-worked roundings — ties to the
// even pattern, ±0, subnormals, the overflow boundary of each format, Inf and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/f8.h"

namespace tandem::ref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(F8, DecodedPatterns) {
  EXPECT_EQ(decode_f8("e4m3fn", 0x7e), 448.0);
  EXPECT_TRUE(std::isnan(decode_f8("e4m3fn", 0x7f)));
  EXPECT_TRUE(std::isnan(decode_f8("e4m3fn", 0xff)));
  EXPECT_EQ(decode_f8("e4m3fn", 0x78), 256.0);  // exponent all ones is finite in e4m3fn
  EXPECT_EQ(decode_f8("e4m3fn", 0x08), 0x1p-6);
  EXPECT_EQ(decode_f8("e4m3fn", 0x01), 0x1p-9);
  EXPECT_EQ(decode_f8("e4m3fn", 0x38), 1.0);
  EXPECT_EQ(decode_f8("e4m3fn", 0xb8), -1.0);
  EXPECT_EQ(decode_f8("e5m2", 0x7b), 57344.0);
  EXPECT_EQ(decode_f8("e5m2", 0x7c), kInf);
  EXPECT_EQ(decode_f8("e5m2", 0xfc), -kInf);
  EXPECT_TRUE(std::isnan(decode_f8("e5m2", 0x7d)));
  EXPECT_EQ(decode_f8("e5m2", 0x04), 0x1p-14);
  EXPECT_EQ(decode_f8("e5m2", 0x01), 0x1p-16);
  EXPECT_EQ(decode_f8("e5m2", 0x3c), 1.0);
  EXPECT_THROW(decode_f8("e4m3", 0), std::invalid_argument);
}

TEST(F8, RoundsToNearestTiesToEven) {
  EXPECT_EQ(round_to_f8("e4m3fn", 1.0625), 1.0);    // tie between 1 (0x38) and 1.125 (0x39)
  EXPECT_EQ(round_to_f8("e4m3fn", 1.1875), 1.25);   // tie between 0x39 and 0x3a
  EXPECT_EQ(round_to_f8("e4m3fn", 1.0625 + 0x1p-40), 1.125);
  EXPECT_EQ(round_to_f8("e4m3fn", -1.1875), -1.25);
  EXPECT_EQ(round_to_f8("e5m2", 1.125), 1.0);
  EXPECT_EQ(round_to_f8("e5m2", 1.375), 1.5);
  EXPECT_EQ(round_to_f8("e4m3fn", 0.3), 0.3125);
}

TEST(F8, ZerosAndSubnormals) {
  EXPECT_TRUE(std::signbit(round_to_f8("e4m3fn", -0.0)));
  EXPECT_EQ(round_to_f8("e4m3fn", 0x1p-10), 0.0);  // half the smallest subnormal: tie to 0
  EXPECT_TRUE(std::signbit(round_to_f8("e4m3fn", -0x1p-10)));
  EXPECT_EQ(round_to_f8("e4m3fn", 3 * 0x1p-10), 2 * 0x1p-9);
  EXPECT_EQ(round_to_f8("e4m3fn", 15 * 0x1p-10), 0x1p-6);
  EXPECT_EQ(round_to_f8("e5m2", 3 * 0x1p-17), 2 * 0x1p-16);
  EXPECT_EQ(round_to_f8("e5m2", 1e-300), 0.0);
}

TEST(F8, OverflowInfAndNaN) {
  EXPECT_EQ(round_to_f8("e4m3fn", 464.0), 448.0);  // midway to the absent 480: 0x7e is even
  EXPECT_TRUE(std::isnan(round_to_f8("e4m3fn", 465.0)));
  EXPECT_TRUE(std::isnan(round_to_f8("e4m3fn", kInf)));
  EXPECT_TRUE(std::isnan(round_to_f8("e4m3fn", std::nan(""))));
  EXPECT_EQ(round_to_f8("e5m2", 61439.0), 57344.0);
  EXPECT_EQ(round_to_f8("e5m2", 61440.0), kInf);  // midway: the even pattern 0x7c is Inf
  EXPECT_EQ(round_to_f8("e5m2", -kInf), -kInf);
  EXPECT_EQ(round_to_f8("e5m2", std::vector<double>{1e9, -3.0}), (std::vector<double>{kInf, -3.0}));
}

// The rounding as first written: a linear scan for the pattern below, the definition the binary
// search must match bit for bit: at every pattern's value, each midpoint and a double's ulp either
// side of both, both signs, for both formats.
double scanned(const std::string& format, double v) {
  if (std::isnan(v)) return v;
  std::vector<double> values;
  for (int bits = 0; bits < 128; ++bits) values.push_back(decode_f8(format, bits));
  int max_bits = 0;
  while (max_bits + 1 < 128 && std::isfinite(values[size_t(max_bits + 1)])) ++max_bits;
  const double a = std::fabs(v), next_value = 2 * values[size_t(max_bits)] - values[size_t(max_bits - 1)];
  int lo = 0, chosen = 0;
  while (lo < max_bits && values[size_t(lo + 1)] <= a) ++lo;
  chosen = lo;
  if (values[size_t(lo)] != a) {
    const double hi_value = lo + 1 > max_bits ? next_value : values[size_t(lo + 1)];
    const double below = a - values[size_t(lo)], above = hi_value - a;
    chosen = below < above ? lo : above < below ? lo + 1 : (lo % 2 == 0 ? lo : lo + 1);
  }
  return std::copysign(chosen > max_bits ? decode_f8(format, max_bits + 1) : values[size_t(chosen)], v);
}

TEST(F8, BinarySearchEqualsTheLinearScan) {
  for (const std::string format : {"e4m3fn", "e5m2"}) {
    std::vector<double> points = {kInf, 1e300, 1e-300, 0.0};
    for (int bits = 0; bits < 127; ++bits) {
      const double x = decode_f8(format, bits), y = decode_f8(format, bits + 1);
      if (!std::isfinite(x)) continue;
      const double mid = std::isfinite(y) ? (x + y) / 2 : x + (x - decode_f8(format, bits - 1)) / 2;  // past max: overflow's threshold
      for (double p : {x, mid}) points.insert(points.end(), {p, std::nextafter(p, -kInf), std::nextafter(p, kInf)});
    }
    for (double p : points)
      for (double v : {p, -p}) {
        const double got = round_to_f8(format, v), want = scanned(format, v);
        EXPECT_TRUE(got == want ? std::signbit(got) == std::signbit(want) : std::isnan(got) && std::isnan(want))
            << format << " " << v << ": " << got << " vs " << want;
      }
    const std::vector<double> as_vector = round_to_f8(format, points);
    for (size_t i = 0; i < points.size(); ++i) EXPECT_TRUE(as_vector[i] == scanned(format, points[i]) || std::isnan(as_vector[i]));
  }
}

}  // namespace
}  // namespace tandem::ref
