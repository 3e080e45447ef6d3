// The remat suite's scan model under every policy: what each policy implies for the residuals
// (count, [L, ...] stacked shapes, offload pool), derived by hand from the layer below; and
// the attention block's saved buffers (names seen through, div read from its inputs).
#include <gtest/gtest.h>

#include <map>

#include "engine/passes/saved_residuals.h"
#include "suites/remat/remat_models.h"

namespace tandem {
namespace {

// scan over L layers of checkpoint(policy)(pre = name(h·W, 'pre'); act = name(pre·σ(1.702·pre), 'act')).
// The backward of a layer reads h (the carry entering the step), W (the xs row), pre and
// s = σ(1.702·pre) (mul reads both operands, logistic its output). Per policy, what is saved
// per step besides the weights (an argument): the carry always (a body input, stacked), pre
// when the policy saves the dot or the name 'pre' (one buffer either way), s when anything
// unnamed is saveable. Outside the scan, the loss ½Σh² reads the final carry [B, D], saved.
struct Expect {
  int saved, offloaded;
};
const std::map<std::string, Expect> kScanMlp = {
    {"everything_saveable", {3, 0}},
    {"nothing_saveable", {1, 0}},
    {"dots_saveable", {2, 0}},
    {"dots_with_no_batch_dims_saveable", {2, 0}},
    {"offload_dot_with_no_batch_dims(device,pinned_host)", {2, 1}},
    {"save_only_these_names(act)", {1, 0}},                 // act is only the next carry
    {"save_any_names_but_these(pre)", {1, 0}},
    {"save_anything_except_these_names(pre)", {3, 0}},     // pre's buffer saved unnamed
    {"save_and_offload_only_these_names(act|pre)", {2, 1}},
    {"save_from_both_policies(dots_saveable;save_only_these_names(act))", {2, 0}},
};

TEST(RematScanModels, ScanMlpResidualsFollowThePolicy) {
  remat::Model m{"scan_mlp", 4, 4, 8, 4, {"pre", "act"}};
  std::vector<std::string> pols = remat::policies_for(m);
  ASSERT_EQ(pols.size(), kScanMlp.size());
  for (const std::string& pol : pols) {
    SavedResiduals s = saved_residuals(m.build(DType::f32, pol));
    const Expect& want = kScanMlp.at(pol);
    int saved = 0, offloaded = 0;
    int final_carry = 0;
    for (const Residual& r : s.residuals) {
      if (r.is_argument) continue;
      if (r.source == "output of scan") {
        EXPECT_EQ(r.type.shape, (Shape{4, 8})) << pol;
        ++final_carry;
        continue;
      }
      ++saved;
      offloaded += r.offloaded;
      EXPECT_EQ(r.type.shape, (Shape{4, 4, 8})) << pol << ": " << r.source;  // [L, B, D]
      EXPECT_NE(r.source.find("stacked over 4 scan steps"), std::string::npos) << pol << ": " << r.source;
    }
    EXPECT_EQ(final_carry, 1) << pol << "\n" << format_saved_residuals(s);
    EXPECT_EQ(saved, want.saved) << pol << "\n" << format_saved_residuals(s);
    EXPECT_EQ(offloaded, want.offloaded) << pol << "\n" << format_saved_residuals(s);
    EXPECT_EQ(s.offloaded_bytes, int64_t(want.offloaded) * 4 * 4 * 8 * 4) << pol;
  }
}

// Attention: probs = name(e / Σe, 'probs'). Every residual is its own buffer, and with
// save_only_these_names(probs) the backward reads the saved probs and never re-runs the div
// (its rule reads x and y; the quotient's name is seen through).
TEST(RematScanModels, AttentionCountsBuffersAndSeesThroughNames) {
  remat::Model m{"attention", 1, 2, 8, 4, {"scores", "probs"}};
  VjpProgram every = vjp(m.build(DType::f32, "everything_saveable"));
  std::map<int64_t, int> ids;
  for (size_t i = every.num_outputs; i < every.forward.out_vars.size(); ++i)
    EXPECT_EQ(ids[every.forward.out_vars[i].var->id]++, 0) << "a buffer saved twice";
  SavedResiduals s = saved_residuals(every);
  EXPECT_EQ(s.count_non_arguments(), 8) << format_saved_residuals(s);
  SavedResiduals probs = saved_residuals(m.build(DType::f32, "save_only_these_names(probs)"));
  EXPECT_EQ(probs.recompute.by_prim.count("div"), 0u) << format_saved_residuals(probs);
}

}  // namespace
}  // namespace tandem
