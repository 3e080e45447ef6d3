// Remat: JAX's own expectations for the policies (name policies, dots_saveable, its convs), recursive
// checkpointing of a sin chain, offloading, saved_residuals' printer, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "engine/core/error.h"
#include "engine/passes/saved_residuals.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/conv.h"

namespace tandem {
namespace {

const AType kVec{{16}, DType::f32};
using V = std::vector<Value>;

int count(const Program& p, const std::string& prim) {
  int n = 0;
  for (const Eqn& e : p.eqns) n += e.prim->name == prim;
  return n;
}

// checkpoint(x -> y = sin x ~'y' -> z = sin y ~'z' -> w = sin z ~'w' -> sin w, policy).
Program named_chain(const std::string& policy) {
  Program body = trace({kVec}, [](Builder&, auto& v) {
    Value y = checkpoint_name(sin(v[0]), "y");
    Value z = checkpoint_name(sin(y), "z");
    Value w = checkpoint_name(sin(z), "w");
    return V{sin(w)};
  });
  return trace({kVec}, [&](Builder&, auto& v) { return checkpoint(body, {v[0]}, policy); });
}
int64_t saved(const std::string& policy) { return saved_residuals(named_chain(policy)).count_non_arguments(); }

TEST(Remat, SaveOnlyTheseNames) {
  EXPECT_EQ(saved("save_only_these_names(y,z,w)"), 3);
  EXPECT_EQ(saved("save_only_these_names(z,w)"), 2);
  EXPECT_EQ(saved("save_only_these_names(w)"), 1);
  EXPECT_EQ(saved("save_only_these_names()"), 0);
}

TEST(Remat, SaveAnyNamesButThese) {
  EXPECT_EQ(saved("save_any_names_but_these(y,z,w)"), 0);
  EXPECT_EQ(saved("save_any_names_but_these(z,w)"), 1);
  EXPECT_EQ(saved("save_any_names_but_these(w)"), 2);
  EXPECT_EQ(saved("save_any_names_but_these()"), 3);
}

TEST(Remat, SaveAnythingExceptTheseNamesAndBothPolicies) {
  // Unnamed values stay saveable: w is the saved sin's buffer under another name, so the
  // backward reads that buffer (no re-applied name, nothing recomputed).
  SavedResiduals s = saved_residuals(named_chain("save_anything_except_these_names(w)"));
  EXPECT_EQ(s.count_non_arguments(), 3);
  EXPECT_EQ(s.recompute.eqns, 0);
  EXPECT_EQ(s.recompute.by_prim.count("sin"), 0u);
  // y and w saved; z recomputed from y (one sin, one name).
  SavedResiduals both = saved_residuals(
      named_chain("save_from_both_policies(save_only_these_names(y);save_only_these_names(w))"));
  EXPECT_EQ(both.count_non_arguments(), 2);
  EXPECT_EQ(both.recompute.by_prim["sin"], 1);
}

TEST(Remat, OffloadedResidualsAreCountedApart) {
  SavedResiduals s = saved_residuals(named_chain("save_and_offload_only_these_names(y|z,w)"));
  EXPECT_EQ(s.count_non_arguments(), 3);
  EXPECT_EQ(s.offloaded_bytes, 2 * 16 * 4);
  EXPECT_EQ(s.bytes, 2 * 16 * 4);  // y and the argument x
  std::string text = format_saved_residuals(s);
  EXPECT_NE(text.find("named 'z'  [offloaded]"), std::string::npos) << text;
  EXPECT_NE(text.find("from the argument 0"), std::string::npos) << text;
}

// Three (dot, sin) layers under dots_saveable: the backward holds 2 sin and 6 dot_general.
TEST(Remat, DotsSaveableThreeLayers) {
  AType x{{4, 8}, DType::f32}, w{{8, 8}, DType::f32};
  Program body = trace({x, w, w, w}, [](Builder&, auto& v) {
    Value h = v[0];
    for (size_t i = 1; i <= 3; ++i) h = sin(dot(h, v[i]));
    return V{h};
  });
  Program p = trace({x, w, w, w}, [&](Builder&, auto& v) { return checkpoint(body, v, "dots_saveable"); });
  VjpProgram g = vjp(p);
  EXPECT_EQ(count(g.backward, "sin"), 2);
  EXPECT_EQ(count(g.backward, "dot_general"), 6);
  EXPECT_EQ(saved_residuals(g).count_non_arguments(), 3);  // the three dot outputs
  // The same as a top-level policy, without a checkpoint eqn.
  VjpProgram t = vjp(body, {}, dots_saveable());
  EXPECT_EQ(count(t.backward, "sin"), 2);
  EXPECT_EQ(count(t.backward, "dot_general"), 6);
}

// dots_saveable saves convolutions too, as JAX's (DotsSaveable: dot_general and conv_general_dilated): two (conv, sin)
// layers keep both conv outputs, so the backward runs no conv forward again, only the four transposes (d x, d w1, d h1,
// d w2); dots_with_no_batch_dims_saveable saves none and recomputes both.
TEST(Remat, DotsSaveableSavesConvolutions) {
  AType x{{2, 3, 6, 6}, DType::f32}, w{{3, 3, 3, 3}, DType::f32};
  ConvSpec s;
  s.window_strides = {1, 1}, s.pad_lo = s.pad_hi = {1, 1}, s.lhs_dilation = s.rhs_dilation = {1, 1};
  s.lhs_spec = s.rhs_spec = s.out_spec = {0, 1, 2, 3};
  Program body = trace({x, w, w}, [&](Builder&, auto& v) {
    return V{sin(conv_general_dilated(sin(conv_general_dilated(v[0], v[1], s)), v[2], s))};
  });
  VjpProgram g = vjp(body, {}, dots_saveable());
  EXPECT_EQ(count(g.backward, "conv_general_dilated"), 4);
  EXPECT_EQ(saved_residuals(g).count_non_arguments(), 2);  // the two conv outputs
  VjpProgram n = vjp(body, {}, dots_with_no_batch_dims_saveable());
  EXPECT_EQ(saved_residuals(n).count_non_arguments(), 0);
  EXPECT_EQ(count(n.backward, "conv_general_dilated"), 6);
}

// The jax.checkpoint docstring's recursive_checkpoint over n applications of `op`.
std::function<Value(Value)> recursive(int n, const std::string& op) {
  if (n == 1) return [op](Value x) { return x.builder()->bind1(op, {x}); };
  if (n == 2) return [op](Value x) { return x.builder()->bind1(op, {x.builder()->bind1(op, {x})}); };
  auto f1 = recursive(n / 2, op), f2 = recursive(n - n / 2, op);
  return [f1, f2](Value x) {
    Program body = trace({kVec}, [&](Builder&, auto& v) { return V{f2(v[0])}; });
    return f1(checkpoint(body, {x}, "nothing_saveable")[0]);
  };
}

struct ChainCounts {
  std::vector<int64_t> ops, residuals;
};
ChainCounts chain_counts(const std::string& op) {
  ChainCounts c;
  for (int n : {4, 8, 16, 32}) {
    Program p = trace({kVec}, [&](Builder&, auto& v) { return V{recursive(n, op)(v[0])}; });
    VjpProgram g = vjp(p);
    c.ops.push_back(count(g.backward, op));
    c.residuals.push_back(saved_residuals(g).count_non_arguments());
    EXPECT_EQ(g.recompute.by_prim[op], c.ops.back()) << op << " n=" << n;
  }
  std::printf("recursive %s chain n=4,8,16,32: backward %s eqns %lld %lld %lld %lld; "
              "non-argument residuals %lld %lld %lld %lld\n", op.c_str(), op.c_str(),
              (long long)c.ops[0], (long long)c.ops[1], (long long)c.ops[2], (long long)c.ops[3],
              (long long)c.residuals[0], (long long)c.residuals[1], (long long)c.residuals[2],
              (long long)c.residuals[3]);
  return c;
}
// O(log n) residuals: a constant number more per doubling.
void expect_log_residuals(const ChainCounts& c) {
  for (size_t i = 2; i < c.residuals.size(); ++i)
    EXPECT_EQ(c.residuals[i] - c.residuals[i - 1], c.residuals[1] - c.residuals[0]);
  EXPECT_LE(c.residuals.back(), 3 * 5);
}

// jax's test_remat_basic: linearizing checkpoint(sin ∘ sin) evaluates sin once and cos
// twice in the backward. The second sin's output only feeds the primal output, so JAX's
// remat_partial_eval DCEs it from the staged (recomputed) body; so do we.
TEST(Remat, CheckpointedSinSinRecomputesOneSin) {
  Program body = trace({kVec}, [](Builder&, auto& v) { return V{sin(sin(v[0]))}; });
  Program p = trace({kVec}, [&](Builder&, auto& v) { return checkpoint(body, v, "nothing_saveable"); });
  VjpProgram g = vjp(p);
  EXPECT_EQ(count(g.backward, "sin"), 1);
  EXPECT_EQ(count(g.backward, "cos"), 2);
  EXPECT_EQ(saved_residuals(g).count_non_arguments(), 0);
}

// sin's derivative reads its input, so each checkpointed body of n/2 sins re-runs n/2 - 1 of
// them (its last is dead in the backward): B(n) = 2·B(n/2) + n/2 - 1, B(2) = 0: 1, 5, 17,
// 49, as JAX (print_fwd_bwd(recursive_checkpoint([jnp.sin] * 8)) shows 5 sin eqns).
TEST(Remat, RecursiveCheckpointOfSinChain) {
  ChainCounts c = chain_counts("sin");
  EXPECT_EQ(c.ops, (std::vector<int64_t>{1, 5, 17, 49}));
  expect_log_residuals(c);
}

// exp's derivative reads its output, so no exp of a checkpointed body is dead in the backward: B(n) = 2·B(n/2) + n/2
// with B(2) = 2: 2, 8, 24, 64. (The former opt-in "re-run every checkpointed body whole" produced these counts for sin;
// JAX never does that, so it is gone: the counts now come from what the derivatives read.)
TEST(Remat, RecursiveCheckpointOfExpChain) {
  ChainCounts c = chain_counts("exp");
  EXPECT_EQ(c.ops, (std::vector<int64_t>{2, 8, 24, 64}));
  expect_log_residuals(c);
}

// JAX's offload_dot_with_no_batch_dims: the dots go to the offload pool, the rest is
// recomputed; save_from_both_policies refuses offloading policies, and user predicates
// (a callable over the primitive and its params) are policies a checkpoint can name.
TEST(Remat, OffloadDotsUserPredicatesAndBothPolicies) {
  AType x{{4, 8}, DType::f32}, w{{8, 8}, DType::f32};
  Program body = trace({x, w}, [](Builder&, auto& v) { return V{sin(dot(sin(dot(v[0], v[1])), v[1]))}; });
  auto model = [&](const std::string& pol) {
    return trace({x, w}, [&](Builder&, auto& v) { return checkpoint(body, v, pol); });
  };
  SavedResiduals off = saved_residuals(model("offload_dot_with_no_batch_dims(device,pinned_host)"));
  EXPECT_EQ(off.offloaded_bytes, 2 * 4 * 8 * 4);  // both dot outputs
  EXPECT_EQ(off.bytes - off.argument_bytes, 0);
  EXPECT_EQ(off.recompute.by_prim["sin"], 1);
  EXPECT_THROW(policy_from_string("offload_dot_with_no_batch_dims(device,disk)"), Error);
  EXPECT_THROW(policy_from_string("save_from_both_policies(dots_saveable;offload_dot_with_no_batch_dims(device,pinned_host))"), Error);
  EXPECT_THROW(policy_from_string("save_from_both_policies(save_and_offload_only_these_names(a|b);dots_saveable)"), Error);
  // A user predicate: save sin outputs only (what no built-in policy does).
  register_policy("sins_saveable", [](const Primitive& p, const Params&) {
    return p.name == "sin" ? Remat::save : Remat::recompute;
  });
  SavedResiduals sins = saved_residuals(model("sins_saveable"));
  EXPECT_EQ(sins.recompute.by_prim["dot_general"], 2);  // cos reads both dots, recomputed
  EXPECT_EQ(sins.recompute.by_prim.count("sin"), 0u);
  EXPECT_EQ(sins.count_non_arguments(), 1);
  // A user predicate that offloads is refused by save_from_both when it answers.
  register_policy("offload_everything", [](const Primitive&, const Params&) { return Remat::offload; });
  EXPECT_THROW(vjp(model("save_from_both_policies(dots_saveable;offload_everything)")), Error);
  EXPECT_THROW(register_policy("bad(name)", [](const Primitive&, const Params&) { return Remat::save; }), Error);
}

TEST(Remat, BadInput) {
  EXPECT_THROW(named_chain("save_the_world"), Error);  // unknown policy: at trace time
  EXPECT_THROW(policy_from_string("dots_saveable(x)"), Error);
  EXPECT_THROW(vjp(named_chain("save_only_these_names(y,q)")), Error);  // 'q' names nothing
  Program unnamed = trace({kVec}, [](Builder&, auto& v) { return V{sin(v[0])}; });
  Program p = trace({kVec}, [&](Builder&, auto& v) { return checkpoint(unnamed, v, "save_only_these_names(y)"); });
  try {
    vjp(p);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no named values"), std::string::npos) << e.what();
  }
}

// A checkpoint with a bool output: the mask gets no cotangent (JAX's float0), the values do.
TEST(Remat, CheckpointBoolOutputGetsNoCotangent) {
  Program ints = trace({kVec}, [](Builder&, auto& v) { return V{compare(v[0], v[0], "lt")}; });
  Program q = trace({kVec}, [&](Builder&, auto& v) {
    Value m = checkpoint(ints, v, "nothing_saveable")[0];
    return V{select(m, v[0], sin(v[0]))};  // m is all false: sin(x)
  });
  std::vector<double> x(16), ones(16, 1.0);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.1 * double(i);
  VjpRun r = run_vjp(vjp(q), {Tensor::from_f64(x, {16}, DType::f32)}, {Tensor::from_f64(ones, {16}, DType::f32)});
  std::vector<double> g = r.cotangents.at(0).to_f64();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(g[i], std::cos(x[i]), 1e-6);
}

}  // namespace
}  // namespace tandem
