// The reserve-space LSTM under the vjp pass. Differentiated, lstm_fwd runs in training mode and
// its reserve is a residual: under everything_saveable the backward reads it and holds no
// lstm_fwd (the forward is not re-run); under nothing_saveable the policy recomputes it by
// re-running lstm_fwd in the backward. Both give bit-identical cotangents (same kernel, same
// reserve), and saved_residuals reports the reserve's bytes. lstm_bwd's operand checks name
// the reserve. Inside a scan body the reserve is a per-step residual, stacked over the steps,
// and the scan's cotangents match those of the same steps unrolled.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "engine/core/test_values.h"
#include "engine/ir/builder.h"
#include "engine/passes/saved_residuals.h"
#include "engine/passes/vjp.h"
#include "engine/prims/lstm.h"

namespace tandem {
namespace {

const LstmConfig kC{3, 4, 2, 5, 2, true};

int64_t count(const Program& p, const std::string& prim) {
  int64_t n = 0;
  for (const Eqn& e : p.eqns) n += e.prim->name == prim;
  return n;
}

Program fwd_program() {
  Builder b;
  const Shape state{kC.pseudo_layers(), kC.batch, kC.hidden};
  std::vector<Value> in{b.input({kC.batch, kC.seq, kC.input}, DType::f32), b.input(state, DType::f32),
                        b.input(state, DType::f32),
                        b.input({get_num_params_in_lstm(kC.input, kC.hidden, kC.layers, kC.bidirectional)}, DType::f32),
                        b.input({kC.batch}, DType::i32)};
  return b.build(b.bind("lstm_fwd", in, lstm_params(kC)));  // inference mode, as users write it
}

std::vector<Tensor> random_like(const std::vector<AType>& types, unsigned seed) {
  std::vector<Tensor> t;
  for (const AType& a : types) t.push_back(Tensor::from_f64(random_values(num_elements(a.shape), seed++), a.shape, a.dtype));
  return t;
}

TEST(LstmReserve, SavedUnderEverythingSaveableRecomputedUnderNothingSaveable) {
  Program p = fwd_program();
  ASSERT_EQ(p.out_types().size(), 3u);  // inference: no reserve
  std::vector<AType> in_types;
  for (const Var& v : p.in_vars) in_types.push_back(v->type);
  std::vector<Tensor> in = random_like(in_types, 1);
  in[4] = Tensor::from_f64({4, 1, 3}, {3}, DType::i32);  // ragged
  std::vector<Tensor> cts = random_like(p.out_types(), 20);
  std::vector<bool> wrt{true, true, true, true, false};

  VjpProgram saved = vjp(p, wrt, everything_saveable());
  EXPECT_EQ(count(saved.forward, "lstm_fwd"), 1);
  EXPECT_EQ(count(saved.backward, "lstm_fwd"), 0) << "the backward re-runs the forward";
  EXPECT_EQ(count(saved.backward, "lstm_bwd"), 1);
  EXPECT_EQ(saved.recompute.eqns, 0);
  const int64_t reserve = lstm_reserve_floats(kC, "HIGHEST");
  SavedResiduals sr = saved_residuals(saved);
  bool found = false;
  for (const Residual& r : sr.residuals)
    found |= r.type == AType{{reserve}, DType::f32} && r.source == "output of lstm_fwd";
  EXPECT_TRUE(found) << format_saved_residuals(sr);
  EXPECT_GE(sr.bytes, 4 * reserve);

  VjpProgram remat = vjp(p, wrt, nothing_saveable());
  EXPECT_EQ(count(remat.backward, "lstm_fwd"), 1) << "nothing_saveable must recompute the reserve";
  EXPECT_EQ(remat.recompute.by_prim.at("lstm_fwd"), 1);
  for (const Residual& r : saved_residuals(remat).residuals)
    EXPECT_NE(r.type, (AType{{reserve}, DType::f32})) << "the reserve was saved: " << r.source;

  VjpRun a = run_vjp(saved, in, cts), b = run_vjp(remat, in, cts);
  ASSERT_EQ(a.cotangents.size(), 4u);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(a.cotangents[k].to_f64(), b.cotangents[k].to_f64()) << "operand " << k;
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(a.outputs[k].to_f64(), b.outputs[k].to_f64());
}

// Two LSTM applications chained through (h, c), as a scan of length 2 and unrolled.
TEST(LstmReserve, StackedOverScanStepsAsTheUnrolledSteps) {
  Program one = fwd_program();
  std::vector<AType> t = one.in_types();
  Builder bb;  // body(x, w, lens; h, c) -> (h_n, c_n)
  Value x = bb.input(t[0].shape, t[0].dtype), w = bb.input(t[3].shape, t[3].dtype);
  Value lens = bb.input(t[4].shape, t[4].dtype);
  Value h = bb.input(t[1].shape, t[1].dtype), c = bb.input(t[2].shape, t[2].dtype);
  std::vector<Value> o = bb.bind("lstm_fwd", {x, h, c, w, lens}, lstm_params(kC));
  Program body = bb.build({o[1], o[2]});
  auto build = [&](bool as_scan) {
    Builder b;
    std::vector<Value> in;
    for (const AType& a : t) in.push_back(b.input(a.shape, a.dtype));
    if (as_scan) return b.build(scan(body, {in[0], in[3], in[4]}, {in[1], in[2]}, {}, 2));
    std::vector<Value> s1 = b.bind("lstm_fwd", in, lstm_params(kC));
    std::vector<Value> s2 = b.bind("lstm_fwd", {in[0], s1[1], s1[2], in[3], in[4]}, lstm_params(kC));
    return b.build({s2[1], s2[2]});
  };
  std::vector<Tensor> in = random_like(t, 3);
  in[4] = Tensor::from_f64({2, 4, 1}, {3}, DType::i32);
  std::vector<bool> wrt{true, true, true, true, false};
  Program scanned = build(true), unrolled = build(false);
  std::vector<Tensor> cts = random_like(scanned.out_types(), 30);
  VjpProgram vs = vjp(scanned, wrt);
  bool stacked = false;
  for (const Residual& r : vs.residuals)
    stacked |= r.type == AType{{2, lstm_reserve_floats(kC, "HIGHEST")}, DType::f32};
  EXPECT_TRUE(stacked) << format_saved_residuals(saved_residuals(vs));
  VjpRun a = run_vjp(vs, in, cts), b = run_vjp(vjp(unrolled, wrt), in, cts);
  for (size_t k = 0; k < 4; ++k) {
    std::vector<double> ga = a.cotangents[k].to_f64(), gb = b.cotangents[k].to_f64();
    ASSERT_EQ(ga.size(), gb.size());
    for (size_t i = 0; i < ga.size(); ++i)  // f32 sums of two steps in either order: a few ulps
      EXPECT_NEAR(ga[i], gb[i], 1e-5 * (1 + std::abs(gb[i]))) << "operand " << k << " element " << i;
  }
}

TEST(LstmReserve, BackwardChecksItsReserveOperand) {
  std::vector<AType> fwd_in = fwd_program().in_types();
  const Params tp = lstm_params(kC, "HIGHEST", /*training=*/true);
  std::vector<AType> out = primitive("lstm_fwd").shape(fwd_in, tp);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[3], (AType{{lstm_reserve_floats(kC, "HIGHEST")}, DType::f32}));
  std::vector<AType> bwd{out[0], out[1], out[2]};
  bwd.insert(bwd.end(), fwd_in.begin(), fwd_in.end());
  bwd.push_back(out[0]);
  bwd.push_back(AType{{out[3].shape[0] - 1}, DType::f32});  // a reserve one float short
  try {
    primitive("lstm_bwd").shape(bwd, tp);
    ADD_FAILURE() << "a short reserve was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find("reserve"), std::string::npos) << e.message();
  }
  bwd.pop_back();
  EXPECT_THROW(primitive("lstm_bwd").shape(bwd, tp), Error);  // 9 operands: the old signature
}

}  // namespace
}  // namespace tandem
