// Tests of the elementwise reference ops: values worked by hand, wrap-around, NaN rules.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/reference.h"

namespace tandem::ref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMin32 = -2147483648.0, kMax32 = 2147483647.0;

TEST(Unary, ValuesAreCorrectlyRoundedF64Results) {
  const Array x = make({4}, DType::f32, {0.0, 0.5, -1.25, 3.0});
  const Array e = unary("exp", x);
  EXPECT_EQ(e.dtype, DType::f32);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(e.data[i], static_cast<double>(static_cast<float>(std::exp(x.data[i]))));
  EXPECT_EQ(unary("logistic", make({3}, DType::f32, {0.0, 800.0, -800.0})).data, (std::vector<double>{0.5, 1.0, 0.0}));
  EXPECT_EQ(unary("neg", x).data, (std::vector<double>{-0.0, -0.5, 1.25, -3.0}));
  EXPECT_EQ(unary("sqrt", make({2}, DType::f16, {4.0, 2.0})).data[1], 0x1.6ap0);  // sqrt 2 in f16
  EXPECT_EQ(unary("tanh", make({1}, DType::bf16, {100.0})).data[0], 1.0);
  const Array special = make({2}, DType::f32, {-1.0, 0.0});
  EXPECT_TRUE(std::isnan(unary("sqrt", special).data[0]));
  EXPECT_EQ(unary("log", special).data[1], -kInf);
  EXPECT_EQ(unary("sin", scalar(DType::f64, 0.5)).data[0], std::sin(0.5));
  EXPECT_EQ(unary("cos", scalar(DType::bf16, 0.0)).data[0], 1.0);
}

TEST(Unary, I32NegWrapsAndBadInputsThrow) {
  EXPECT_EQ(unary("neg", make({2}, DType::i32, {kMin32, 5})).data, (std::vector<double>{kMin32, -5}));
  EXPECT_THROW(unary("exp", make({1}, DType::i32, {1})), std::invalid_argument);
  EXPECT_THROW(unary("cube", make({1}, DType::f32, {1})), std::invalid_argument);
  Array broken{{3}, DType::f32, {1.0}};  // data too short for its shape
  EXPECT_THROW(unary("exp", broken), std::invalid_argument);
}

// abs, sign, rsqrt, log1p, erfc, floor: JAX's values at ±0, ±Inf and NaN, and i32 abs/sign.
TEST(Unary, SignsRootsAndRounding) {
  const Array x = make({6}, DType::f32, {-0.0, 0.0, -2.5, kInf, -kInf, kNaN});
  const Array a = unary("abs", x), s = unary("sign", x), f = unary("floor", x);
  EXPECT_EQ(a.data[0], 0.0);
  EXPECT_FALSE(std::signbit(a.data[0]));
  EXPECT_EQ(std::vector<double>(a.data.begin() + 2, a.data.end() - 1), (std::vector<double>{2.5, kInf, kInf}));
  EXPECT_TRUE(std::signbit(s.data[0]));  // sign(-0) is -0, sign(+0) is +0
  EXPECT_EQ(std::vector<double>(s.data.begin() + 1, s.data.end() - 1), (std::vector<double>{0.0, -1.0, 1.0, -1.0}));
  EXPECT_TRUE(std::isnan(s.data[5]) && std::isnan(a.data[5]) && std::isnan(f.data[5]));
  EXPECT_EQ(f.data[2], -3.0);
  EXPECT_EQ(unary("rsqrt", make({3}, DType::f64, {4.0, 0.0, kInf})).data, (std::vector<double>{0.5, kInf, 0.0}));
  EXPECT_TRUE(std::isnan(unary("rsqrt", make({1}, DType::f32, {-1.0})).data[0]));
  EXPECT_EQ(unary("log1p", make({2}, DType::f64, {-1.0, 0x1p-60})).data, (std::vector<double>{-kInf, 0x1p-60}));
  EXPECT_EQ(unary("erfc", make({3}, DType::f64, {0.0, kInf, -kInf})).data, (std::vector<double>{1.0, 0.0, 2.0}));
  EXPECT_EQ(unary("abs", make({3}, DType::i32, {kMin32, -7, 3})).data, (std::vector<double>{kMin32, 7, 3}));
  EXPECT_EQ(unary("sign", make({3}, DType::i32, {kMin32, 0, 3})).data, (std::vector<double>{-1, 0, 1}));
  EXPECT_THROW(unary("rsqrt", make({1}, DType::i32, {1})), std::invalid_argument);
}

