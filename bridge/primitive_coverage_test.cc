// Coverage: every registered primitive has every rule the project promises: a CPU impl, a reference eval rule and tape
// rule (bridge/reference_rules.h), a VJP rule, and rows in the engine-vs-reference table whose programs really use it.
// A missing one is a failure listing all the gaps at once, never a skip. Also no stale names: every reference rule and
// row key is a registered primitive.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bridge/prims_vs_reference_rows.h"
#include "bridge/reference_rules.h"
#include "engine/ir/primitive.h"
#include "reference/elementwise.h"

namespace tandem {
namespace {

// The primitives a program's equations use, sub-programs (scan and checkpoint bodies) included.
void collect_primitives(const Program& p, std::set<std::string>& used) {
  for (const Eqn& e : p.eqns) {
    used.insert(e.prim->name);
    for (const auto& [key, param] : e.params.items())
      if (const ProgramPtr* body = std::get_if<ProgramPtr>(&param); body && *body) collect_primitives(**body, used);
  }
}

bool rows_use(const std::string& prim) {
  auto it = prims_vs_reference_rows().find(prim);
  if (it == prims_vs_reference_rows().end()) return false;
  for (const Row& row : it->second) {
    std::set<std::string> used;
    collect_primitives(trace(row.inputs, row.fn), used);
    if (used.count(prim)) return true;
  }
  return false;
}

bool reference_knows_unary(const std::string& op) {
  for (const ref::UnaryOp& u : ref::unary_ops())
    if (op == u.name) return true;
  return false;
}

// Primitives the vjp pass differentiates itself, with the reason; each must still have no
// rule of its own (else this entry is stale).
const std::map<std::string, std::string> kVjpInThePass = {
    {"checkpoint", "engine/passes/vjp.cc linearizes the body under the checkpoint's policy"},
    {"scan", "engine/passes/vjp_scan.cc splits the body under the policy (stacked residuals)"},
    {"cond", "engine/passes/vjp_cond.cc: a cond of the branches' joint vjps"}};

TEST(PrimitiveCoverage, EveryPrimitiveHasEveryRule) {
  std::vector<std::string> gaps;
  auto need = [&gaps](bool ok, const std::string& prim, const char* what) {
    if (!ok) gaps.push_back(prim + ": no " + what);
  };
  for (const std::string& name : primitive_names()) {
    const Primitive& p = primitive(name);
    need(bool(p.cpu), name, "CPU impl");
    need(bool(p.shape), name, "shape rule");
    if (kVjpInThePass.count(name)) need(!p.vjp, name, "need of its kVjpInThePass entry: it has a VJP rule now");
    else need(bool(p.vjp), name, "VJP rule (engine/prims/vjp_rules*.cc)");
    auto rule = reference_rules().find(name);
    need(rule != reference_rules().end() && rule->second.eval, name, "reference eval rule (reference_rules.cc)");
    need(rule != reference_rules().end() && rule->second.tape, name, "reference tape rule (reference_rules.cc)");
    if (p.has(kElementwiseUnary)) need(reference_knows_unary(name), name, "row in ref::unary_ops() (reference/elementwise.cc)");
    need(rows_use(name), name, "prims_vs_reference row using it (prims_vs_reference_test.cc)");
  }
  EXPECT_TRUE(gaps.empty()) << "missing rules:\n" << ::testing::PrintToString(gaps);
}

// Batching rules (vmap): not required until the vmap pass lands. Once any primitive has one,
// every primitive must: this check turns itself on with the first batch rule.
TEST(PrimitiveCoverage, BatchRulesOnceVmapExists) {
  std::vector<std::string> with, without;
  for (const std::string& name : primitive_names()) (primitive(name).batch ? with : without).push_back(name);
  if (with.empty()) GTEST_SUCCEED() << "no primitive has a batch rule yet (vmap not landed)";
  else EXPECT_TRUE(without.empty()) << "no batch rule for: " << ::testing::PrintToString(without);
}

// Collectives (Trait kCollective) also need an axis rule: the vmap of a collective over the
// vmapped axis itself (Primitive::axis_batch, engine/prims/collective_prims_axis_rules.cc).
TEST(PrimitiveCoverage, EveryCollectiveHasAnAxisRule) {
  std::vector<std::string> collectives, without;
  for (const std::string& name : primitive_names()) {
    const Primitive& p = primitive(name);
    if (!p.has(kCollective)) continue;
    collectives.push_back(name);
    if (!p.axis_batch) without.push_back(name);
  }
  EXPECT_FALSE(collectives.empty()) << "no primitive has Trait kCollective";
  EXPECT_TRUE(without.empty()) << "no axis rule for: " << ::testing::PrintToString(without);
}

TEST(PrimitiveCoverage, NoStaleNames) {
  std::vector<std::string> names = primitive_names();
  std::set<std::string> registered(names.begin(), names.end());
  for (const auto& [name, rule] : reference_rules()) EXPECT_TRUE(registered.count(name)) << "reference rule for unknown " << name;
  for (const auto& [name, rows] : prims_vs_reference_rows()) EXPECT_TRUE(registered.count(name)) << "rows for unknown " << name;
}

TEST(PrimitiveCoverage, UnknownPrimitiveIsAClearError) {
  try {
    reference_rule("no_such_primitive");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_primitive"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tandem
