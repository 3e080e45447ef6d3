// hoist_scan_reductions on nested scans, and the programs it must not rewrite: each decline
// leaves the program unchanged and names its reason.
#include "engine/passes/hoist_test_util.h"

namespace tandem {
namespace {
using namespace hoist_test;
const DType f32 = DType::f32;

Program cos_body(const Shape& row) {
  return trace({{row, f32}}, [](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{cos(in[0])};
  });
}

TEST(HoistNested, OuterThenInner) {
  // Outer scan over 5 steps; its body runs an inner scan over 7 steps and returns the inner
  // ys [7,6] as its own y. mean over the stacked [5,7,6] then moves out of both levels.
  Program inner = cos_body({6});
  Program outer_body = trace({{{7, 6}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{scan(inner, {}, {}, {in[0]}, 7)[0]};
  });
  Program p = trace({{{5, 7, 6}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(outer_body, {}, {}, {in[0]}, 5)[0];
    return std::vector<Value>{reduce_sum(ys, {0, 1, 2}) / 210.0};
  });
  HoistResult h = hoist_and_compare(p);
  EXPECT_EQ(h.rewrites, 2) << ::testing::PrintToString(h.log);
  const Eqn* s = find_eqn(h.program, "scan");
  EXPECT_EQ(s->out[0]->type.shape, (Shape{5, 1, 1}));
  const Eqn* s_in = find_eqn(body_of(*s), "scan");
  ASSERT_NE(s_in, nullptr);
  EXPECT_EQ(s_in->out[0]->type.shape, (Shape{7, 1}));
  bool named = false;
  for (const std::string& l : h.log) named |= l.find("hoisted scan#0/body: scan#0 ys 0") == 0;
  EXPECT_TRUE(named) << ::testing::PrintToString(h.log);

  // small programs: check the rewrite, not the cost estimate
  HoistOptions o{.accumulate_in_carry = true, .min_step_elements = 0};
  HoistResult c = hoist_and_compare(p, o);
  EXPECT_EQ(c.rewrites, 2);
}

TEST(HoistNested, InnerAloneWhenTheOuterCannot) {
  // The outer ys is a program output (declined), but inside the body a reduction of the
  // inner ys is hoisted on its own.
  Program inner = cos_body({6});
  Program outer_body = trace({{{7, 6}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    Value ys = scan(inner, {}, {}, {in[0]}, 7)[0];
    return std::vector<Value>{reduce_sum(integer_pow(ys, 2), {0, 1})};
  });
  Program p = trace({{{5, 7, 6}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    return std::vector<Value>{scan(outer_body, {}, {}, {in[0]}, 5)[0]};
  });
  HoistResult h = hoist_and_compare(p);
  EXPECT_EQ(h.rewrites, 1);
  EXPECT_TRUE(log_has(h, kDeclineUsedTwice, "scan#0 ys 0"));
}

// ys = scan(cos, xs) over [10,4,3]; `use` says what happens to it.
Program with_use(const std::function<std::vector<Value>(Value ys, const std::vector<Value>&)>& use) {
  Program body = cos_body({4, 3});
  return trace({{{10, 4, 3}, f32}, {{10, 4, 3}, f32}}, [&](Builder&, const std::vector<Value>& in) {
    return use(scan(body, {}, {}, {in[0]}, 10)[0], in);
  });
}

void expect_declined(const Program& p, const char* reason, const HoistOptions& o = {}) {
  HoistResult h = hoist_and_compare(p, o, 0.0);  // untouched: bit-identical results
  EXPECT_EQ(h.rewrites, 0);
  EXPECT_TRUE(log_has(h, reason)) << "want [" << reason << "], log: " << ::testing::PrintToString(h.log);
  EXPECT_EQ(h.program.eqns.size(), p.eqns.size());
}

TEST(HoistDeclines, NonReducibleConsumer) {
  expect_declined(with_use([](Value ys, auto&) {
    return std::vector<Value>{reduce_max(ys, {0, 1, 2})};
  }), kDeclineNonReducible);
  expect_declined(with_use([](Value ys, auto&) {  // a layout op before the reduction
    return std::vector<Value>{reduce_sum(transpose(ys, {0, 2, 1}), {0, 1, 2})};
  }), kDeclineNonReducible);
  expect_declined(with_use([](Value ys, auto&) {  // one reader reduces, the other does not
    return std::vector<Value>{reduce_sum(ys, {0, 1, 2}), reshape(ys, {120})};
  }), kDeclineNonReducible);
}

TEST(HoistDeclines, YsUsedTwice) {
  expect_declined(with_use([](Value ys, auto&) {  // the stacked ys is also returned
    return std::vector<Value>{reduce_sum(ys, {0, 1, 2}), ys};
  }), kDeclineUsedTwice);
  expect_declined(with_use([](Value ys, const std::vector<Value>& in) {  // d feeds two things
    Value d = in[1] - ys;
    return std::vector<Value>{reduce_sum(d * d, {0, 1, 2}), reduce_max(d, {0})};
  }), kDeclineUsedTwice);
}

TEST(HoistDeclines, AxesThatDoNotAllowIt) {
  expect_declined(with_use([](Value ys, auto&) {  // only the scan axis, no carry asked
    return std::vector<Value>{reduce_sum(ys, {0})};
  }), kDeclineAxes);
  expect_declined(with_use([](Value ys, auto&) {  // no axis at all
    return std::vector<Value>{reduce_sum(ys, {})};
  }), kDeclineAxes);
  HoistOptions carry;
  carry.min_step_elements = 0;
  carry.accumulate_in_carry = true;
  expect_declined(with_use([](Value ys, auto&) {  // {0,1} ∩ {0,2} = {0}; carry needs 0 in both
    return std::vector<Value>{reduce_sum(ys, {1}), reduce_sum(ys, {2})};
  }), kDeclineAxes, carry);
}

TEST(HoistDeclines, OperandNotSplittable) {
  expect_declined(with_use([](Value ys, const std::vector<Value>& in) {  // depends on the scan
    Value t = reduce_sum(ys, {0, 1, 2});
    Value scaled = in[1] * t;
    return std::vector<Value>{t, reduce_sum(integer_pow(ys - scaled, 2), {0, 1, 2})};
  }), kDeclineOperand);
  // Traced after the scan though it does not depend on it: not moved (a known limit; the
  // pass does not reorder equations).
  expect_declined(with_use([](Value ys, const std::vector<Value>& in) {
    Value v = reduce_sum(in[1], {0, 1});  // [3]
    return std::vector<Value>{reduce_sum(ys - broadcast_in_dim(v, {10, 4, 3}, {2}), {0, 1, 2})};
  }), kDeclineOperand);
}

}  // namespace
}  // namespace tandem
