// The reference runs `tandem check --program` shares between the cases of one program (fuzz_reference_cache.h) and the
// two stages of the error model's runs (fuzz_driver.h): a run is shared exactly where it computes the same, and the
// staged check gives the verdict of all six runs — it still fails a wrong engine, and then has computed all of them.
#include <gtest/gtest.h>

#include "bridge/seeded_inputs.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/ir/builder.h"
#include "suites/program_fuzz/fuzz_driver.h"
#include "suites/program_fuzz/fuzz_reference_cache.h"

namespace tandem::fuzz {
namespace {

// A small scan over a dot at a given precision: carry h0 [4, 8] through w [8, 8], x [3, 4, 8] scanned.
FuzzCase scan_case(const std::string& precision, ChainKind kind) {
  Program body = trace({AType{{8, 8}, DType::f32}, AType{{4, 8}, DType::f32}, AType{{4, 8}, DType::f32}},
                       [&](Builder&, const std::vector<Value>& v) {  // (w, carry h, x)
                         Value h = tanh(dot_general(v[1], v[0], DotDims{{1}, {0}, {}, {}}, precision) + v[2]);
                         return std::vector<Value>{h, h};
                       });
  Program p = trace({AType{{4, 8}, DType::f32}, AType{{8, 8}, DType::f32}, AType{{3, 4, 8}, DType::f32}},
                    [&](Builder&, const std::vector<Value>& v) {
                      std::vector<Value> out = scan(body, {v[1]}, {v[0]}, {v[2]}, 3);
                      return std::vector<Value>{reduce_sum(out[1] * out[1], {0, 1, 2})};
                    });
  FuzzCase c;
  c.seed = 11;
  c.program = p;
  c.chain.kind = kind;
  for (const AType& t : p.in_types()) c.args.push_back(seeded_uniform(t.shape, t.dtype, cat("arg", c.args.size())));
  if (differentiates(kind)) c.cotangents = {Tensor::scalar(1, DType::f32)};
  return c;
}

TEST(ReferenceCache, SharesARunExactlyWhereItComputesTheSame) {
  const FuzzCase def = scan_case("DEFAULT", ChainKind::plain);
  for (const char* same : {"HIGHEST", "F32_F32_F32", "BF16_BF16_F32_X9", "F64_F64_F64"})
    EXPECT_EQ(reference_key(def, RefVariant::own, 0), reference_key(scan_case(same, ChainKind::plain), RefVariant::own, 0)) << same;
  EXPECT_EQ(reference_key(scan_case("HIGH", ChainKind::plain), RefVariant::perturbed, 3),
            reference_key(scan_case("BF16_BF16_F32_X3", ChainKind::plain), RefVariant::perturbed, 3));
  for (const char* other : {"BF16_BF16_F32", "TF32_TF32_F32", "F16_F16_F32", "ANY_F8_ANY_F8_F32"})
    EXPECT_NE(reference_key(def, RefVariant::own, 0), reference_key(scan_case(other, ChainKind::plain), RefVariant::own, 0)) << other;
  // The wide truth drops every precision but F8's; hoisting is checked against the plain
  // program's truth; the vjp's is another; so is another draw or variant.
  EXPECT_EQ(reference_key(def, RefVariant::wide, 0), reference_key(scan_case("BF16_BF16_F32", ChainKind::plain), RefVariant::wide, 0));
  EXPECT_NE(reference_key(def, RefVariant::wide, 0), reference_key(scan_case("ANY_F8_ANY_F8_F32", ChainKind::plain), RefVariant::wide, 0));
  EXPECT_EQ(reference_key(def, RefVariant::own, 0), reference_key(scan_case("DEFAULT", ChainKind::hoist), RefVariant::own, 0));
  EXPECT_NE(reference_key(def, RefVariant::own, 0), reference_key(scan_case("DEFAULT", ChainKind::vjp), RefVariant::own, 0));
  EXPECT_NE(reference_key(def, RefVariant::perturbed, 1), reference_key(def, RefVariant::perturbed, 2));
  EXPECT_NE(reference_key(def, RefVariant::own, 0), reference_key(def, RefVariant::wide, 0));
  // What is shared is what reference_results computes.
  ReferenceCache cache;
  const std::vector<ref::Array> a = cache.results(scan_case("HIGHEST", ChainKind::vjp), RefVariant::perturbed, 5);
  const std::vector<ref::Array> b = reference_results(scan_case("DEFAULT", ChainKind::vjp), RefVariant::perturbed, 5);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].data, b[i].data);
  EXPECT_EQ(cache.results(scan_case("DEFAULT", ChainKind::vjp), RefVariant::perturbed, 5)[0].data, a[0].data);
  EXPECT_EQ(cache.computed(), 1u);
}

