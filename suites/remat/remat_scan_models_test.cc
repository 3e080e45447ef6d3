// The remat suite's scan model under every policy: what each policy implies for the residuals
// (count, [L, ...] stacked shapes, offload pool), derived by hand from the layer below; the
// scans checkpointed whole (the LSTM Program, the same layers' scan), whose saved sets are
// JAX's; and the attention block's saved buffers (names seen through, div read from its inputs).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "engine/passes/saved_residuals.h"
#include "suites/remat/remat_models.h"

namespace tandem {
namespace {

// scan over L layers of checkpoint(policy)(pre = name(h·W, 'pre'); act = name(pre·σ(1.702·pre), 'act')). The backward
// of a layer reads h (the carry entering the step), W (the xs row), pre and s = σ(1.702·pre) (mul reads both operands,
// logistic its output). Per policy, what is saved per step besides the weights (an argument): the carry always (a body
// input, stacked), pre when the policy saves the dot or the name 'pre' (one buffer either way), s when anything unnamed
// is saveable. Outside the scan, the loss ½Σh² reads the final carry [B, D], saved.
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

// A scan checkpointed whole saves what JAX 0.10's jax.ad_checkpoint.saved_residuals lists for the same program
// (tools/oracles/saved_residuals_vs_jax.py on the dumped cases; JAX's scalar literals left out, the closed-over
// seq_lengths counted as the argument it is): the inputs, what the policy saves stacked over the steps, and what the
// loss outside reads; never the carry entering each step, which the backward rebuilds by re-running the forward scan.
// LSTM (B 3, T 4, H 4): x f32[3,4,4], h0 and c0 f32[1,3,4], the weights f32[160], seq_lengths i32[3]; outside the
// checkpoint the loss reads y f32[3,4,4] and h_n, c_n f32[1,3,4]; dots_saveable adds x·W_ih and the per-step h·W_hh,
// both [T, B, 4H].
const std::set<std::string> kLstmInputs = {"f32[3,4,4] a", "f32[1,3,4] h0", "f32[1,3,4] c0", "f32[160]", "i32[3]",
                                           "f32[3,4,4] y", "f32[1,3,4] h_n", "f32[1,3,4] c_n"};
std::multiset<std::string> types(const SavedResiduals& s) {
  std::multiset<std::string> t;
  for (const Residual& r : s.residuals) t.insert(r.offloaded ? "host " + r.type.str() : r.type.str());
  return t;
}
std::multiset<std::string> lstm_with(std::vector<std::string> more) {
  std::multiset<std::string> t(more.begin(), more.end());
  for (const std::string& k : kLstmInputs) t.insert(k.substr(0, k.find(' ')));
  return t;
}

TEST(RematScanModels, CheckpointedScansSaveWhatJaxSaves) {
  const std::map<std::string, std::multiset<std::string>> lstm = {
      {"nothing_saveable", lstm_with({})},
      {"dots_saveable", lstm_with({"f32[4,3,16]", "f32[4,3,16]"})},
      {"dots_with_no_batch_dims_saveable", lstm_with({"f32[4,3,16]", "f32[4,3,16]"})},
      {"offload_dot_with_no_batch_dims(device,pinned_host)", lstm_with({"host f32[4,3,16]", "host f32[4,3,16]"})},
  };
  remat::Model m{"lstm", 1, 3, 4, 4, {"", ""}};
  for (auto& [pol, want] : lstm) {
    SavedResiduals s = saved_residuals(m.build(DType::f32, pol));
    EXPECT_EQ(types(s), want) << pol << "\n" << format_saved_residuals(s);
  }
  // scan over 4 MLP layers checkpointed whole: h f32[4,8] and the weights f32[4,8,8] (the
  // arguments), the final carry f32[4,8] (the loss reads it), and stacked [4, 4, 8] what the
  // policy saves: pre (a dot, or named 'pre'), act (the name on the carry out).
  const std::multiset<std::string> args = {"f32[4,8]", "f32[4,8,8]", "f32[4,8]"};
  auto with = [&](std::vector<std::string> more) {
    std::multiset<std::string> t = args;
    t.insert(more.begin(), more.end());
    return t;
  };
  const std::map<std::string, std::multiset<std::string>> layers = {
      {"nothing_saveable", with({})},
      {"dots_saveable", with({"f32[4,4,8]"})},
      {"offload_dot_with_no_batch_dims(device,pinned_host)", with({"host f32[4,4,8]"})},
      {"save_only_these_names(act)", with({"f32[4,4,8]"})},
      {"save_and_offload_only_these_names(act|pre)", with({"f32[4,4,8]", "host f32[4,4,8]"})},
      {"save_from_both_policies(dots_saveable;save_only_these_names(act))", with({"f32[4,4,8]", "f32[4,4,8]"})},
  };
  remat::Model sc{"scan_in_checkpoint", 4, 4, 8, 4, {"pre", "act"}};
  for (auto& [pol, want] : layers) {
    SavedResiduals s = saved_residuals(sc.build(DType::f32, pol));
    EXPECT_EQ(types(s), want) << pol << "\n" << format_saved_residuals(s);
  }
  for (const remat::Model& x : {m, sc})
    for (const std::string& pol : remat::policies_for(x)) {
      std::string text = format_saved_residuals(saved_residuals(x.build(DType::f32, pol)));
      EXPECT_EQ(text.find("the carry entering each step"), std::string::npos) << x.label() << " " << pol << "\n" << text;
    }
}

// The scans checkpointed whole recompute, per primitive, what JAX's pullback recomputes (its applications beyond
// everything_saveable's): the counts below were printed by JAX 0.10.2, `tools/oracles/recompute_vs_jax.py DUMPDIR
// --print` over `tandem dump-programs --profile quick --filter '^remat/' DUMPDIR`; ctest recompute_vs_jax recomputes
// them with JAX where it is installed. Before the replay stacked its values, tandem ran twice these (lstm under
// nothing_saveable: logistic 24, tanh 16, dot_general 9).
TEST(RematScanModels, CheckpointedScansRecomputeWhatJaxRecomputes) {
  using Counts = std::map<std::string, int64_t>;
  const std::vector<std::tuple<remat::Model, std::string, Counts>> jax = {
      {remat::Model{"lstm", 1, 3, 4, 4, {"", ""}}, "nothing_saveable", {{"dot_general", 5}, {"logistic", 12}, {"tanh", 8}}},
      {remat::Model{"lstm", 1, 3, 4, 4, {"", ""}}, "dots_saveable", {{"logistic", 12}, {"tanh", 8}}},
      {remat::Model{"scan_in_checkpoint", 4, 4, 8, 4, {"pre", "act"}}, "nothing_saveable", {{"dot_general", 4}, {"logistic", 4}}},
      {remat::Model{"scan_in_checkpoint", 4, 4, 8, 4, {"pre", "act"}}, "dots_saveable", {{"logistic", 4}}},
      {remat::Model{"rnn_wt", 1, 3, 4, 4, {"", ""}}, "nothing_saveable", {{"dot_general", 8}, {"tanh", 4}}},
  };
  for (const auto& [m, pol, want] : jax) {
    VjpProgram v = vjp(m.build(DType::f32, pol));
    Counts got;
    for (const char* p : {"dot_general", "logistic", "tanh"})
      if (auto it = v.recompute.by_prim.find(p); it != v.recompute.by_prim.end() && it->second) got[p] = it->second;
    EXPECT_EQ(got, want) << m.label() << " " << pol;
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
