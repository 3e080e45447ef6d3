// Remat inside scan: JAX's test_remat_checkpoint_dots_inside_scan (2 sin, 3 cos and 6 dot_general in the backward),
// stacked residual shapes, and the recompute counts against what the executor really runs in the backward, for nested
// scans and checkpoint inside scan inside checkpoint under every policy; a scan inside a checkpoint saves what JAX's
// saved_residuals lists (its carries replayed, not stacked).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/passes/remat_scan_test_util.h"
#include "engine/passes/saved_residuals.h"
#include "engine/prims/checkpoint.h"

namespace tandem {
namespace {
using namespace remat_scan_test;

// jax tests/api_test.py test_remat_checkpoint_dots_inside_scan: W (5×5, differentiated), x = ones(5) a constant carry;
// a scan of length 2 whose body is checkpoint(dots_saveable) of three sin(dot(x, W, HIGHEST)) layers. JAX's backward
// holds 2 sin ("we can save the scan carry, which effectively saves one sine"), 3 cos and 6 dot_general.
Program jax_dots_inside_scan(const std::string& policy) {
  AType w{{5, 5}, DType::f32}, x{{5}, DType::f32};
  Program layers = trace({w, x}, [](Builder&, const V& v) {
    Value h = v[1];
    for (int i = 0; i < 3; ++i) h = sin(dot(h, v[0], "HIGHEST"));
    return V{h};
  });
  Program body = trace({w, x}, [&](Builder&, const V& v) { return checkpoint(layers, v, policy); });
  return trace({w, x}, [&](Builder&, const V& v) { return scan(body, {v[0]}, {v[1]}, {}, 2); });
}

TEST(RematScan, JaxCheckpointDotsInsideScan) {
  VjpProgram g = vjp(jax_dots_inside_scan("dots_saveable"), {true, false});
  EXPECT_EQ(static_count(g.backward, "sin"), 2);
  EXPECT_EQ(static_count(g.backward, "cos"), 3);
  EXPECT_EQ(static_count(g.backward, "dot_general"), 6);
  // Residuals: W, and per step the carry and the three dots, stacked [2, 5].
  SavedResiduals s = saved_residuals(g);
  ASSERT_EQ(s.residuals.size(), 5u) << format_saved_residuals(s);
  int stacked = 0;
  for (const Residual& r : s.residuals)
    if (!r.is_argument) {
      EXPECT_EQ(r.type.shape, (Shape{2, 5})) << r.source;
      ++stacked;
    }
  EXPECT_EQ(stacked, 4) << format_saved_residuals(s);
  EXPECT_NE(format_saved_residuals(s).find("the carry entering each step, stacked over 2 scan steps"),
            std::string::npos) << format_saved_residuals(s);
  // Executed: the body's backward runs twice.
  std::vector<Tensor> in = ramp_inputs({{{5, 5}, DType::f32}, {{5}, DType::f32}});
  Counts run = executed_backward_applications(g, in, ramp_cts(g));
  EXPECT_EQ(run["sin"], 4);
  EXPECT_EQ(run["cos"], 6);
  EXPECT_EQ(run["dot_general"], 12);
  EXPECT_EQ(g.recompute.by_prim["sin"], 4);
  EXPECT_EQ(g.recompute.eqns, 4);
  // nothing_saveable: the dots are recomputed too (3 per step), the carry still saved.
  VjpProgram n = vjp(jax_dots_inside_scan("nothing_saveable"), {true, false});
  EXPECT_EQ(static_count(n.backward, "dot_general"), 9);
  EXPECT_EQ(n.recompute.by_prim["dot_general"], 6);
  EXPECT_EQ(saved_residuals(n).count_non_arguments(), 1);
}

const AType kH{{3, 4}, DType::f32}, kW{{4, 4}, DType::f32};

// A scan over layers (xs: weights [L, 4, 4]) whose step is checkpointed under `policy`.
Program checkpointed_layers(const std::string& policy, int64_t L) {
  Program layer = trace({kH, kW}, [](Builder&, const V& v) {
    Value pre = checkpoint_name(dot(v[0], v[1]), "pre");
    return V{checkpoint_name(tanh(pre) * sin(pre), "act")};
  });
  return trace({kH, kW}, [&](Builder&, const V& v) { return checkpoint(layer, v, policy); });
}

const char* kPolicies[] = {"everything_saveable", "nothing_saveable", "dots_saveable",
                           "dots_with_no_batch_dims_saveable", "save_only_these_names(act)",
                           "save_any_names_but_these(pre)", "save_anything_except_these_names(pre)",
                           "save_and_offload_only_these_names(act|pre)",
                           "offload_dot_with_no_batch_dims(device,pinned_host)"};

TEST(RematScan, CheckpointInsideScanCountsAreExecuted) {
  for (const char* pol : kPolicies)
    expect_honest_counts([](const std::string& p) {
      Program step = checkpointed_layers(p, 5);
      return trace({kH, {{5, 4, 4}, DType::f32}}, [&](Builder&, const V& v) {
        return V{reduce_sum(scan(step, {}, {v[0]}, {v[1]}, 5)[0], {0, 1})};
      });
    }, pol);
}

// checkpoint(policy) around a scan of scans (3 outer × 2 inner steps) whose inner step is
// itself checkpointed: the stacked residuals of the inner scan are stacked again.
Program nested(const std::string& policy) {
  Program step = checkpointed_layers(policy, 2);
  AType ws{{2, 4, 4}, DType::f32}, wss{{3, 2, 4, 4}, DType::f32};
  Program inner = trace({kH, ws}, [&](Builder&, const V& v) {
    V o = scan(step, {}, {v[0]}, {v[1]}, 2);
    return V{o[0], reduce_sum(o[0], {1})};
  });
  Program outer = trace({kH, wss}, [&](Builder&, const V& v) { return scan(inner, {}, {v[0]}, {v[1]}, 3); });
  return trace({kH, wss}, [&](Builder&, const V& v) {
    V o = checkpoint(outer, v, policy);
    return V{reduce_sum(o[0], {0, 1}) + reduce_sum(o[1], {0, 1})};
  });
}

TEST(RematScan, NestedScansInsideCheckpointCountsAreExecuted) {
  for (const char* pol : kPolicies) expect_honest_counts(nested, pol);
  // everything_saveable stacks the inner scan's stacked residuals once more: [3, 2, ...].
  SavedResiduals s = saved_residuals(nested("everything_saveable"));
  bool twice = false;
  for (const Residual& r : s.residuals) twice |= r.type.shape.size() == 4 && r.type.shape[0] == 3 && r.type.shape[1] == 2;
  EXPECT_TRUE(twice) << format_saved_residuals(s);
}

// A top-level scan under a top-level policy: the scan body itself is split by it, and, as in
// jax.checkpoint(f, policy), the carries are replayed, not stacked.
TEST(RematScan, TopLevelPolicyReachesTheScanBody) {
  Program body = trace({kH, kW}, [](Builder&, const V& v) { return V{sin(dot(v[0], v[1]))}; });
  Program p = trace({kH, {{4, 4, 4}, DType::f32}}, [&](Builder&, const V& v) {
    return V{reduce_sum(scan(body, {}, {v[0]}, {v[1]}, 4)[0], {0, 1})};
  });
  VjpProgram every = vjp(p), dots = vjp(p, {}, dots_saveable()), none = vjp(p, {}, nothing_saveable());
  EXPECT_EQ(every.recompute.eqns, 0);
  EXPECT_EQ(dots.recompute.by_prim["sin"], 4);  // the replay: each carry is sin of a saved dot
  EXPECT_EQ(dots.recompute.by_prim["dot_general"], 0);
  // The replay's 4, stacked for the backward scan, which re-runs none: JAX's 4 (the pullback's
  // applications beyond everything_saveable's, tools/oracles/recompute_vs_jax.py's measure).
  EXPECT_EQ(none.recompute.by_prim["dot_general"], 4);
  // Stacked dots [4, 3, 4] under dots_saveable; nothing but the arguments under nothing_saveable.
  EXPECT_EQ(saved_residuals(dots).count_non_arguments(), 1);
  EXPECT_EQ(saved_residuals(none).count_non_arguments(), 0);
  // The counts are what the backward runs beyond everything_saveable's, the replay scan too.
  std::vector<Tensor> in = ramp_inputs(p.in_types());
  for (const VjpProgram* v : {&dots, &none}) {
    Counts reported;
    for (auto& [k, n] : v->recompute.by_prim)
      if (n) reported[k] = n;
    EXPECT_EQ(executed_recompute(*v, every, in, ramp_cts(*v)), reported);
    EXPECT_EQ(reported["scan"], 1);
  }
}

// checkpoint(policy) around scan(step, c0, Ws) with step(c, W) = (a, tanh(a)), a =
// checkpoint_name(sin(c·W), 'a'); loss Σc_L + Σys. L = 4 steps, c f32[3], W f32[3,3].
Program checkpointed_scan(const std::string& policy) {
  AType c{{3}, DType::f32}, w{{3, 3}, DType::f32}, ws{{4, 3, 3}, DType::f32};
  Program step = trace({c, w}, [](Builder&, const V& v) {
    Value a = checkpoint_name(sin(dot(v[0], v[1])), "a");
    return V{a, tanh(a)};
  });
  Program whole = trace({c, ws}, [&](Builder&, const V& v) { return scan(step, {}, {v[0]}, {v[1]}, 4); });
  return trace({c, ws}, [&](Builder&, const V& v) {
    V o = checkpoint(whole, v, policy);
    return V{reduce_sum(o[0], {0}) + reduce_sum(o[1], {0, 1})};
  });
}

// What jax.ad_checkpoint.print_saved_residuals lists for the same function in JAX 0.10 (jax.checkpoint(lambda c0, Ws:
// lax.scan(step, c0, Ws), policy=...)): the two arguments and only what the policy saves, stacked over the 4 steps;
// never the carries, which the backward rebuilds by running the forward scan again.
TEST(RematScan, CheckpointAroundScanSavesWhatJaxSaves) {
  const std::map<std::string, std::vector<std::string>> jax = {
      {"nothing_saveable", {"f32[3]", "f32[4,3,3]"}},
      {"dots_saveable", {"f32[3]", "f32[4,3,3]", "f32[4,3]"}},
      {"save_only_these_names(a)", {"f32[3]", "f32[4,3,3]", "f32[4,3]"}},
      {"offload_dot_with_no_batch_dims(device,pinned_host)", {"f32[3]", "f32[4,3,3]", "f32<host>[4,3]"}},
  };
  std::vector<Tensor> in = ramp_inputs(checkpointed_scan("nothing_saveable").in_types());
  VjpProgram every = vjp(checkpointed_scan("everything_saveable"));
  VjpRun base = run_vjp(every, in, ramp_cts(every));
  for (auto& [policy, want] : jax) {
    VjpProgram v = vjp(checkpointed_scan(policy));
    SavedResiduals s = saved_residuals(v);
    std::multiset<std::string> got, expected(want.begin(), want.end());
    for (const Residual& r : s.residuals) {
      std::string t = r.type.str();
      got.insert(r.offloaded ? t.insert(3, "<host>") : t);
    }
    EXPECT_EQ(got, expected) << policy << "\n" << format_saved_residuals(s);
    VjpRun run = run_vjp(v, in, ramp_cts(v));  // the same gradients, bit for bit
    for (size_t i = 0; i < run.cotangents.size(); ++i)
      EXPECT_EQ(run.cotangents[i].to_f64(), base.cotangents[i].to_f64()) << policy << " cotangent " << i;
  }
  // everything_saveable: no carry either; the carry's path (a) is saved, nothing recomputed.
  SavedResiduals e = saved_residuals(every);
  EXPECT_EQ(format_saved_residuals(e).find("carry entering"), std::string::npos) << format_saved_residuals(e);
  EXPECT_EQ(every.recompute.eqns, 0);
  for (const char* pol : {"nothing_saveable", "dots_saveable", "save_only_these_names(a)"})
    expect_honest_counts(checkpointed_scan, pol);
}

// When the backward reads no carry (c' = c + sin(x): the add is linear), there is nothing to
// rebuild: no replay scan, and c0 is not saved. JAX saves only xs f32[4,3] (under
// everything_saveable its cos(x), of the same type; tandem's sin rule reads x).
TEST(RematScan, CheckpointAroundScanReplaysOnlyWhenACarryIsRead) {
  AType c{{3}, DType::f32}, xs{{4, 3}, DType::f32};
  Program step = trace({c, {{3}, DType::f32}}, [](Builder&, const V& v) { return V{v[0] + sin(v[1]), v[0] * 2.0}; });
  Program whole = trace({c, xs}, [&](Builder&, const V& v) { return scan(step, {}, {v[0]}, {v[1]}, 4); });
  for (const char* pol : {"nothing_saveable", "everything_saveable"}) {
    Program p = trace({c, xs}, [&](Builder&, const V& v) { return V{reduce_sum(checkpoint(whole, v, pol)[0], {0})}; });
    VjpProgram g = vjp(p);
    SavedResiduals s = saved_residuals(g);
    ASSERT_EQ(s.residuals.size(), 1u) << pol << "\n" << format_saved_residuals(s);
    EXPECT_EQ(s.residuals[0].type.str(), "f32[4,3]") << pol;
    EXPECT_EQ(static_count(g.backward, "scan"), 1) << pol;  // the backward scan alone
  }
}

// checkpoint(policy) around an RNN over a scan and a loss that reads its ys (the shape of the
// JAX LSTM-over-scan example): h' = tanh(x·U + h·W), y = h'·V, loss Σ y². The loss's
// backward reads the ys, which the policy does not save: JAX's staged scan rebuilds them
// from the stacked dots and never re-runs a dot; the whole forward scan is not run again.
Program rnn_loss(const std::string& policy) {
  AType u{{5, 4}, DType::f32}, w{{4, 4}, DType::f32}, v{{4, 2}, DType::f32}, h{{3, 4}, DType::f32};
  AType x{{3, 5}, DType::f32}, xs{{6, 3, 5}, DType::f32};
  Program step = trace({u, w, v, h, x}, [](Builder&, const V& a) {
    Value hn = tanh(dot(a[4], a[0]) + dot(a[3], a[1]));
    return V{hn, dot(hn, a[2])};
  });
  Program loss = trace({u, w, v, h, xs}, [&](Builder&, const V& a) {
    Value y = scan(step, {a[0], a[1], a[2]}, {a[3]}, {a[4]}, 6)[1];
    return V{reduce_sum(y * y, {0, 1, 2})};
  });
  return trace({u, w, v, h, xs}, [&](Builder&, const V& a) { return checkpoint(loss, a, policy); });
}

std::multiset<std::string> saved_types(const VjpProgram& v) {
  std::multiset<std::string> got;
  for (const Residual& r : saved_residuals(v).residuals) got.insert(r.type.str());
  return got;
}

// jax._src.ad_checkpoint.saved_residuals(jax.checkpoint(loss, policy=...)) in JAX 0.10.2.
TEST(RematScan, CheckpointedScanRebuildsItsYsFromTheStackedDots) {
  const std::multiset<std::string> args = {"f32[5,4]", "f32[4,4]", "f32[4,2]", "f32[3,4]", "f32[6,3,5]"};
  std::multiset<std::string> dots = args;
  dots.insert({"f32[6,3,4]", "f32[6,3,4]", "f32[6,3,2]"});
  for (const char* pol : {"dots_saveable", "dots_with_no_batch_dims_saveable"}) {
    VjpProgram g = vjp(rnn_loss(pol));
    EXPECT_EQ(saved_types(g), dots) << pol << "\n" << format_saved_residuals(saved_residuals(g));
    EXPECT_EQ(g.recompute.by_prim["dot_general"], 0) << pol;
    // The same under the top-level policy, which puts the whole program under remat.
    Program bare = *rnn_loss(pol).eqns.at(0).params.get_program("body");
    VjpProgram t = vjp(bare, {}, policy_from_string(pol));
    EXPECT_EQ(saved_types(t), dots) << pol << " at the top level\n" << format_saved_residuals(saved_residuals(t));
    EXPECT_EQ(t.recompute.by_prim["dot_general"], 0) << pol;
  }
  EXPECT_EQ(saved_types(vjp(rnn_loss("nothing_saveable"))), args);
  // Same gradients as everything_saveable, and counts that match what the backward runs.
  std::vector<Tensor> in = ramp_inputs(rnn_loss("nothing_saveable").in_types());
  VjpProgram every = vjp(rnn_loss("everything_saveable"));
  VjpRun base = run_vjp(every, in, ramp_cts(every));
  for (const char* pol : {"nothing_saveable", "dots_saveable"}) {
    VjpProgram v = vjp(rnn_loss(pol));
    VjpRun run = run_vjp(v, in, ramp_cts(v));
    for (size_t i = 0; i < run.cotangents.size(); ++i)
      EXPECT_EQ(run.cotangents[i].to_f64(), base.cotangents[i].to_f64()) << pol << " cotangent " << i;
    expect_honest_counts(rnn_loss, pol);
  }
}

}  // namespace
}  // namespace tandem
