// Tests of scan (cumulative sums forward and reverse, consts, several xs, length 0, body
// checks), of while_loop (data-dependent trip counts, consts, bad bodies, a runaway loop)
// and of finite_difference.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "reference/reference.h"
#include "reference/while_loop.h"

namespace tandem::ref {
namespace {

using Values = std::vector<double>;
using Shape = std::vector<int64_t>;

// carry' = carry + x_t, y_t = carry'.
std::pair<std::vector<Array>, std::vector<Array>> cumsum_body(const std::vector<Array>&,
                                                              const std::vector<Array>& carry,
                                                              const std::vector<Array>& x) {
  const Array next = binary("add", carry[0], x[0]);
  return {{next}, {next}};
}

TEST(Scan, CumulativeSumForward) {
  const Array xs = make({4}, DType::f32, {1, 2, 3, 4});
  auto [carry, ys] = scan(cumsum_body, {}, {scalar(DType::f32, 0)}, {xs}, 4, false);
  EXPECT_EQ(carry[0].data, (Values{10}));
  ASSERT_EQ(ys.size(), 1u);
  EXPECT_EQ(ys[0].shape, (Shape{4}));
  EXPECT_EQ(ys[0].data, (Values{1, 3, 6, 10}));
}

TEST(Scan, CumulativeSumReverse) {
  // Walks t = 3, 2, 1, 0 and stores y_t at t: a suffix sum.
  const Array xs = make({4}, DType::f32, {1, 2, 3, 4});
  auto [carry, ys] = scan(cumsum_body, {}, {scalar(DType::f32, 0)}, {xs}, 4, true);
  EXPECT_EQ(carry[0].data, (Values{10}));
  EXPECT_EQ(ys[0].data, (Values{10, 9, 7, 4}));
}

TEST(Scan, ConstsRowsAndSeveralOutputs) {
  // xs: [3,2] rows; carry: [2]; y_t = (consts[0] * x_t [2], t-th carry sum [] as i32 count).
  const Array rows = make({3, 2}, DType::f32, {1, 2, 3, 4, 5, 6});
  const ScanBody body = [](const std::vector<Array>& consts, const std::vector<Array>& carry,
                           const std::vector<Array>& x) {
    const Array scaled = binary("mul", consts[0], x[0]);
    const Array sum = binary("add", carry[0], x[0]);
    const Array count = binary("add", carry[1], scalar(DType::i32, 1));
    return std::pair<std::vector<Array>, std::vector<Array>>{{sum, count}, {scaled, reduce_sum(sum, {0})}};
  };
  auto [carry, ys] = scan(body, {scalar(DType::f32, 10)},
                          {full({2}, DType::f32, 0), scalar(DType::i32, 0)}, {rows}, 3, false);
  EXPECT_EQ(carry[0].data, (Values{9, 12}));
  EXPECT_EQ(carry[1].data, (Values{3}));
  EXPECT_EQ(ys[0].shape, (Shape{3, 2}));
  EXPECT_EQ(ys[0].data, (Values{10, 20, 30, 40, 50, 60}));
  EXPECT_EQ(ys[1].shape, (Shape{3}));
  EXPECT_EQ(ys[1].data, (Values{3, 10, 21}));
}

TEST(Scan, LengthZeroReturnsInitWithoutCallingBody) {
  int calls = 0;
  const ScanBody body = [&](const std::vector<Array>& c, const std::vector<Array>& carry, const std::vector<Array>& x) {
    ++calls;
    return cumsum_body(c, carry, x);
  };
  auto [carry, ys] = scan(body, {}, {scalar(DType::f32, 5)}, {full({0}, DType::f32, 0)}, 0, false);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(carry[0].data, (Values{5}));
  EXPECT_TRUE(ys.empty());
}

TEST(Scan, RejectsMismatches) {
  const Array xs = make({4}, DType::f32, {1, 2, 3, 4});
  const std::vector<Array> init{scalar(DType::f32, 0)};
  EXPECT_THROW(scan(cumsum_body, {}, init, {xs}, 3, false), std::invalid_argument);
  EXPECT_THROW(scan(cumsum_body, {}, init, {xs}, -1, false), std::invalid_argument);
  const ScanBody wrong_carry = [](const std::vector<Array>&, const std::vector<Array>&, const std::vector<Array>& x) {
    return std::pair<std::vector<Array>, std::vector<Array>>{{convert(x[0], DType::f16)}, {}};
  };
  EXPECT_THROW(scan(wrong_carry, {}, init, {xs}, 4, false), std::invalid_argument);
  const ScanBody growing_y = [](const std::vector<Array>&, const std::vector<Array>& carry,
                                const std::vector<Array>& x) {
    const int64_t n = static_cast<int64_t>(x[0].data[0]);
    return std::pair<std::vector<Array>, std::vector<Array>>{{carry[0]}, {full({n}, DType::f32, 0)}};
  };
  EXPECT_THROW(scan(growing_y, {}, init, {xs}, 4, false), std::invalid_argument);
}

// Collatz steps of 27: a trip count only the data decides (111 steps to reach 1).
TEST(WhileLoop, DataDependentTripCount) {
  const WhileCond not_one = [](const std::vector<Array>&, const std::vector<Array>& c) { return c[0].data[0] != 1; };
  const WhileBody collatz = [](const std::vector<Array>&, const std::vector<Array>& c) {
    const double n = c[0].data[0];
    return std::vector<Array>{scalar(DType::i32, std::fmod(n, 2) == 0 ? n / 2 : 3 * n + 1),
                              binary("add", c[1], scalar(DType::i32, 1))};
  };
  auto out = while_loop(not_one, collatz, {}, {}, {scalar(DType::i32, 27), scalar(DType::i32, 0)});
  EXPECT_EQ(out[0].data, (Values{1}));
  EXPECT_EQ(out[1].data, (Values{111}));
}

// Newton's iteration for sqrt(a) with cond and body consts: x <- (x + a/x) / 2 while
// |x*x - a| > tol; from x = a = 2 it reaches 1.41421356237... in 5 steps (tol 1e-12).
TEST(WhileLoop, NewtonWithConsts) {
  const WhileCond far = [](const std::vector<Array>& k, const std::vector<Array>& c) {
    return std::abs(c[0].data[0] * c[0].data[0] - k[1].data[0]) > k[0].data[0];
  };
  const WhileBody step = [](const std::vector<Array>& k, const std::vector<Array>& c) {
    const double x = c[0].data[0];
    return std::vector<Array>{scalar(DType::f64, (x + k[0].data[0] / x) / 2), binary("add", c[1], scalar(DType::i32, 1))};
  };
  const Array a = scalar(DType::f64, 2);
  auto out = while_loop(far, step, {scalar(DType::f64, 1e-12), a}, {a}, {a, scalar(DType::i32, 0)});
  EXPECT_NEAR(out[0].data[0], std::sqrt(2.0), 1e-15);
  EXPECT_EQ(out[1].data, (Values{5}));
}

TEST(WhileLoop, FalseAtOnceAndBadBodies) {
  const WhileCond never = [](const std::vector<Array>&, const std::vector<Array>&) { return false; };
  const WhileCond always = [](const std::vector<Array>&, const std::vector<Array>&) { return true; };
  const WhileBody same = [](const std::vector<Array>&, const std::vector<Array>& c) { return c; };
  const WhileBody wrong = [](const std::vector<Array>&, const std::vector<Array>& c) {
    return std::vector<Array>{convert(c[0], DType::f16)};
  };
  const std::vector<Array> init{scalar(DType::f32, 3)};
  EXPECT_EQ(while_loop(never, wrong, {}, {}, init)[0].data, (Values{3}));  // no body call
  EXPECT_THROW(while_loop(always, wrong, {}, {}, init), std::invalid_argument);
  EXPECT_THROW(while_loop(always, same, {}, {}, init, 100), std::invalid_argument);  // runaway
}

TEST(Switch, IndexInRangeElseTheLastBranch) {
  // XLA's Conditional: an index outside [0, n) runs branch n - 1.
  EXPECT_EQ(switch_branch(make({}, DType::i32, {1}), 3), 1u);
  EXPECT_EQ(switch_branch(make({}, DType::i32, {0}), 3), 0u);
  EXPECT_EQ(switch_branch(make({}, DType::i32, {3}), 3), 2u);
  EXPECT_EQ(switch_branch(make({}, DType::i32, {-1}), 3), 2u);
  EXPECT_THROW(switch_branch(make({2}, DType::i32, {0, 1}), 3), std::invalid_argument);
}

TEST(FiniteDifference, SinMatchesCos) {
  const auto f = [](const std::vector<double>& x) { return std::sin(x[0]); };
  for (double x : {0.0, 0.7, -2.0, 3.0}) EXPECT_NEAR(finite_difference(f, {x}, 0, 1e-5), std::cos(x), 1e-9) << x;
}

TEST(FiniteDifference, PicksTheCoordinate) {
  const auto f = [](const std::vector<double>& v) { return v[0] * v[1] * v[1]; };  // x y^2
  EXPECT_NEAR(finite_difference(f, {3, 2}, 0, 1e-4), 4.0, 1e-8);
  EXPECT_NEAR(finite_difference(f, {3, 2}, 1, 1e-4), 12.0, 1e-7);
  EXPECT_THROW(finite_difference(f, {3, 2}, 2, 1e-4), std::invalid_argument);
  EXPECT_THROW(finite_difference(f, {3, 2}, 0, 0.0), std::invalid_argument);
  EXPECT_THROW(finite_difference(f, {1e20, 2}, 0, 1e-4), std::invalid_argument);  // step vanishes
}

}  // namespace
}  // namespace tandem::ref
