// hoist_scan_reductions on the seed's programs and their variants: what moves into the body,
// the shapes that remain outside, and equal results (within rounding) before and after.
#include "engine/passes/hoist_test_util.h"

namespace tandem {
namespace {
using namespace hoist_test;
const DType f32 = DType::f32;

// The seed's MSE: loss = mean((y - scan(λc,x: (sin c, cos x), x1, x2).ys)²).
Program seed_mse(int64_t L = 30, Shape row = {15, 12}, bool reverse = false, int64_t unroll = 1) {
  Program body = trace({{{5, 8}, f32}, {row, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{sin(in[0]), cos(in[1])};
  });
  Shape st{L};
  st.insert(st.end(), row.begin(), row.end());
  double n = double(num_elements(st));
  return trace({{{5, 8}, f32}, {st, f32}, {st, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(body, {}, {in[0]}, {in[1]}, L, reverse, unroll)[1];
    std::vector<int64_t> all;
    for (int64_t a = 0; a < int64_t(st.size()); ++a) all.push_back(a);
    return std::vector<Value>{reduce_sum(integer_pow(in[2] - ys, 2), all) / n};
  });
}

// The seed's stacked sin/mean: mean(scan(λc: (sin c, sin c), x, length=L).ys).
Program seed_sin_mean(int64_t L = 10, Shape row = {4, 6}) {
  Program body = trace({{row, f32}}, [](Builder&, const std::vector<Value>& in) {
    Value s = sin(in[0]);
    return std::vector<Value>{s, s};
  });
  return trace({{row, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(body, {}, {in[0]}, {}, L)[1];
    return std::vector<Value>{reduce_sum(ys, {0, 1, 2}) / double(L * num_elements(row))};
  });
}

TEST(HoistScanReductions, SeedMseMovesTheWholeLossIntoTheBody) {
  Program p = seed_mse();
  HoistResult h = hoist_and_compare(p);
  EXPECT_EQ(h.rewrites, 1) << ::testing::PrintToString(h.log);
  // Outside, nothing of L·E elements is computed any more: only [30,1,1] partials.
  EXPECT_LE(largest_value(h.program), 40);
  const Eqn* s = find_eqn(h.program, "scan");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->out.back()->type.shape, (Shape{30, 1, 1}));
  EXPECT_EQ(s->in.size(), 3u);  // carry, x2 and y (the targets became an extra xs)
  EXPECT_NE(find_eqn(body_of(*s), "integer_pow"), nullptr);
  EXPECT_NE(find_eqn(body_of(*s), "reduce_sum"), nullptr);
  EXPECT_EQ(find_eqn(h.program, "sub"), nullptr);
  ASSERT_EQ(h.log.size(), 1u);
  EXPECT_NE(h.log[0].find("hoisted scan#0 ys 0"), std::string::npos) << h.log[0];
}

TEST(HoistScanReductions, SeedSinMean) {
  HoistResult h = hoist_and_compare(seed_sin_mean());
  EXPECT_EQ(h.rewrites, 1);
  EXPECT_EQ(find_eqn(h.program, "scan")->out.back()->type.shape, (Shape{10, 1, 1}));
}

TEST(HoistScanReductions, AccumulatesInACarry) {
  HoistOptions o{.accumulate_in_carry = true, .min_step_elements = 0};
  HoistResult h = hoist_and_compare(seed_mse(), o);
  const Eqn* s = find_eqn(h.program, "scan");
  ASSERT_EQ(s->out.size(), 2u);  // the original carry and the accumulator: no stacked output
  EXPECT_EQ(s->out[1]->type.shape, (Shape{1, 1}));
  EXPECT_EQ(s->params.get_int("num_carry"), 2);
}

TEST(HoistScanReductions, ScanAxisOnlyNeedsACarry) {
  // Σ_t ys[t] (a [15,12] result): nothing to reduce per step, so only a carry helps.
  Program body = trace({{{15, 12}, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{cos(in[0])};
  });
  Program p = trace({{{20, 15, 12}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{reduce_sum(scan(body, {}, {}, {in[0]}, 20)[0] * 0.5, {0})};
  });
  HoistResult stacked = hoist_and_compare(p);
  EXPECT_EQ(stacked.rewrites, 0);
  EXPECT_TRUE(log_has(stacked, kDeclineAxes)) << ::testing::PrintToString(stacked.log);
  HoistOptions o{.accumulate_in_carry = true, .min_step_elements = 0};
  HoistResult carried = hoist_and_compare(p, o);
  EXPECT_EQ(carried.rewrites, 1);
  EXPECT_LE(largest_value(carried.program), 15 * 12);
}

TEST(HoistScanReductions, WiderAccumulation) {
  HoistOptions o{.accumulate_dtype = DType::f64, .min_step_elements = 0};
  for (bool carry : {false, true}) {
    o.accumulate_in_carry = carry;
    HoistResult h = hoist_and_compare(seed_mse(), o);
    const Eqn* s = find_eqn(h.program, "scan");
    EXPECT_EQ(s->out.back()->type.dtype, DType::f64);
    EXPECT_NE(find_eqn(body_of(*s), "convert_element_type"), nullptr);
    EXPECT_EQ(h.program.out_types()[0].dtype, f32);  // converted back after the finish
  }
}

TEST(HoistScanReductions, ReverseAndUnrollAreKept) {
  HoistResult h = hoist_and_compare(seed_mse(17, {3, 5}, /*reverse=*/true, /*unroll=*/4));
  EXPECT_EQ(h.rewrites, 1);
  const Eqn* s = find_eqn(h.program, "scan");
  EXPECT_TRUE(s->params.get_bool("reverse", false));
  EXPECT_EQ(s->params.get_int("unroll"), 4);
  HoistOptions o{.accumulate_in_carry = true, .min_step_elements = 0};
  hoist_and_compare(seed_mse(17, {3, 5}, true, 4), o);
}

TEST(HoistScanReductions, SeveralYsOnlySomeReduced) {
  // ys0 is reduced, ys1 is a program output, ys2 feeds ys0's chain (so it goes too).
  Program body = trace({{{4}, f32}, {{4}, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{sin(in[0]), cos(in[1]), tanh(in[1]), in[1] * 2.0};
  });
  Program p = trace({{{4}, f32}, {{9, 4}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    auto o = scan(body, {}, {in[0]}, {in[1]}, 9);
    return std::vector<Value>{reduce_sum(exp(o[1] - o[3]), {1}), o[2]};
  });
  HoistResult h = hoist_and_compare(p);
  EXPECT_EQ(h.rewrites, 1);
  EXPECT_TRUE(log_has(h, kDeclineUsedTwice, "ys 1"));
  const Eqn* s = find_eqn(h.program, "scan");
  ASSERT_EQ(s->out.size(), 3u);  // carry, ys1 kept, the [9,1] partial
  EXPECT_EQ(s->out[1]->type.shape, (Shape{9, 4}));
  EXPECT_EQ(s->out[2]->type.shape, (Shape{9, 1}));
}

TEST(HoistScanReductions, DependentReductionsShareTheIntersection) {
  Program body = trace({{{3, 4, 5}, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{sin(in[0])};
  });
  Program p = trace({{{6, 3, 4, 5}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(body, {}, {}, {in[0]}, 6)[0];
    return std::vector<Value>{reduce_sum(ys, {0, 1, 3}), reduce_sum(ys, {1, 3}), reduce_sum(ys, {0, 1, 2, 3})};
  });
  HoistResult h = hoist_and_compare(p);
  EXPECT_EQ(h.rewrites, 1);
  // {1,3} ∩ {0,1,3} ∩ {0,1,2,3} = {1,3}: body axes {0,2}, one shared [6,1,4,1] partial.
  const Eqn* s = find_eqn(h.program, "scan");
  ASSERT_EQ(s->out.size(), 1u);
  EXPECT_EQ(s->out[0]->type.shape, (Shape{6, 1, 4, 1}));
}

TEST(HoistScanReductions, ScalarOperandsBecomeConsts) {
  // loss = Σ w·(ys − x)² with w a rank-0 input, x the scan's own xs, and 0.5 a literal.
  Program body = trace({{{8}, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{tanh(in[0])};
  });
  Program p = trace({{{}, f32}, {{12, 8}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(body, {}, {}, {in[1]}, 12)[0];
    Value d = ys - in[1];
    return std::vector<Value>{reduce_sum(in[0] * (d * d) * 0.5, {0, 1})};
  });
  HoistResult h = hoist_and_compare(p);
  EXPECT_EQ(h.rewrites, 1);
  const Eqn* s = find_eqn(h.program, "scan");
  EXPECT_EQ(s->params.get_int("num_consts"), 1);  // w
  EXPECT_EQ(s->in.size(), 2u);                    // w and the original xs (reused, not added)
}

// The cost estimate: by default a ys with fewer than min_step_elements per step is declined
// with its reason (the rewrite would be slower), and one at the threshold is rewritten.
TEST(HoistScanReductions, CostEstimateDeclinesSmallStepsOnly) {
  auto mse = [](int64_t per_step) {
    Program body = trace({{{per_step}, f32}}, [](Builder&, const std::vector<Value>& in) {
      return std::vector<Value>{cos(in[0])};
    });
    return trace({{{4, per_step}, f32}}, [&](Builder&, const std::vector<Value>& in) {
      Value d = scan(body, {}, {}, {in[0]}, 4)[0] - in[0];
      return std::vector<Value>{reduce_sum(d * d, {0, 1})};
    });
  };
  const int64_t threshold = HoistOptions{}.min_step_elements;
  HoistResult small = hoist_scan_reductions(mse(threshold - 1));
  EXPECT_EQ(small.rewrites, 0);
  ASSERT_EQ(small.notes.size(), 1u);
  EXPECT_EQ(small.notes[0].reason, kDeclineTooSmall);
  EXPECT_EQ(small.program.eqns.size(), mse(threshold - 1).eqns.size());
  EXPECT_EQ(hoist_scan_reductions(mse(threshold)).rewrites, 1);
  EXPECT_EQ(hoist_scan_reductions(mse(threshold - 1), {.min_step_elements = 0}).rewrites, 1);
}

TEST(HoistScanReductions, NoScanNoChange) {
  Program p = trace({{{4}, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{reduce_sum(sin(in[0]), {0})};
  });
  HoistResult h = hoist_scan_reductions(p, {.min_step_elements = 0});
  EXPECT_EQ(h.rewrites, 0);
  EXPECT_TRUE(h.log.empty());
  EXPECT_EQ(h.program.eqns.size(), p.eqns.size());
}

}  // namespace
}  // namespace tandem
