// The gate nonlinearities (lstm_gates.h) on NaN, ±Inf and huge inputs, compiled with UBSan's
// float-cast-overflow and signed-integer-overflow checks that abort on the first report: a
// NaN converted to int or an exponent that overflows fails this test in every build, not only
// in a sanitizer build. NaN must propagate; ±Inf saturate (docs/LSTM_DATA.md).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/cpu/lstm_gates.h"

namespace tandem::cpu {
namespace {

TEST(LstmGatesUbsan, NanPropagatesInfSaturatesWithoutUndefinedBehaviour) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xs = {nan, -nan, inf, -inf, 1e30f, -1e30f, 3.4e38f, -3.4e38f, 88.5f, -87.5f, 0.0f};
  std::vector<float> e(xs.size()), s(xs.size()), t(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {  // a loop the compiler vectorizes, as in the step loop
    e[i] = gates::exp_f(xs[i]);
    s[i] = gates::sigmoid_f(xs[i]);
    t[i] = gates::tanh_f(xs[i]);
  }
  for (size_t i : {0u, 1u}) {
    EXPECT_TRUE(std::isnan(e[i]));
    EXPECT_TRUE(std::isnan(s[i]));
    EXPECT_TRUE(std::isnan(t[i]));
  }
  EXPECT_EQ(s[2], 1.0f);
  EXPECT_LE(s[3], 1e-37f);
  EXPECT_EQ(t[2], 1.0f);
  EXPECT_EQ(t[3], -1.0f);
  for (size_t i = 2; i < xs.size(); ++i) EXPECT_TRUE(std::isfinite(e[i])) << xs[i];
  EXPECT_EQ(e.back(), 1.0f);
}

}  // namespace
}  // namespace tandem::cpu
