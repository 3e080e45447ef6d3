// exp, logistic and tanh (vector_math_exp.h; the LSTM's gate nonlinearities) on NaN, ±Inf and
// huge inputs, compiled with UBSan's float-cast-overflow and signed-integer-overflow checks that abort on the first report: a
// NaN converted to int or an exponent that overflows fails this test in every build, not only
// in a sanitizer build. NaN must propagate; ±Inf saturate (docs/LSTM_DATA.md).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/cpu/vector_math_exp.h"

namespace tandem::cpu {
namespace {

TEST(VectorMathExpUbsan, NanPropagatesInfSaturatesWithoutUndefinedBehaviour) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xs = {nan, -nan, inf, -inf, 1e30f, -1e30f, 3.4e38f, -3.4e38f, 88.5f, -87.5f, 0.0f};
  std::vector<float> e(xs.size()), s(xs.size()), t(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {  // a loop the compiler vectorizes, as in the step loop
    e[i] = exp_f(xs[i]);
    s[i] = logistic_f(xs[i]);
    t[i] = tanh_f(xs[i]);
  }
  for (size_t i : {0u, 1u}) {
    EXPECT_TRUE(std::isnan(e[i]));
    EXPECT_TRUE(std::isnan(s[i]));
    EXPECT_TRUE(std::isnan(t[i]));
  }
  EXPECT_EQ(s[2], 1.0f);
  EXPECT_EQ(s[3], 0.0f);
  EXPECT_EQ(t[2], 1.0f);
  EXPECT_EQ(t[3], -1.0f);
  for (size_t i = 2; i + 3 < xs.size(); ++i)  // as libm: +Inf and overflow give Inf, -Inf and underflow 0
    EXPECT_EQ(e[i], xs[i] > 0 ? std::numeric_limits<float>::infinity() : 0.0f) << xs[i];
  EXPECT_TRUE(std::isfinite(e[xs.size() - 3]) && std::isfinite(e[xs.size() - 2]));  // e^88.5, e^-87.5
  EXPECT_EQ(e.back(), 1.0f);
}

}  // namespace
}  // namespace tandem::cpu
