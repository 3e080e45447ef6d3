// vjp pass, where JAX decides what is differentiated and under which policy: a nested checkpoint under an enclosing
// policy (JAX's outer policy wins), integer carries and outputs (no cotangent, as JAX's float0), values no
// differentiated input reaches (activity analysis: one_hot(tokens) @ E saves no E) and an explicit wrt (a closed-over
// constant not differentiated). Each expectation is what jax.ad_checkpoint.saved_residuals prints for the same function
// (tools/import/real_programs/ runs them through JAX end to end).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/ir/executor.h"
#include "engine/passes/saved_residuals.h"
#include "engine/passes/vjp.h"
#include "engine/prims/checkpoint.h"

namespace tandem {
namespace {

using V = std::vector<Value>;
const AType kW{{6, 6}, DType::f32}, kX{{6, 4}, DType::f32};

std::vector<std::string> types(const SavedResiduals& s, bool arguments) {
  std::vector<std::string> t;
  for (const Residual& r : s.residuals)
    if (arguments || !r.is_argument) t.push_back(r.type.str());
  return t;
}

// The JAX docs' nesting: each layer sin(W @ h) checkpointed under nothing_saveable, inside a
// whole-network checkpoint under `outer` ("": no network checkpoint).
Program nested(const std::string& outer) {
  Program layer = trace({kW, kX}, [](Builder&, auto& v) { return V{sin(dot(v[0], v[1]))}; });
  auto layers = [&](const std::vector<Value>& v) {
    return checkpoint(layer, {v[1], checkpoint(layer, {v[0], v[2]}, "nothing_saveable")[0]}, "nothing_saveable");
  };
  Program net = trace({kW, kW, kX}, [&](Builder&, auto& v) { return layers(v); });
  return trace({kW, kW, kX}, [&](Builder&, auto& v) { return outer.empty() ? layers(v) : checkpoint(net, v, outer); });
}

// jax.ad_checkpoint.saved_residuals: under an enclosing dots_saveable (a network checkpoint, or the top-level policy:
// jax.checkpoint(f, policy=dots_saveable)) the layers' own nothing_saveable does not rule (JAX's partial evaluation
// passes the enclosing `saveable` into the nested checkpoint), so both dots are saved; without one, each layer's own
// policy saves nothing but its inputs.
TEST(VjpActivity, NestedCheckpointTheOuterPolicyWins) {
  const std::vector<std::string> two_dots = {"f32[6,4]", "f32[6,4]"};
  EXPECT_EQ(types(saved_residuals(nested("dots_saveable")), false), two_dots);
  EXPECT_EQ(types(saved_residuals(nested(""), dots_saveable()), false), two_dots);
  EXPECT_EQ(types(saved_residuals(nested("nothing_saveable"), dots_saveable()), false), two_dots);
  // Without an enclosing policy each layer's own rules: only the first layer's output, which
  // is the second layer's input, is kept between them.
  EXPECT_EQ(types(saved_residuals(nested("")), false), std::vector<std::string>{"f32[6,4]"});
}

// lax.fori_loop(0, 4, step, h): a scan whose first carry is the i32 counter indexing the
// weights. The counter gets no cotangent; the gradient is the finite difference's.
Program fori_loop() {
  const AType ws{{4, 5, 5}, DType::f64}, h{{3, 5}, DType::f64}, i{{}, DType::i32};
  Program body = trace({ws, i, h}, [](Builder& b, auto& v) {
    Value zero = b.literal(0, DType::i32);
    Value w = reshape(dynamic_slice(v[0], {v[1], zero, zero}, {1, 5, 5}), {5, 5});
    return V{v[1] + b.literal(1, DType::i32), tanh(dot(v[2], w))};
  });
  return trace({ws, h}, [&](Builder& b, auto& v) {
    std::vector<Value> out = scan(body, {v[0]}, {b.literal(0, DType::i32), v[1]}, {}, 4);
    return V{reduce_sum(out[1] * out[1], {0, 1}), out[0]};  // the counter returned too
  });
}

TEST(VjpActivity, ForiLoopCounterCarryGetsNoCotangent) {
  Program p = fori_loop();
  std::vector<Tensor> in;
  for (const AType& t : p.in_types()) {
    std::vector<double> v(size_t(num_elements(t.shape)));
    for (size_t k = 0; k < v.size(); ++k) v[k] = 0.4 * std::sin(1.7 * double(k) + double(t.shape.size()));
    in.push_back(Tensor::from_f64(v, t.shape, t.dtype));
  }
  for (const Policy& pol : {everything_saveable(), nothing_saveable(), dots_saveable()}) {
    VjpRun r = run_vjp(vjp(p, {}, pol), in, {Tensor::scalar(1, DType::f64), Tensor::scalar(0, DType::i32)});
    ASSERT_EQ(r.cotangents.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      const std::vector<double> g = r.cotangents[k].to_f64(), x = in[k].to_f64();
      for (size_t e = 0; e < x.size(); e += 7) {
        auto at = [&](double d) {
          std::vector<Tensor> moved = in;
          std::vector<double> y = x;
          y[e] += d;
          moved[k] = Tensor::from_f64(y, in[k].shape(), in[k].dtype());
          return Executor().run(p, moved)[0].to_f64()[0];
        };
        const double fd = (at(1e-6) - at(-1e-6)) / 2e-6;
        EXPECT_NEAR(g[e], fd, 1e-6 * (1 + std::abs(fd))) << pol.spec << " input " << k << " element " << e;
      }
    }
  }
}

// one_hot(tokens) @ E: the one-hot matrix depends only on the integer tokens, so it is not
// differentiated: no cotangent for it, and E (which only its cotangent would read) is not saved.
TEST(VjpActivity, OneHotEmbeddingSavesNoTable) {
  const AType e{{11, 8}, DType::f32}, tok{{6}, DType::i32};
  Program p = trace({e, tok}, [](Builder& b, auto& v) {
    Value ids = broadcast_in_dim(v[1], {6, 11}, {0});
    Value onehot = convert_element_type(compare(ids, iota(b, DType::i32, {6, 11}, 1), "eq"), DType::f32);
    return V{reduce_sum(sin(dot(onehot, v[0])), {0, 1})};
  });
  // (nothing_saveable saves E, as JAX does: the backward re-runs the dot itself.)
  for (const Policy& pol : {everything_saveable(), dots_saveable()}) {
    VjpProgram g = vjp(p, {}, pol);
    for (const Residual& r : g.residuals) EXPECT_NE(r.type.str(), "f32[11,8]") << pol.spec << ": E saved (" << r.source << ")";
    int dots = 0;
    for (const Eqn& q : g.backward.eqns) dots += q.prim->name == "dot_general";
    EXPECT_EQ(dots, 1) << pol.spec << ": only E's cotangent is a dot";
  }
}

// An explicit wrt: a closed-over constant c is not differentiated, so in sin(x) * c the
// cotangent of x reads c and cos(x), while nothing is saved for c's (which would read sin(x)).
TEST(VjpActivity, ConstantOutsideWrtIsNotDifferentiated) {
  const AType t{{5}, DType::f32};
  Program p = trace({t, t}, [](Builder&, auto& v) { return V{reduce_sum(sin(v[0]) * v[1], {0})}; });
  EXPECT_EQ(types(saved_residuals(p, everything_saveable(), {true, false}), true),
            (std::vector<std::string>{"f32[5]", "f32[5]"}));  // x (sin's rule reads it) and c
  EXPECT_EQ(types(saved_residuals(p, everything_saveable(), {true, true}), true).size(), 3u);  // and sin(x) for c
}

}  // namespace
}  // namespace tandem
