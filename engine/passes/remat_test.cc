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

TEST(Remat, RecursiveCheckpointOfSinChain) {
  std::vector<int64_t> sins, residuals;
  for (int n : {4, 8, 16, 32}) {
    Program p = trace({kVec}, [&](Builder&, auto& v) { return V{recursive(n)(v[0])}; });
    VjpProgram g = vjp(p);
    sins.push_back(count(g.backward, "sin"));
    residuals.push_back(saved_residuals(g).count_non_arguments());
  }
  std::printf("recursive sin chain n=4,8,16,32: backward sin eqns %lld %lld %lld %lld; "
              "non-argument residuals %lld %lld %lld %lld\n",
              (long long)sins[0], (long long)sins[1], (long long)sins[2], (long long)sins[3],
              (long long)residuals[0], (long long)residuals[1], (long long)residuals[2], (long long)residuals[3]);
  // The backward recomputes only what it reads: a checkpoint's last sin (its output is saved
  // by the enclosing level) is not re-run. JAX's transpose re-runs it, which is where its
  // 2, 8, 24 for n = 4, 8, 16 come from; ours: B(n) = B(n/2) + (n/2 - 1) + B(n/2).
  EXPECT_EQ(sins, (std::vector<int64_t>{1, 5, 17, 49}));
  // O(log n) residuals: a constant number more per doubling.
  for (size_t i = 2; i < residuals.size(); ++i)
    EXPECT_EQ(residuals[i] - residuals[i - 1], residuals[1] - residuals[0]);
  EXPECT_LE(residuals.back(), 3 * 5);
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
