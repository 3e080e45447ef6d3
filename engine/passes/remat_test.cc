// Remat: JAX's own expectations for the policies (name policies, dots_saveable), recursive
// checkpointing of a sin chain, offloading, saved_residuals' printer, and bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "engine/core/error.h"
#include "engine/passes/saved_residuals.h"
#include "engine/prims/checkpoint.h"

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
  // Unnamed values stay saveable: w is rebuilt by re-applying its name to the saved sin.
  SavedResiduals s = saved_residuals(named_chain("save_anything_except_these_names(w)"));
  EXPECT_EQ(s.count_non_arguments(), 3);
  EXPECT_EQ(s.recompute.by_prim["checkpoint_name"], 1);
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

// The jax.checkpoint docstring's recursive_checkpoint over n sins.
std::function<Value(Value)> recursive(int n) {
  if (n == 1) return [](Value x) { return sin(x); };
  if (n == 2) return [](Value x) { return sin(sin(x)); };
  auto f1 = recursive(n / 2), f2 = recursive(n - n / 2);
  return [f1, f2](Value x) {
    Program body = trace({kVec}, [&](Builder&, auto& v) { return V{f2(v[0])}; });
    return f1(checkpoint(body, {x}, "nothing_saveable")[0]);
  };
}

struct ChainCounts {
  std::vector<int64_t> sins, residuals;
};
ChainCounts sin_chain_counts(const VjpOptions& opt) {
  ChainCounts c;
  for (int n : {4, 8, 16, 32}) {
    Program p = trace({kVec}, [&](Builder&, auto& v) { return V{recursive(n)(v[0])}; });
    VjpProgram g = vjp(p, {}, everything_saveable(), opt);
    c.sins.push_back(count(g.backward, "sin"));
    c.residuals.push_back(saved_residuals(g).count_non_arguments());
  }
  std::printf("recursive sin chain (%s) n=4,8,16,32: backward sin eqns %lld %lld %lld %lld; "
              "non-argument residuals %lld %lld %lld %lld\n",
              opt.rerun_whole_checkpoint_body ? "whole-body re-run" : "default",
              (long long)c.sins[0], (long long)c.sins[1], (long long)c.sins[2], (long long)c.sins[3],
              (long long)c.residuals[0], (long long)c.residuals[1], (long long)c.residuals[2],
              (long long)c.residuals[3]);
  return c;
}
// O(log n) residuals: a constant number more per doubling, whichever way bodies are re-run.
void expect_log_residuals(const ChainCounts& c) {
  for (size_t i = 2; i < c.residuals.size(); ++i)
    EXPECT_EQ(c.residuals[i] - c.residuals[i - 1], c.residuals[1] - c.residuals[0]);
  EXPECT_LE(c.residuals.back(), 3 * 5);
}

// jax's test_remat_basic: linearizing checkpoint(sin ∘ sin) evaluates sin once and cos
// twice in the backward. The second sin's output only feeds the primal output, so JAX's
// remat_partial_eval DCEs it from the staged (recomputed) body; so do we by default.
TEST(Remat, CheckpointedSinSinRecomputesOneSin) {
  Program body = trace({kVec}, [](Builder&, auto& v) { return V{sin(sin(v[0]))}; });
  Program p = trace({kVec}, [&](Builder&, auto& v) { return checkpoint(body, v, "nothing_saveable"); });
  VjpProgram g = vjp(p);
  EXPECT_EQ(count(g.backward, "sin"), 1);
  EXPECT_EQ(count(g.backward, "cos"), 2);
  EXPECT_EQ(saved_residuals(g).count_non_arguments(), 0);
  VjpOptions whole;
  whole.rerun_whole_checkpoint_body = true;
  VjpProgram w = vjp(p, {}, everything_saveable(), whole);
  EXPECT_EQ(count(w.backward, "sin"), 2);
  EXPECT_EQ(count(w.backward, "cos"), 2);
}

// Default (JAX's behaviour, see above): each checkpointed body of n/2 sins re-runs n/2 - 1
// of them (its last is dead in the backward), so B(n) = 2·B(n/2) + n/2 - 1 with B(2) = 0:
// 1, 5, 17, 49. This matches the backward jaxpr JAX's own docs print for n = 8
// (print_fwd_bwd(recursive_checkpoint([jnp.sin] * 8)) shows 5 sin eqns).
TEST(Remat, RecursiveCheckpointOfSinChain) {
  ChainCounts c = sin_chain_counts(VjpOptions{});
  EXPECT_EQ(c.sins, (std::vector<int64_t>{1, 5, 17, 49}));
  expect_log_residuals(c);
}

// The expectation, 2, 8 and 24 sins for n = 4, 8, 16: every checkpointed body's
// whole primal forward re-run in the backward, B(n) = 2·B(n/2) + n/2 (VjpOptions opt-in).
TEST(Remat, RecursiveCheckpointWholeBodyRerun) {
  VjpOptions whole;
  whole.rerun_whole_checkpoint_body = true;
  ChainCounts c = sin_chain_counts(whole);
  EXPECT_EQ(c.sins, (std::vector<int64_t>{2, 8, 24, 64}));
  expect_log_residuals(c);
  EXPECT_EQ(c.residuals, sin_chain_counts(VjpOptions{}).residuals);  // re-running saves nothing more
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
  Program ints = trace({kVec}, [](Builder&, auto& v) { return V{compare(v[0], v[0], "lt")}; });
  Program q = trace({kVec}, [&](Builder&, auto& v) {
    Value m = checkpoint(ints, v, "nothing_saveable")[0];
    return V{select(m, v[0], sin(v[0]))};
  });
  try {
    vjp(q);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not differentiable"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tandem
