// The vectorized f32 sin/cos against libm in f64: a dense sweep of the vector range, the
// neighbourhoods of the quarter turns (where the reduction matters most), values beyond the
// range (libm fallback), Inf/NaN, and in-place use.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/cpu/vector_math.h"

namespace tandem::cpu {
namespace {

// Error in units of the f32 spacing at the exact value, after 2^-26 of absolute slack: near
// a zero of sin/cos the reduced argument carries an absolute error (≈ 10^-11 here) that is
// many ulps of a tiny result but far below what any consumer can see.
double ulps(float got, double exact) {
  double spacing = std::ldexp(1.0, std::max(std::ilogb(std::fabs(exact)), -126) - 23);
  return std::max(0.0, std::fabs(double(got) - exact) - std::ldexp(1.0, -26)) / spacing;
}

std::vector<float> sweep() {
  std::vector<float> x;
  for (int i = -2'000'000; i <= 2'000'000; ++i) x.push_back(float(i) * (8192.0f / 2'000'000));
  for (int k = -5000; k <= 5000; ++k)  // around every quarter turn up to ~7850
    for (int d = -3; d <= 3; ++d) x.push_back(std::nextafter(float(k * M_PI_2), d < 0 ? -1e9f : 1e9f) + float(d) * 1e-7f);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-8f, 0.785398f, 1.5707964f, 3.1415927f}) x.push_back(v);
  return x;
}

TEST(VectorMath, SinCosWithinTwoUlpPlusTinyAbsoluteOnTheVectorRange) {
  std::vector<float> x = sweep(), c(x.size()), s(x.size());
  cos_f32(x.data(), c.data(), int64_t(x.size()));
  sin_f32(x.data(), s.data(), int64_t(x.size()));
  double worst_c = 0, worst_s = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    worst_c = std::max(worst_c, ulps(c[i], std::cos(double(x[i]))));
    worst_s = std::max(worst_s, ulps(s[i], std::sin(double(x[i]))));
    ASSERT_EQ(c[i], cos_f(x[i])) << "array and scalar paths differ at " << x[i];
  }
  std::printf("max error over %zu points: cos %.2f ulp, sin %.2f ulp\n", x.size(), worst_c, worst_s);
  EXPECT_LE(worst_c, 2.0);
  EXPECT_LE(worst_s, 2.0);
}

TEST(VectorMath, OutOfRangeAndNonFiniteFallBackToLibm) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {8193.0f, -1e6f, 3.4e38f, inf, -inf, std::nanf(""), 0.5f};
  std::vector<float> y = x;  // in place
  cos_f32(y.data(), y.data(), int64_t(y.size()));
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    float want = std::cos(x[i]);
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(y[i])) << x[i];
    else EXPECT_EQ(y[i], want) << x[i];
  }
  EXPECT_EQ(y.back(), cos_f(0.5f));
  y = x;
  sin_f32(y.data(), y.data(), int64_t(y.size()));
  EXPECT_EQ(y[1], std::sin(-1e6f));
  EXPECT_TRUE(std::isnan(y[3]) && std::isnan(y[5]));
}

TEST(VectorMath, OddAndEvenSymmetry) {
  for (float v : {0.1f, 1.0f, 2.5f, 100.0f, 4000.5f}) {
    EXPECT_EQ(sin_f(-v), -sin_f(v)) << v;
    EXPECT_EQ(cos_f(-v), cos_f(v)) << v;
  }
}

}  // namespace
}  // namespace tandem::cpu
