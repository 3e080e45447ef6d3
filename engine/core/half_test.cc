// Exhaustive checks of bf16 / f16 conversion: every bit pattern round-trips, and every
// rounding boundary (midpoints between neighbours, and one ulp of f32 either side) rounds
// to nearest with ties to even. NaN stays NaN, Inf stays Inf, subnormals are exact.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/half.h"

namespace tandem {
namespace {

template <class H>
void check_all_patterns(H (*to)(float)) {
  for (uint32_t b = 0; b < 65536; ++b) {
    H h = H::from_bits(uint16_t(b));
    float f = to_f32(h);
    H back = to(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(to_f32(back))) << b;
    } else {
      ASSERT_EQ(back.bits, h.bits) << "pattern " << b << " value " << f;
    }
  }
}

TEST(Half, Bf16EveryPatternRoundTrips) { check_all_patterns<bf16>(to_bf16); }
TEST(Half, F16EveryPatternRoundTrips) { check_all_patterns<f16>(to_f16); }

// Between two adjacent finite positive values lo < hi of the narrow type: just below the
// midpoint rounds to lo, just above to hi, the midpoint itself to the even one.
template <class H>
void check_all_midpoints(H (*to)(float), uint16_t max_finite) {
  for (uint32_t b = 0; b < max_finite; ++b) {
    H lo = H::from_bits(uint16_t(b)), hi = H::from_bits(uint16_t(b + 1));
    double mid = (double(to_f32(lo)) + double(to_f32(hi))) / 2;
    float m = float(mid);
    ASSERT_EQ(double(m), mid) << "midpoint not exact in f32 at " << b;
    uint16_t even = (b % 2 == 0) ? lo.bits : hi.bits;
    EXPECT_EQ(to(m).bits, even) << "tie at pattern " << b;
    EXPECT_EQ(to(std::nextafter(m, 0.0f)).bits, lo.bits) << b;
    EXPECT_EQ(to(std::nextafter(m, INFINITY)).bits, hi.bits) << b;
    EXPECT_EQ(to(-std::nextafter(m, INFINITY)).bits, uint16_t(hi.bits | 0x8000)) << b;
  }
}

TEST(Half, Bf16EveryMidpointRoundsToNearestEven) { check_all_midpoints<bf16>(to_bf16, 0x7f7f); }
TEST(Half, F16EveryMidpointRoundsToNearestEven) { check_all_midpoints<f16>(to_f16, 0x7bff); }

TEST(Half, SpecialValues) {
  EXPECT_EQ(to_f16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(to_f16(65519.0f).bits, 0x7bff);
  EXPECT_EQ(to_f16(65520.0f).bits, 0x7c00);  // overflow rounds to Inf
  EXPECT_EQ(to_f16(-INFINITY).bits, 0xfc00);
  EXPECT_EQ(to_f16(0x1p-24f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(to_f16(0x1p-25f).bits, 0x0000);  // tie to even → 0
  EXPECT_EQ(to_f16(0x1.8p-25f).bits, 0x0001);
  EXPECT_TRUE(std::isnan(to_f32(to_f16(NAN))));
  EXPECT_TRUE(std::isnan(to_f32(to_bf16(NAN))));
  EXPECT_EQ(to_bf16(INFINITY).bits, 0x7f80);
  EXPECT_EQ(to_bf16(3.4e38f).bits, 0x7f80);  // above the largest bf16 midpoint → Inf
  EXPECT_EQ(to_bf16(1.0f + 0x1p-8f).bits, to_bf16(1.0f).bits);  // tie to even
  EXPECT_EQ(to_f32(to_bf16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);
  EXPECT_EQ(round_to_tf32(1.0f + 0x1p-11f), 1.0f);               // tie to even
  EXPECT_EQ(round_to_tf32(1.0f + 3 * 0x1p-11f), 1.0f + 0x1p-9f);
  EXPECT_EQ(to_f32(to_bf16(0x1p-133f)), 0x1p-133f);  // f32 subnormal, exact in bf16
}

}  // namespace
}  // namespace tandem
