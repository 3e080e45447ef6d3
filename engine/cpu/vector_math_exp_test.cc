// The vectorized f32 exp, logistic and tanh (vector_math_exp.h) against libm in f64: every 61st float bit pattern over
// the whole range, a dense sweep of [-30, 30] and of the overflow/underflow edges, and the special values (±0, ±Inf,
// NaN, subnormals, saturation). The max-ulp bounds asserted here are the ones vector_math_exp.h states; the test prints
// the measured worst case next to libm's own f32 functions on the same points.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "engine/cpu/vector_math_exp.h"

namespace tandem::cpu {
namespace {

// |got - exact| in f32 ulps at the exact value (subnormal spacing below 2^-126). ±Inf counts
// as ±2^128, the value IEEE rounding overflows at, and so does an exact value beyond it: a
// result one ulp past FLT_MAX is 1 ulp, and Inf for an exact 1e100 is right.
double ulps(float got, double exact) {
  const double g = std::isinf(got) ? std::copysign(0x1p128, got) : double(got);
  const double e = std::fabs(exact) >= 0x1p128 ? std::copysign(0x1p128, exact) : exact;
  if (e == g) return 0;
  const double spacing = std::ldexp(1.0, std::max(std::ilogb(std::fabs(e)), -126) - 23);
  return std::fabs(g - e) / spacing;
}

double exact_exp(float x) { return std::exp(double(x)); }
double exact_logistic(float x) { return 1.0 / (1.0 + std::exp(-double(x))); }
double exact_tanh(float x) { return std::tanh(double(x)); }
float libm_logistic(float x) { return 1.0f / (1.0f + std::exp(-x)); }

std::vector<float> points() {
  std::vector<float> x;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 241) {
    const float v = std::bit_cast<float>(uint32_t(b));
    if (!std::isnan(v)) x.push_back(v);
  }
  for (int i = -3'000'000; i <= 3'000'000; ++i) x.push_back(float(i) * 1e-5f);  // [-30, 30]
  for (float edge : {88.72f, -87.33f, -103.28f, 0.625f, -0.625f, 9.0f, -9.0f})  // overflow, subnormal start, underflow, tanh's switch, tanh's saturation
    for (int i = -20000; i <= 20000; ++i) x.push_back(edge + float(i) * 2e-6f);
  return x;
}

struct Worst {
  double ulp = 0;
  float at = 0;
  void add(double u, float x) {
    if (u > ulp) ulp = u, at = x;
  }
};

template <class Fast, class Array, class Exact, class Libm>
void check(const char* name, Fast fast, Array array, Exact exact, Libm libm, double bound) {
  const std::vector<float> x = points();
  std::vector<float> y(x.size());
  array(x.data(), y.data(), int64_t(x.size()));
  Worst ours, theirs;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(fast(x[i])))
        << name << ": array and inline paths differ at " << x[i];
    const double e = exact(x[i]);
    ours.add(ulps(y[i], e), x[i]);
    theirs.add(ulps(libm(x[i]), e), x[i]);
  }
  std::printf("%s over %zu points: max %.3f ulp at %.9g (libm f32: %.3f ulp at %.9g)\n", name, x.size(), ours.ulp,
              double(ours.at), theirs.ulp, double(theirs.at));
  EXPECT_LE(ours.ulp, bound) << name << " at x = " << ours.at;
}

TEST(VectorMathExp, ExpWithinOneUlpOfLibmF64) {
  check("exp", exp_f, exp_f32, exact_exp, [](float v) { return std::exp(v); }, 1.0);
}
TEST(VectorMathExp, LogisticWithinTwoAndAHalfUlpOfLibmF64) {
  check("logistic", logistic_f, logistic_f32, exact_logistic, libm_logistic, 2.5);
}
TEST(VectorMathExp, TanhWithinOneAndAHalfUlpOfLibmF64) {
  check("tanh", tanh_f, tanh_f32, exact_tanh, [](float v) { return std::tanh(v); }, 1.5);
}

// Special values, saturation and subnormal inputs give libm's f32 result bit for bit (NaN: some NaN), in place too.
TEST(VectorMathExp, SpecialValuesAsLibm) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float tiny = std::numeric_limits<float>::denorm_min(), sub = 1e-40f, big = std::numeric_limits<float>::max();
  const std::vector<float> xs = {0.0f, -0.0f, inf, -inf, nan, -nan, tiny, -tiny, sub, -sub, big, -big,
                                 89.0f, 88.8f, -104.0f, -110.0f, 1e-8f, -1e-8f};
  auto same = [](float want, float got) {
    return std::isnan(want) ? std::isnan(got) : std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(got);
  };
  std::vector<float> e = xs, s = xs, t = xs;
  exp_f32(e.data(), e.data(), int64_t(e.size()));
  logistic_f32(s.data(), s.data(), int64_t(s.size()));
  tanh_f32(t.data(), t.data(), int64_t(t.size()));
  for (size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    EXPECT_TRUE(same(std::exp(x), e[i])) << "exp(" << x << ") = " << e[i] << ", libm " << std::exp(x);
    EXPECT_TRUE(same(libm_logistic(x), s[i])) << "logistic(" << x << ") = " << s[i] << ", libm " << libm_logistic(x);
    EXPECT_TRUE(same(std::tanh(x), t[i])) << "tanh(" << x << ") = " << t[i] << ", libm " << std::tanh(x);
  }
}

}  // namespace
}  // namespace tandem::cpu