TEST(IsFinite, FalseForInfAndNanOnly) {
  const Array r = is_finite(make({6}, DType::f16, {-0.0, 65504.0, kInf, -kInf, kNaN, -3.5}));
  EXPECT_EQ(r.dtype, DType::pred);
  EXPECT_EQ(r.data, (std::vector<double>{1, 1, 0, 0, 0, 1}));
  EXPECT_EQ(is_finite(scalar(DType::f64, 1e308)).data, (std::vector<double>{1}));
  EXPECT_THROW(is_finite(make({1}, DType::i32, {1})), std::invalid_argument);
}

TEST(IntegerPow, FloatsAndIntegers) {
  const Array x = make({3}, DType::f32, {2.0, -3.0, 0.5});
  EXPECT_EQ(integer_pow(x, 3).data, (std::vector<double>{8.0, -27.0, 0.125}));
  EXPECT_EQ(integer_pow(x, -2).data, (std::vector<double>{0.25, static_cast<double>(1.0f / 9.0f), 4.0}));
  EXPECT_EQ(integer_pow(make({2}, DType::f32, {0.0, kNaN}), 0).data, (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(integer_pow(make({1}, DType::f32, {0.0}), -1).data[0], kInf);
  EXPECT_EQ(integer_pow(make({1}, DType::f16, {300.0}), 2).data[0], kInf);  // 90000 overflows
  EXPECT_EQ(integer_pow(make({3}, DType::i32, {3, -2, 65536}), 2).data,
            (std::vector<double>{9, 4, 0}));  // 2^32 wraps to 0
  EXPECT_EQ(integer_pow(make({1}, DType::i32, {2}), 31).data[0], kMin32);
  EXPECT_THROW(integer_pow(make({1}, DType::i32, {2}), -1), std::invalid_argument);
}

TEST(Binary, FloatArithmeticRoundsOnce) {
  const Array a = make({3}, DType::f16, {65504, 65504, 1});
  const Array b = make({3}, DType::f16, {8, 16, 0x1p-11});
  EXPECT_EQ(binary("add", a, b).data, (std::vector<double>{65504, kInf, 1}));
  EXPECT_EQ(binary("div", make({2}, DType::f32, {1, -1}), make({2}, DType::f32, {0, 0})).data,
            (std::vector<double>{kInf, -kInf}));
  EXPECT_EQ(binary("div", scalar(DType::f32, 1.0), scalar(DType::f32, 3.0)).data[0], static_cast<double>(1.0f / 3.0f));
  const Array c = make({1}, DType::bf16, {1 + 0x1p-7});
  EXPECT_EQ(binary("mul", c, c).data[0], 1 + 0x1p-6);  // exact 1 + 2^-6 + 2^-14 rounds down
}

TEST(Binary, ScalarBroadcastsEitherSide) {
  const Array v = make({2, 2}, DType::f32, {1, 2, 3, 4});
  const Array s = scalar(DType::f32, 10);
  EXPECT_EQ(binary("sub", v, s).data, (std::vector<double>{-9, -8, -7, -6}));
  EXPECT_EQ(binary("sub", s, v).data, (std::vector<double>{9, 8, 7, 6}));
  EXPECT_EQ(binary("sub", s, v).shape, (std::vector<int64_t>{2, 2}));
  EXPECT_THROW(binary("add", v, make({4}, DType::f32, {1, 2, 3, 4})), std::invalid_argument);
  EXPECT_THROW(binary("add", v, scalar(DType::f16, 1)), std::invalid_argument);
  EXPECT_THROW(binary("no_such_op", v, v), std::invalid_argument);  // an op the reference lacks
}

TEST(Binary, I32WrapsAndTruncates) {
  const Array a = make({4}, DType::i32, {7, -7, kMin32, kMax32});
  const Array b = make({4}, DType::i32, {-2, 2, -1, 1});
  EXPECT_EQ(binary("div", a, b).data, (std::vector<double>{-3, -3, kMin32, kMax32}));
  EXPECT_EQ(binary("add", a, b).data, (std::vector<double>{5, -5, kMax32, kMin32}));
  EXPECT_EQ(binary("mul", make({1}, DType::i32, {46341}), make({1}, DType::i32, {46341})).data[0],
            -2147479015.0);  // 2147488281 - 2^32
  EXPECT_EQ(binary("max", a, b).data, (std::vector<double>{7, 2, -1, kMax32}));
  EXPECT_THROW(binary("div", a, make({4}, DType::i32, {1, 1, 0, 1})), std::invalid_argument);
}

TEST(Binary, MaxMinPropagateNan) {
  const Array a = make({3}, DType::f32, {kNaN, 1, 2});
  const Array b = make({3}, DType::f32, {1, kNaN, 3});
  for (const char* op : {"max", "min"}) {
    const Array r = binary(op, a, b);
    EXPECT_TRUE(std::isnan(r.data[0]) && std::isnan(r.data[1])) << op;
  }
  EXPECT_EQ(binary("max", a, b).data[2], 3);
  EXPECT_EQ(binary("min", a, b).data[2], 2);
  const Array p = make({2}, DType::pred, {0, 1});
  EXPECT_EQ(binary("max", p, scalar(DType::pred, 0)).data, (std::vector<double>{0, 1}));
  EXPECT_THROW(binary("add", p, p), std::invalid_argument);
}

TEST(Compare, NanComparesFalseExceptNe) {
  const Array a = make({3}, DType::f32, {kNaN, 1, 2});
  const Array b = make({3}, DType::f32, {kNaN, 1, 1});
  const std::vector<std::pair<const char*, std::vector<double>>> cases = {
      {"eq", {0, 1, 0}}, {"ne", {1, 0, 1}}, {"lt", {0, 0, 0}}, {"le", {0, 1, 0}}, {"gt", {0, 0, 1}}, {"ge", {0, 1, 1}}};
  for (const auto& [dir, want] : cases) {
    const Array r = compare(a, b, dir);
    EXPECT_EQ(r.dtype, DType::pred);
    EXPECT_EQ(r.data, want) << dir;
  }
  EXPECT_EQ(compare(scalar(DType::i32, 2), make({3}, DType::i32, {1, 2, 3}), "lt").data,
            (std::vector<double>{0, 0, 1}));
  EXPECT_THROW(compare(a, b, "lte"), std::invalid_argument);
}

TEST(Select, ElementwiseAndScalarPredicate) {
  const Array t = make({3}, DType::f32, {1, 2, 3});
  const Array f = make({3}, DType::f32, {-1, -2, -3});
  EXPECT_EQ(select(make({3}, DType::pred, {1, 0, 1}), t, f).data, (std::vector<double>{1, -2, 3}));
  EXPECT_EQ(select(scalar(DType::pred, 0), t, f).data, f.data);
  EXPECT_THROW(select(make({3}, DType::f32, {1, 0, 1}), t, f), std::invalid_argument);
  EXPECT_THROW(select(make({2}, DType::pred, {1, 0}), t, f), std::invalid_argument);
  EXPECT_THROW(select(scalar(DType::pred, 1), t, make({3}, DType::i32, {0, 0, 0})), std::invalid_argument);
}

TEST(Convert, FloatToIntTruncatesClampsAndZeroesNan) {
  const Array x = make({7}, DType::f32, {2.9, -2.9, kNaN, 1e10, -1e10, kInf, -0.5});
  const Array r = convert(x, DType::i32);
  EXPECT_EQ(r.dtype, DType::i32);
  EXPECT_EQ(r.data, (std::vector<double>{2, -2, 0, kMax32, kMin32, kMax32, 0}));
  EXPECT_FALSE(std::signbit(r.data[6]));
}

TEST(Convert, OtherDirections) {
  EXPECT_EQ(convert(make({3}, DType::i32, {257, 259, -3}), DType::bf16).data, (std::vector<double>{256, 260, -3}));
  EXPECT_EQ(convert(make({3}, DType::f32, {0, kNaN, -0.25}), DType::pred).data, (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(convert(make({2}, DType::pred, {1, 0}), DType::f16).data, (std::vector<double>{1, 0}));
  EXPECT_EQ(convert(make({1}, DType::f64, {1 + 0x1p-30}), DType::f32).data[0], 1.0);
  EXPECT_EQ(convert(make({1}, DType::f32, {70000}), DType::f16).data[0], kInf);
}

// rem: C's fmod (the dividend's sign), i32 as XLA (x rem 0 = x, INT32_MIN rem -1 = 0); pow.
TEST(Binary, RemAndPow) {
  EXPECT_EQ(binary("rem", make({3}, DType::f32, {5.5, -5.5, 7.25}), make({3}, DType::f32, {2, 2, -2.5})).data,
            (std::vector<double>{1.5, -1.5, 2.25}));
  EXPECT_TRUE(std::isnan(binary("rem", make({1}, DType::f32, {1}), make({1}, DType::f32, {0})).data[0]));
  EXPECT_EQ(binary("rem", make({4}, DType::i32, {5, -5, 7, kMin32}), make({4}, DType::i32, {0, 3, -3, -1})).data,
            (std::vector<double>{5, -2, 1, 0}));
  EXPECT_EQ(binary("pow", make({3}, DType::f64, {2, 4, 0}), make({3}, DType::f64, {10, 0.5, 0})).data,
            (std::vector<double>{1024, 2, 1}));
  EXPECT_THROW(binary("pow", make({1}, DType::i32, {2}), make({1}, DType::i32, {2})), std::invalid_argument);
}

TEST(Bitwise, BoolsAndI32Bits) {
  const Array a = make({4}, DType::pred, {0, 0, 1, 1}), b = make({4}, DType::pred, {0, 1, 0, 1});
  EXPECT_EQ(bitwise("and", a, b).data, (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(bitwise("or", a, b).data, (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(bitwise("xor", a, b).data, (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(bitwise("not", a, a).data, (std::vector<double>{1, 1, 0, 0}));
  const Array i = make({3}, DType::i32, {12, -1, kMin32}), j = make({}, DType::i32, {10});
  EXPECT_EQ(bitwise("and", i, j).data, (std::vector<double>{8, 10, 0}));
  EXPECT_EQ(bitwise("xor", i, j).data, (std::vector<double>{6, -11, kMin32 + 10}));
  EXPECT_EQ(bitwise("not", i, i).data, (std::vector<double>{-13, 0, kMax32}));
  EXPECT_THROW(bitwise("and", make({1}, DType::f32, {1}), make({1}, DType::f32, {1})), std::invalid_argument);
}

TEST(Round, BothMethods) {
  const Array x = make({7}, DType::f32, {0.5, 1.5, 2.5, -0.5, -2.5, -0.4, 3.7});
  EXPECT_EQ(round(x, "AWAY_FROM_ZERO").data, (std::vector<double>{1, 2, 3, -1, -3, -0.0, 4}));
  const Array even = round(x, "TO_NEAREST_EVEN");
  EXPECT_EQ(even.data, (std::vector<double>{0, 2, 2, -0.0, -2, -0.0, 4}));
  EXPECT_TRUE(std::signbit(even.data[3]));
  EXPECT_THROW(round(x, "UP"), std::invalid_argument);
}

}  // namespace
}  // namespace tandem::ref
