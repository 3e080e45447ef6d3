// compare() and ErrorSpec: tolerances bite, non-finite values match only themselves, and a
// mismatch report names the first bad index with expected and got.
#include <gtest/gtest.h>

#include <cmath>

#include "bridge/error_spec.h"

namespace tandem {
namespace {

TEST(Compare, TolerancesBite) {
  ErrorSpec s{0, 1e-3, 0, ""};
  EXPECT_TRUE(compare({1.0, 2.0}, {1.0005, 2.001}, s).pass);
  CompareReport r = compare({1.0, 2.0}, {1.0, 2.01}, s);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.first_bad, 1);
  EXPECT_EQ(r.expected, 2.0);
  EXPECT_EQ(r.got, 2.01);
  EXPECT_NEAR(r.max_abs, 0.01, 1e-12);
  EXPECT_NE(r.text().find("first_bad_index=1"), std::string::npos);
}

TEST(Compare, ScaledBound) {
  ErrorSpec s{0, 0, 0.1, ""};
  std::vector<double> scale = {10, 1};
  EXPECT_TRUE(compare({0, 0}, {0.9, 0.09}, s, &scale).pass);
  EXPECT_FALSE(compare({0, 0}, {0.9, 0.2}, s, &scale).pass);
}

TEST(Compare, HeadroomIsToleranceOverError) {
  CompareReport r = compare({1.0, 2.0}, {1.0005, 2.0}, ErrorSpec{0, 1e-3, 0, ""});
  EXPECT_NEAR(r.headroom().get<double>(), 2.0, 1e-9);  // tolerance 1e-3 over error 5e-4
  EXPECT_EQ(compare({1.0}, {1.0}, ErrorSpec{}).headroom(), "exact");
  EXPECT_EQ(compare({1.0}, {1.0}, ErrorSpec{0, 1e-3, 0, ""}).headroom(), "no error observed");
  EXPECT_EQ(compare({1.0}, {1.0}, ErrorSpec{}).to_json()["headroom"], "exact");
}

TEST(Compare, NonFinite) {
  ErrorSpec s{1, 1, 0, ""};
  EXPECT_TRUE(compare({NAN, INFINITY}, {NAN, INFINITY}, s).pass);
  EXPECT_FALSE(compare({INFINITY}, {-INFINITY}, s).pass);
  EXPECT_FALSE(compare({1.0}, {NAN}, s).pass);
  EXPECT_FALSE(compare({NAN}, {1.0}, s).pass);
  EXPECT_FALSE(compare({1.0}, {1.0, 2.0}, s).pass);  // size mismatch
}

TEST(Compare, ElementwiseSpecFromUnitRoundoff) {
  ErrorSpec s = elementwise_spec(DType::bf16, 1);
  EXPECT_EQ(s.rel, 0x1p-8);
  EXPECT_EQ(elementwise_spec(DType::i32).rel, 0.0);
}

}  // namespace
}  // namespace tandem
