// hoist_scan_accumulations: the rewritten program gives the original's numbers within the
// reordered-sum bound, the scan loses its accumulator carries, and each decline is logged.
// Tolerance: both programs sum the same products c_0, x_t·y_t (in a different order), so per
// element |got − want| ≤ 2·γ_n·(|c_0| + Σ_t Σ_k |x_t,k|·|y_t,k|), γ_n = n·u/(1 − n·u), u = 2⁻²⁴,
// n = L·K + 1 terms. The test computes that bound from the rewritten program itself: beside
// each dot_general the pass emitted it adds dot_general(|X|, |Y|) + |c_0| as an extra output.
#include "engine/passes/hoist_scan_accumulations.h"

#include "engine/passes/hoist_rewrite.h"
#include "engine/passes/hoist_test_util.h"
#include "engine/prims/dot_general.h"

namespace tandem {
namespace {
using namespace hoist_test;
const DType f32 = DType::f32;
const DotDims kBatchContract{{0}, {0}, {}, {}};  // [K,M]ᵀ·[K,N] → [M,N]

// An RNN-like scan: h ← tanh(x_t + h·W), and acc ← acc + dot(hᵀ, g) with g = tanh(x_t·2) per
// step (or x_t itself, an xs, when `xs_operand`). Outputs (h_L, acc_L).
Program rnn(int64_t L = 20, int64_t K = 4, int64_t H = 8, bool carry_first = true, bool xs_operand = false,
            bool reverse = false) {
  Program body = trace({{{H, H}, f32}, {{K, H}, f32}, {{H, H}, f32}, {{K, H}, f32}},
                       [&](Builder&, const std::vector<Value>& v) {
                         Value h = v[1], acc = v[2], x = v[3];
                         Value g = xs_operand ? x : tanh(x * 2.0);
                         Value d = dot_general(h, g, kBatchContract, "HIGHEST");
                         Value h_new = tanh(x + dot(h, v[0], "HIGHEST"));
                         return std::vector<Value>{h_new, carry_first ? acc + d : d + acc};
                       });
  return trace({{{H, H}, f32}, {{K, H}, f32}, {{H, H}, f32}, {{L, K, H}, f32}},
               [&](Builder&, const std::vector<Value>& v) {
                 std::vector<Value> r = scan(body, {v[0]}, {v[1], v[2]}, {v[3]}, L, reverse);
                 return std::vector<Value>{r[0], r[1]};
               });
}

// |a| as max(a, −a) (the IR has no abs).
Var abs_of(std::vector<Eqn>& eqns, const Atom& a) {
  return hoist::emit(eqns, "max", {a, hoist::emit(eqns, "neg", {a}, {})}, {});
}

// For each program output that the pass's add(c_0, [transpose] dot_general(X, Y)) defines:
// the per-element bound above, as {output index, bound values}.
std::vector<std::pair<size_t, std::vector<double>>> order_bounds(const Program& hoisted, const std::vector<Tensor>& in) {
  Program q = hoisted;
  std::vector<size_t> which;
  for (size_t e = 0; e + 1 < hoisted.eqns.size(); ++e) {
    const Eqn& dot = hoisted.eqns[e];
    const Eqn* tr = hoisted.eqns[e + 1].prim->name == "transpose" ? &hoisted.eqns[e + 1] : nullptr;
    if (tr && e + 2 >= hoisted.eqns.size()) continue;
    const Eqn& add = hoisted.eqns[e + (tr ? 2 : 1)];
    if (dot.prim->name != "dot_general" || add.prim->name != "add") continue;
    const int64_t term = (tr ? tr->out[0] : dot.out[0])->id;
    for (size_t o = 0; o < hoisted.out_vars.size(); ++o) {
      if (hoisted.out_vars[o].is_literal() || hoisted.out_vars[o].var->id != add.out[0]->id) continue;
      const Atom& init = !add.in[0].is_literal() && add.in[0].var->id == term ? add.in[1] : add.in[0];
      Var s = hoist::emit(q.eqns, "dot_general", {abs_of(q.eqns, dot.in[0]), abs_of(q.eqns, dot.in[1])}, dot.params);
      if (tr) s = hoist::emit(q.eqns, "transpose", {s}, tr->params);
      q.out_vars.push_back(hoist::emit(q.eqns, "add", {s, abs_of(q.eqns, init)}, {}));
      DotSignature sig = dot_signature({dot.in[0].type(), dot.in[1].type()}, dot.params);
      double n = 1;
      for (int64_t a : sig.lhs_contract) n *= double(dot.in[0].type().shape[size_t(a)]);
      which.push_back(o);
      which.push_back(size_t(n + 1));
    }
  }
  std::vector<Tensor> got = Executor().run(q, in);
  std::vector<std::pair<size_t, std::vector<double>>> r;
  const double u = std::ldexp(1.0, -24);
  for (size_t k = 0; k < which.size(); k += 2) {
    const double n = double(which[k + 1]), gamma = n * u / (1 - n * u);
    std::vector<double> b = got[hoisted.out_vars.size() + k / 2].to_f64();
    for (double& x : b) x *= 2 * gamma;
    r.emplace_back(which[k], b);
  }
  return r;
}

// Rewrites, typechecks, and checks every rewritten accumulator within its bound and every
// other output exactly. Returns the pass's result.
HoistResult hoist_and_check(const Program& p, const AccumulationHoistOptions& o = {}) {
  HoistResult h = hoist_scan_accumulations(p, o);
  typecheck(h.program);
  EXPECT_EQ(h.program.out_types(), p.out_types());
  std::vector<Tensor> in = inputs_for(p);
  auto want = run(p, in), got = run(h.program, in);
  std::vector<std::vector<double>> tol(want.size());
  for (size_t i = 0; i < want.size(); ++i) tol[i].assign(want[i].size(), 0.0);
  for (auto& [o, b] : order_bounds(h.program, in)) tol[o] = b;
  for (size_t i = 0; i < want.size(); ++i)
    for (size_t k = 0; k < want[i].size(); ++k)
      EXPECT_NEAR(got[i][k], want[i][k], tol[i][k]) << "output " << i << " element " << k << "\n" << to_string(h.program);
  return h;
}

const Eqn& the_scan(const Program& p) { return *find_eqn(p, "scan"); }
int hoisted_notes(const std::vector<std::string>& log) {
  return int(std::count_if(log.begin(), log.end(), [](const std::string& s) { return s.rfind("hoisted", 0) == 0; }));
}

TEST(HoistScanAccumulations, MovesTheSumOutAsOneDot) {
  Program p = rnn();
  HoistResult h = hoist_and_check(p);
  ASSERT_EQ(h.rewrites, 1) << ::testing::PrintToString(h.log);
  const Eqn& s = the_scan(h.program);
  EXPECT_EQ(s.params.get_int("num_carry"), 1);
  EXPECT_EQ(find_eqn(body_of(s), "dot_general") != nullptr, true);  // h·W stays per step
  // After the scan: dot_general over (L, K) of the stacked h [20,8,6] and g [20,8,6].
  const Eqn* d = nullptr;
  for (const Eqn& e : h.program.eqns)
    if (e.prim->name == "dot_general") d = &e;
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->params.get_ints("lhs_contracting_dimensions"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(d->in[0].type().shape, (Shape{20, 4, 8}));
  EXPECT_EQ(s.out.size(), 3u);  // h_L, stacked h entering each step, stacked g
  EXPECT_EQ(hoisted_notes(h.log), 1);
  EXPECT_NE(::testing::PrintToString(h.log).find("hoisted scan#0 carry 1"), std::string::npos);
  EXPECT_NE(::testing::PrintToString(h.log).find("declined [carry is not a dot accumulator] scan#0 carry 0"),
            std::string::npos);
}

TEST(HoistScanAccumulations, EitherOrderXsOperandReverseScan) {
  HoistResult h = hoist_and_check(rnn(15, 4, 5, /*carry_first=*/false, /*xs_operand=*/true, /*reverse=*/true));
  ASSERT_EQ(h.rewrites, 1) << ::testing::PrintToString(h.log);
  EXPECT_EQ(the_scan(h.program).out.size(), 2u);  // only h is stacked: x_t is the xs operand itself
}

TEST(HoistScanAccumulations, InsideAnOuterScan) {
  Program inner = rnn(6, 2, 4);
  std::vector<AType> t = inner.in_types();  // W, h0, acc0, xs
  Program body = trace({t[3], t[0], t[1], t[2]}, [&](Builder& b, const std::vector<Value>& v) {
    std::vector<Value> r = inline_program(b, inner, {v[1], v[2], v[3], v[0]});
    return std::vector<Value>{v[1], r[0], r[1]};
  });
  Program p = trace(t, [&](Builder&, const std::vector<Value>& v) {
    std::vector<Value> r = scan(body, {v[3]}, {v[0], v[1], v[2]}, {}, 3);
    return std::vector<Value>{r[1], r[2]};
  });
  HoistResult h = hoist_scan_accumulations(p);
  EXPECT_EQ(h.rewrites, 1) << ::testing::PrintToString(h.log);
  std::vector<Tensor> in = inputs_for(p);
  auto want = run(p, in), got = run(h.program, in);
  for (size_t i = 0; i < want.size(); ++i)  // bound of the inner level, × 3 outer steps, × 4 headroom
    for (size_t k = 0; k < want[i].size(); ++k) EXPECT_NEAR(got[i][k], want[i][k], 1e-4 * (1 + std::abs(want[i][k])));
}

TEST(HoistScanAccumulations, WeightGradientOfAScanVjp) {
  Program p = trace({{{6, 6}, f32}, {{8, 6}, f32}, {{20, 8, 6}, f32}}, [](Builder&, const std::vector<Value>& v) {
    Program cell = trace({{{6, 6}, f32}, {{8, 6}, f32}, {{8, 6}, f32}}, [](Builder&, const std::vector<Value>& u) {
      Value h = tanh(u[2] + dot(u[1], u[0], "HIGHEST"));
      return std::vector<Value>{h, h};
    });
    return std::vector<Value>{scan(cell, {v[0]}, {v[1]}, {v[2]}, 20)[1]};
  });
  VjpProgram v = vjp(p);
  std::vector<std::string> log;
  VjpProgram h = hoist_backward_accumulations(v, {}, &log);
  EXPECT_EQ(hoisted_notes(log), 1) << ::testing::PrintToString(log);
  std::vector<Tensor> in = inputs_for(p), ct = {inputs_for(p, 9)[2]};
  std::vector<Tensor> want = run_vjp(v, in, ct).cotangents, got = run_vjp(h, in, ct).cotangents;
  // The backward's own bound, from its rewritten program (W's cotangent is the accumulator).
  std::vector<Tensor> bargs = run_vjp(h, in, ct).residuals;
  bargs.insert(bargs.end(), ct.begin(), ct.end());
  auto bounds = order_bounds(h.backward, bargs);
  ASSERT_EQ(bounds.size(), 1u);
  for (size_t i = 0; i < want.size(); ++i) {
    std::vector<double> a = want[i].to_f64(), b = got[i].to_f64();
    for (size_t k = 0; k < a.size(); ++k)
      EXPECT_NEAR(b[k], a[k], i == bounds[0].first ? bounds[0].second[k] : 0.0) << "cotangent " << i << " [" << k << "]";
  }
}

// Each decline: the program is left as it was and the log names the reason and the carry.
void expect_declined(const Program& p, const char* reason, const AccumulationHoistOptions& o = {}) {
  HoistResult h = hoist_scan_accumulations(p, o);
  EXPECT_EQ(h.rewrites, 0) << ::testing::PrintToString(h.log);
  bool found = false;
  for (const PassNote& n : h.notes) found |= !n.rewritten && n.reason == reason && n.where == "scan#0 carry 1";
  EXPECT_TRUE(found) << reason << " not in " << ::testing::PrintToString(h.log);
  EXPECT_EQ(to_string(h.program), to_string(p));
}

// rnn() with the body changed by `edit` (h, acc, x, d) → (h_new, acc_new, extra ys...).
Program variant(const std::function<std::vector<Value>(Value, Value, Value, Value, Value)>& edit, int64_t K = 8,
                int64_t H = 6) {
  Program body = trace({{{H, H}, f32}, {{K, H}, f32}, {{H, H}, f32}, {{K, H}, f32}},
                       [&](Builder&, const std::vector<Value>& v) {
                         Value d = dot_general(v[1], tanh(v[3]), kBatchContract, "HIGHEST");
                         return edit(v[0], v[1], v[2], v[3], d);
                       });
  return trace({{{H, H}, f32}, {{K, H}, f32}, {{H, H}, f32}, {{10, K, H}, f32}},
               [&](Builder&, const std::vector<Value>& v) {
                 return scan(body, {v[0]}, {v[1], v[2]}, {v[3]}, 10);
               });
}

TEST(HoistScanAccumulations, Declines) {
  auto step = [](Value w, Value h, Value x) { return tanh(x + dot(h, w, "HIGHEST")); };
  expect_declined(variant([&](Value w, Value h, Value acc, Value x, Value d) {
                    return std::vector<Value>{step(w, h, x), acc * 0.5 + d};
                  }), kAccNotAnAccumulator);
  expect_declined(variant([&](Value w, Value h, Value acc, Value x, Value d) {
                    return std::vector<Value>{step(w, h, x) + dot(h, acc), acc + d};
                  }), kAccCarryReadElsewhere);
  expect_declined(variant([&](Value w, Value h, Value acc, Value x, Value d) {
                    return std::vector<Value>{step(w, h, x), acc + d, d};
                  }), kAccDotUsedTwice);
  expect_declined(variant([&](Value w, Value h, Value acc, Value x, Value) {
                    return std::vector<Value>{step(w, h, x), acc + dot(w, tanh(w))};  // w: a const
                  }), kAccOperand);
  // K = 64 rows per step against a [2,2] accumulator: 256 elements stacked for 4 saved.
  expect_declined(variant([&](Value, Value h, Value acc, Value x, Value d) {
                    return std::vector<Value>{tanh(h + x), acc + d};
                  }, 64, 2), kAccNotThin);
  AccumulationHoistOptions small;
  small.max_stacked_bytes = 1000;  // 10 steps × 2 × [4,8] f32 = 2,560 bytes
  expect_declined(rnn(10), kAccMemory, small);
}

}  // namespace
}  // namespace tandem