// Four policies' vjp cases compute the reference once; a correct engine passes on the first two runs; a wrong one (the
// scan skips its last step) fails with every run computed, as without the cache.
TEST(ReferenceCache, StagedRunsGiveTheFullVerdict) {
  ReferenceCache cache;
  for (const char* policy : {"everything_saveable", "nothing_saveable", "dots_saveable"}) {
    FuzzCase c = scan_case("DEFAULT", ChainKind::vjp);
    c.chain.top_policy = policy;
    CheckedResults k;
    EXPECT_EQ(check_case(c, Device::cpu(), &k, &cache).outcome, Outcome::agree) << policy;
    EXPECT_FALSE(k.runs_complete);
    EXPECT_EQ(k.runs.size(), 2u);
  }
  EXPECT_EQ(cache.computed(), 3u);  // wide, own, one perturbed draw: once for the three policies
  inject_fault("scan_drops_last_step");
  const FuzzCase c = scan_case("DEFAULT", ChainKind::vjp);
  CheckedResults staged, full;
  const CaseResult with_cache = check_case(c, Device::cpu(), &staged, &cache), without = check_case(c, Device::cpu(), &full);
  inject_fault("");
  EXPECT_EQ(with_cache.outcome, Outcome::disagree);
  EXPECT_EQ(without.outcome, Outcome::disagree);
  EXPECT_TRUE(staged.runs_complete);
  EXPECT_EQ(staged.runs.size(), full.runs.size());
  EXPECT_EQ(cache.computed(), 7u);
}

// A vjp's wide and own runs take the forward outputs of the plain chain's runs when the cache
// holds them, and give what they give alone: the same bits and the same nonfinite flag.
TEST(ReferenceCache, AVjpRunReusesThePlainForwardWithTheSameBits) {
  ReferenceCache cache;
  cache.compute(scan_case("DEFAULT", ChainKind::plain), {{RefVariant::wide, 0}, {RefVariant::own, 0}});
  for (RefVariant v : {RefVariant::wide, RefVariant::own}) cache.results(scan_case("DEFAULT", ChainKind::plain), v);  // held now
  const FuzzCase vjp = scan_case("DEFAULT", ChainKind::vjp);
  for (RefVariant v : {RefVariant::wide, RefVariant::own}) {
    bool shared_flag = true, alone_flag = true;
    const std::vector<ref::Array> shared = cache.results(vjp, v, 0, &shared_flag), alone = reference_results(vjp, v, 0, &alone_flag);
    ASSERT_EQ(shared.size(), alone.size());
    for (size_t i = 0; i < shared.size(); ++i) EXPECT_EQ(shared[i].data, alone[i].data);
    EXPECT_EQ(shared_flag, alone_flag);
  }
  EXPECT_EQ(cache.computed(), 4u);
  const std::vector<ref::Array> outputs = cache.results(scan_case("DEFAULT", ChainKind::plain), RefVariant::wide);
  EXPECT_THROW(reference_results(vjp, RefVariant::perturbed, 3, nullptr, &outputs), Error);
}

// Runs planned ahead or put first (compute), computed on the cache's threads while the caller goes on, are the runs
// computed one at a time, bit for bit, each once, whatever is asked first; a plan never asked for is dropped at the end.
TEST(ReferenceCache, PlannedRunsAreTheRunsComputedWhenAsked) {
  const FuzzCase plain = scan_case("BF16_BF16_F32", ChainKind::plain), vjp = scan_case("BF16_BF16_F32", ChainKind::vjp);
  const std::vector<std::pair<RefVariant, uint64_t>> runs = {
      {RefVariant::wide, 0}, {RefVariant::own, 0}, {RefVariant::perturbed, 12}, {RefVariant::scaled, 4}, {RefVariant::own, 0}};
  ReferenceCache cache;
  cache.plan(plain, runs);
  cache.compute(vjp, runs);
  cache.plan(plain, runs);  // planned twice: computed once
  for (const FuzzCase& c : {vjp, plain})
    for (const auto& [variant, seed] : runs) {
      bool shared_flag = true, alone_flag = false;
      const std::vector<ref::Array> shared = cache.results(c, variant, seed, &shared_flag),
                                    alone = reference_results(c, variant, seed, &alone_flag);
      ASSERT_EQ(shared.size(), alone.size());
      for (size_t i = 0; i < shared.size(); ++i) EXPECT_EQ(shared[i].data, alone[i].data);
      EXPECT_EQ(shared_flag, alone_flag);
    }
  EXPECT_EQ(cache.computed(), 8u);
  ReferenceCache unused;
  unused.plan(vjp, runs);
  EXPECT_EQ(unused.results(plain, RefVariant::own, 0)[0].data, cache.results(plain, RefVariant::own, 0)[0].data);  // starts its thread
}

}  // namespace
}  // namespace tandem::fuzz
