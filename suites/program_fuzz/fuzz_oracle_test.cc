// The fuzzer's oracle and tolerance: the widened program keeps explicit narrowing, the perturbed runs move sums and
// lossy dots by their roundoff, and the tolerance derived from them passes a correct engine and fails a wrong one.
#include <gtest/gtest.h>

#include <random>

#include "bridge/reference_bridge.h"
#include "suites/program_fuzz/fuzz_compare.h"
#include "suites/program_fuzz/fuzz_oracle.h"

namespace tandem::fuzz {
namespace {

FuzzCase plain_case(const Program& p, std::vector<Tensor> args) {
  FuzzCase c;
  c.program = p;
  c.args = std::move(args);
  return c;
}

TEST(FuzzOracle, WidenKeepsAnExplicitNarrowingButWidensArithmetic) {
  Program p = trace({AType{{2}, DType::f32}}, [](Builder&, const std::vector<Value>& x) {
    return std::vector<Value>{convert_element_type(x[0], DType::bf16), x[0] * 3.0};
  });
  // 1 + 2^-8 is a bf16 tie (rounds to 1); 1/3 in f32 differs from 1/3 in f64.
  FuzzCase c = plain_case(p, {Tensor::from_f64({1 + 0x1p-8, 1.0 / 3}, {2}, DType::f32)});
  auto wide = reference_results(c, RefVariant::wide), own = reference_results(c, RefVariant::own);
  EXPECT_EQ(wide[0].data[0], 1.0);  // rounded to bf16 in both
  EXPECT_EQ(own[0].data[0], 1.0);
  EXPECT_EQ(wide[1].dtype, DType::f64);
  EXPECT_NE(wide[1].data[1], own[1].data[1]);  // the product rounded to f32 only in own
}

TEST(FuzzOracle, PerturbedRunsMoveALossyDotByItsInputRoundoff) {
  Program p = trace({AType{{1, 8}, DType::f32}, AType{{8, 1}, DType::f32}}, [](Builder&, const std::vector<Value>& x) {
    return std::vector<Value>{dot_general(x[0], x[1], DotDims{{1}, {0}, {}, {}}, "BF16_BF16_F32")};
  });
  std::vector<double> a(8, 1.25), b(8, 0.75);
  FuzzCase c = plain_case(p, {Tensor::from_f64(a, {1, 8}, DType::f32), Tensor::from_f64(b, {8, 1}, DType::f32)});
  const double own = reference_results(c, RefVariant::own)[0].data[0];
  const double moved = reference_results(c, RefVariant::perturbed, 7)[0].data[0];
  EXPECT_GT(std::fabs(moved - own), 1e-4 * std::fabs(own));  // ~2^-8 relative per operand
  EXPECT_LT(std::fabs(moved - own), 0.1 * std::fabs(own));
}

// An f8 dot of the program's inputs (scaled by a power of two, floored: still exact) is judged at f32's accumulation:
// the f8 rounding is the same in every run, so a tie rounded away (1 + 2^-4 -> 1.125 instead of 1) is far outside the
// runs' spread; of a computed operand, the runs keep the f8 format's own roundoff.
TEST(FuzzOracle, AnF8DotOfExactOperandsIsJudgedExactly) {
  for (bool computed : {false, true}) {
    Program p = trace({AType{{1, 8}, DType::f32}, AType{{8, 1}, DType::f32}}, [&](Builder&, const std::vector<Value>& x) {
      Value l = computed ? sin(x[0]) : floor(x[0] * 16.0) * 0.0625;
      return std::vector<Value>{dot_general(l, x[1], DotDims{{1}, {0}, {}, {}}, "ANY_F8_ANY_F8_F32")};
    });
    std::vector<double> a(8, 1 + 0x1p-4), b(8, 0.75);
    FuzzCase c = plain_case(p, {Tensor::from_f64(a, {1, 8}, DType::f32), Tensor::from_f64(b, {8, 1}, DType::f32)});
    const double own = reference_results(c, RefVariant::own)[0].data[0];
    const double moved = reference_results(c, RefVariant::scaled, 7)[0].data[0];
    if (!computed) {
      EXPECT_EQ(own, 8 * 0.75);  // the tie to even: 1
    }
    const double tie_away = 8 * 0.75 * 0x1p-3;  // what rounding the tie away adds
    if (computed) {
      EXPECT_GT(std::fabs(moved - own), 0.1 * tie_away);
    } else {
      EXPECT_LT(8 * std::fabs(moved - own), 1e-3 * tie_away);
    }
  }
}

TEST(FuzzOracle, PerturbedRunsMoveAnF64SumToo) {
  Program p = trace({AType{{5}, DType::f64}}, [](Builder&, const std::vector<Value>& x) {
    return std::vector<Value>{reduce_sum(x[0], {0})};
  });
  FuzzCase c = plain_case(p, {Tensor::from_f64({1.1, 2.3, -0.7, 1.9, 0.3}, {5}, DType::f64)});
  EXPECT_NE(reference_results(c, RefVariant::perturbed, 3)[0].data[0], reference_results(c, RefVariant::own)[0].data[0]);
}

// Rng::chance is std::bernoulli_distribution written out: the same answers from the same
// draws (the perturbed runs' signs, the generator's choices), at every kind of p, edges included.
TEST(FuzzRng, ChanceIsTheStandardBernoulliDraw) {
  for (double p : {0.5, 0.0, 1.0, 0.3, 1e-9, 1 - 0x1p-53, 0.5 - 0x1p-54, 0.5 + 0x1p-53}) {
    Rng mine(42);
    std::mt19937_64 standard(42);
    for (int i = 0; i < 200000; ++i) ASSERT_EQ(mine.chance(p), std::bernoulli_distribution(p)(standard)) << p;
    EXPECT_EQ(mine.next(), standard()) << p;  // one draw each, in step
  }
  struct Fixed {  // a generator of chosen draws: the ones that round across 1/2 and up to 1
    using result_type [[maybe_unused]] = uint64_t;
    uint64_t x;
    static constexpr uint64_t min() { return 0; }
    static constexpr uint64_t max() { return ~uint64_t(0); }
    uint64_t operator()() { return x; }
  };
  for (uint64_t x : {uint64_t(0), uint64_t(1), (uint64_t(1) << 63) - 513, (uint64_t(1) << 63) - 512, (uint64_t(1) << 63) - 511,
                     ~uint64_t(0) - 1024, ~uint64_t(0) - 1023, ~uint64_t(0)}) {
    Fixed g{x};
    for (double p : {0.5, 1.0, 1 - 0x1p-53, 0x1p-64}) EXPECT_EQ(Rng::below(x, p), std::bernoulli_distribution(p)(g)) << x << " " << p;
  }
}

TEST(FuzzCompare, ToleranceFromTheRunsPassesRoundingAndFailsAWrongValue) {
  ref::Array wide = ref::make({2}, DType::f64, {1.0, 2.0});
  ref::Array own = ref::make({2}, DType::f32, {1.0, 2.0 + 0x1p-22});
  std::vector<std::vector<ref::Array>> runs = {{own}};
  EXPECT_TRUE(compare_results({Tensor::from_f64({1.0, 2.0 + 0x1p-21}, {2}, DType::f32)}, {wide}, runs).agree);
  const Verdict bad = compare_results({Tensor::from_f64({1.0, 2.01}, {2}, DType::f32)}, {wide}, runs);
  EXPECT_FALSE(bad.agree);
  EXPECT_NE(bad.detail.find("element 1"), std::string::npos) << bad.detail;
  // A NaN must be matched by a NaN.
  ref::Array nan_wide = ref::make({1}, DType::f64, {std::nan("")});
  std::vector<std::vector<ref::Array>> nan_runs = {{ref::make({1}, DType::f32, {std::nan("")})}};
  EXPECT_FALSE(compare_results({Tensor::from_f64({0.0}, {1}, DType::f32)}, {nan_wide}, nan_runs).agree);
}

}  // namespace
}  // namespace tandem::fuzz
