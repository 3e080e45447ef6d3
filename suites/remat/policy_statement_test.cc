// The independent statement of the remat policies (policy_statement.h): each row says what JAX's definition says for a
// dot with and without batch dims, a named value and an unnamed one; on every quick remat model the engine's saved set
// is within it, and the engine faults that make a policy save everything, or a scan inside a checkpoint save its
// carries, are caught by it (as the remat suite reports).
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/ir/builder.h"
#include "engine/prims/checkpoint.h"
#include "suites/remat/policy_statement.h"
#include "suites/remat/remat_models.h"

namespace tandem::remat {
namespace {
using V = std::vector<Value>;

// Eqns: [0] dot without batch dims, [1] checkpoint_name 'a', [2] sin, [3] dot with batch dims, [4] checkpoint_name 'b'.
Program sample() {
  AType m{{2, 3, 3}, DType::f32};
  return trace({m, m}, [](Builder&, const V& v) {
    Value a = checkpoint_name(dot_general(v[0], v[1], DotDims{{2}, {1}, {}, {}}), "a");
    Value s = sin(a);
    Value b = checkpoint_name(dot_general(v[0], v[1], DotDims{{2}, {1}, {0}, {0}}), "b");
    return V{s, b};
  });
}

TEST(RematPolicyStatement, SaysWhatJaxDefinitionsSay) {
  Program p = sample();
  ASSERT_EQ(p.eqns.size(), 5u);
  const Eqn &dot = p.eqns[0], &a = p.eqns[1], &sin_ = p.eqns[2], &bdot = p.eqns[3], &b = p.eqns[4];
  EXPECT_EQ(permitted("everything_saveable", sin_), May::save);
  EXPECT_EQ(permitted("nothing_saveable", dot), May::recompute);
  EXPECT_EQ(permitted("dots_saveable", dot), May::save);
  EXPECT_EQ(permitted("dots_saveable", bdot), May::save);
  EXPECT_EQ(permitted("dots_saveable", sin_), May::recompute);
  EXPECT_EQ(permitted("dots_with_no_batch_dims_saveable", dot), May::save);
  EXPECT_EQ(permitted("dots_with_no_batch_dims_saveable", bdot), May::recompute);
  EXPECT_EQ(permitted("offload_dot_with_no_batch_dims(device,pinned_host)", dot), May::offload);
  EXPECT_EQ(permitted("offload_dot_with_no_batch_dims(device,pinned_host)", bdot), May::recompute);
  EXPECT_EQ(permitted("save_anything_except_these_names(a)", a), May::recompute);
  EXPECT_EQ(permitted("save_anything_except_these_names(a)", sin_), May::save);  // unnamed: saveable
  EXPECT_EQ(permitted("save_any_names_but_these(a)", b), May::save);
  EXPECT_EQ(permitted("save_any_names_but_these(a)", a), May::recompute);
  EXPECT_EQ(permitted("save_any_names_but_these(a)", dot), May::recompute);  // only names
  EXPECT_EQ(permitted("save_only_these_names(a)", a), May::save);
  EXPECT_EQ(permitted("save_only_these_names(a)", b), May::recompute);
  EXPECT_EQ(permitted("save_and_offload_only_these_names(a|b)", a), May::save);
  EXPECT_EQ(permitted("save_and_offload_only_these_names(a|b)", b), May::offload);
  EXPECT_EQ(permitted("save_and_offload_only_these_names(a|b)", sin_), May::recompute);
  const char* both = "save_from_both_policies(dots_saveable;save_only_these_names(a))";
  EXPECT_EQ(permitted(both, a), May::save);
  EXPECT_EQ(permitted(both, bdot), May::save);
  EXPECT_EQ(permitted(both, b), May::recompute);
  EXPECT_THROW(permitted("no_such_policy", dot), Error);
}

// The quick models whose every saved value the statement tells apart; sin_chain and
// dots_in_scan save values (sin outputs) whose kind and type also occur outside the
// checkpoints, where everything is saveable, so only EngineSavedSetsAreWithinIt runs them.
std::vector<Model> quick_models() {
  return {Model{"mlp", 4, 4, 8, 4, {"pre", "act"}}, Model{"attention", 1, 2, 8, 4, {"scores", "probs"}},
          Model{"scan_mlp", 4, 4, 8, 4, {"pre", "act"}}, Model{"lstm", 1, 3, 4, 4, {"", ""}}};
}

// Saved sets within the statement, and nothing recomputed that the statement lets be saved.
TEST(RematPolicyStatement, EngineSavedSetsAreWithinIt) {
  std::vector<Model> all = quick_models();
  all.push_back(Model{"sin_chain", 16, 1, 8, 1, {"", ""}});
  all.push_back(Model{"dots_in_scan", 2, 1, 5, 1, {"", ""}});
  all.push_back(Model{"mlp", 8, 512, 512, 1, {"pre", "act"}});  // the nightly models: programs only
  all.push_back(Model{"lstm", 1, 16, 512, 25, {"", ""}});
  for (const Model& m : all)
    for (const std::string& pol : policies_for(m)) {
      Program p = m.build(DType::f32, pol);
      VjpProgram v = vjp(p);
      for (const Unpermitted& u : unpermitted_residuals(p, v))
        ADD_FAILURE() << m.label() << " " << pol << ": " << u.residual << " by " << u.producer;
      for (const std::string& prim : recomputed_but_saveable(p, v))
        ADD_FAILURE() << m.label() << " " << pol << ": recomputes " << prim;
    }
}

TEST(RematPolicyStatement, CatchesAPolicyThatSavesEverything) {
  inject_fault("remat_policy_saves_everything");
  int caught = 0, cases = 0;
  for (const Model& m : quick_models())
    for (const std::string& pol : policies_for(m)) {
      if (pol == "everything_saveable") continue;
      Program p = m.build(DType::f32, pol);
      ++cases;
      caught += !unpermitted_residuals(p, vjp(p)).empty();
    }
  inject_fault("");
  // save_anything_except_these_names(scores): the excluded name's buffer is also the output
  // of an unnamed mul, which the policy permits saving, so saving it is within the policy.
  EXPECT_GE(caught, cases - 1) << caught << " of " << cases;
  Program p = Model{"mlp", 4, 4, 8, 4, {"pre", "act"}}.build(DType::f32, "nothing_saveable");
  inject_fault("remat_policy_saves_everything");
  std::vector<Unpermitted> u = unpermitted_residuals(p, vjp(p));
  inject_fault("");
  ASSERT_FALSE(u.empty());
  EXPECT_EQ(u[0].policy, "nothing_saveable");
  EXPECT_GT(u[0].bytes, 0);
}

// A scan inside a checkpoint saves no carry (JAX re-runs the forward scan in the backward):
// the LSTM Program checkpointed whole, its carries stacked by the fault that mimics tandem's
// own engine before the replay, is outside the statement under every policy.
TEST(RematPolicyStatement, CatchesStackedCarriesOfAScanInsideACheckpoint) {
  Model lstm{"lstm", 1, 3, 4, 4, {"", ""}};
  for (const std::string& pol : policies_for(lstm)) {
    Program p = lstm.build(DType::f32, pol);
    EXPECT_TRUE(unpermitted_residuals(p, vjp(p)).empty()) << pol;
    inject_fault("remat_scan_carries_stacked");
    std::vector<Unpermitted> u = unpermitted_residuals(p, vjp(p));
    inject_fault("");
    ASSERT_EQ(u.size(), 2u) << pol;  // h and c, [T, B, H]
    EXPECT_NE(u[0].residual.find("the carry entering each step, stacked over 4 scan steps"), std::string::npos);
    EXPECT_EQ(u[0].bytes, 4 * 3 * 4 * 4);
  }
}

}  // namespace
}  // namespace tandem::remat
