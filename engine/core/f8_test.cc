// round_to_f8 on hand-worked values of both formats: exact ties (half-even and half-away give
// different answers on every one below), ±0, subnormals and the underflow to zero, the
// overflow boundary (e4m3fn: 448, 464 → 448, above → NaN; e5m2: 57344, 61440 → Inf), Inf,
// NaN, and a value a rounding through f32 would get wrong. The exhaustive comparison with the
// reference's own rounding is suites/dot/f8_rounding_test.cc; with ml_dtypes, f8_vs_ml_dtypes.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/f8.h"

namespace tandem {
namespace {

constexpr F8Format E4 = F8Format::e4m3fn, E5 = F8Format::e5m2;

void expect_round(F8Format f, double v, double want) {
  const double got = round_to_f8(v, f);
  EXPECT_EQ(got, want) << f8_info(f).name << " " << v;
  EXPECT_EQ(std::signbit(got), std::signbit(want)) << f8_info(f).name << " " << v;
}

TEST(F8, TiesGoToTheEvenNeighbour) {
  // e4m3fn near 1: ulp 1/8. 1 + 1/16 is midway between 1 (mantissa 000) and 1.125 (001): even
  // is 1, where half-away gives 1.125; 1 + 3/16 lies between 1.125 (001) and 1.25 (010): 1.25.
  expect_round(E4, 1.0625, 1.0);
  expect_round(E4, 1.1875, 1.25);
  expect_round(E4, -1.0625, -1.0);
  expect_round(E4, 1.0625 + 0x1p-40, 1.125);  // just above the tie
  expect_round(E4, 1.1875 - 0x1p-40, 1.125);  // just below the tie
  // e5m2 near 1: ulp 1/4. 1.125 ties to 1 (00), 1.375 to 1.5 (10).
  expect_round(E5, 1.125, 1.0);
  expect_round(E5, 1.375, 1.5);
  // At the top of a binade: e4m3fn 1.9375 ties between 1.875 (111) and 2 (next binade, 000).
  expect_round(E4, 1.9375, 2.0);
}

TEST(F8, ZerosAndSubnormals) {
  expect_round(E4, 0.0, 0.0);
  expect_round(E4, -0.0, -0.0);
  expect_round(E5, -0.0, -0.0);
  // e4m3fn subnormals are multiples of 2^-9 below 2^-6; e5m2's of 2^-16 below 2^-14.
  expect_round(E4, 0x1p-9, 0x1p-9);
  expect_round(E4, 7 * 0x1p-9, 7 * 0x1p-9);
  expect_round(E4, 0x1p-10, 0.0);                // the tie between 0 and 2^-9: 0 is even
  expect_round(E4, -0x1p-10, -0.0);              // the sign survives the underflow
  expect_round(E4, 0x1p-10 * (1 + 0x1p-20), 0x1p-9);
  expect_round(E4, 3 * 0x1p-10, 2 * 0x1p-9);     // 1.5 quanta: tie, to 2 (even)
  expect_round(E4, 5 * 0x1p-10, 2 * 0x1p-9);     // 2.5 quanta: tie, to 2 (even)
  expect_round(E4, 15 * 0x1p-10, 0x1p-6);        // 7.5 quanta: to 8, the smallest normal
  expect_round(E5, 0x1p-17, 0.0);
  expect_round(E5, 3 * 0x1p-17, 2 * 0x1p-16);
  expect_round(E5, 1e-30, 0.0);
}

TEST(F8, OverflowInfAndNaN) {
  expect_round(E4, 448, 448);
  expect_round(E4, 464, 448);  // midway to the 480 e4m3fn lacks: ties to 448 (even mantissa)
  expect_round(E4, -464, -448);
  EXPECT_TRUE(std::isnan(round_to_f8(464 + 0x1p-40, E4)));
  EXPECT_TRUE(std::isnan(round_to_f8(1e30, E4)));
  EXPECT_TRUE(std::isnan(round_to_f8(INFINITY, E4)));  // no Inf in e4m3fn
  EXPECT_TRUE(std::signbit(round_to_f8(-INFINITY, E4)));
  expect_round(E5, 57344, 57344);
  expect_round(E5, 61440 - 1, 57344);
  expect_round(E5, 61440, INFINITY);  // the tie goes to the even pattern, which is Inf
  expect_round(E5, -1e30, -INFINITY);
  expect_round(E5, INFINITY, INFINITY);
  for (F8Format f : {E4, E5}) EXPECT_TRUE(std::isnan(round_to_f8(NAN, f)));
}

TEST(F8, NamesParseAndUnknownIsNone) {
  for (const F8Info& i : all_f8_formats()) EXPECT_EQ(parse_f8_format(i.name), i.format);
  EXPECT_FALSE(parse_f8_format("e4m3").has_value());
  EXPECT_EQ(f8_format_names(), "e4m3fn | e5m2");
}

}  // namespace
}  // namespace tandem
