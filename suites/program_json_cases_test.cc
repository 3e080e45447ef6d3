// Every Program the suites build reads back from its JSON to one that writes the same JSON: the quick profile's Program
// cases, enumerated as `tandem dump-programs` does (the registry, then each case's oracle items on the CPU), with the
// vjp and vmap programs tandem runs from them; and the programs with no oracle items: the LSTM's (primitive and scan
// paths) and the vmap suite's collectives over named axes, vmapped and differentiated as its cases do.
#include <gtest/gtest.h>

#include <set>

#include "engine/core/error.h"
#include "engine/ir/program_json.h"
#include "engine/ir/program_json_read.h"
#include "engine/passes/vjp.h"
#include "engine/passes/vmap.h"
#include "harness/harness.h"
#include "suites/common/lstm_program.h"
#include "suites/vmap/vmap_collective_programs.h"

namespace tandem {
namespace {

using nlohmann::json;
// quick takes seconds; nightly (its perf grids: the same programs, larger) a minute, in
// which oracle() runs the engine on every perf case. Switch it here to check those too.
constexpr const char* kProfile = "quick";

// Exact, to the text: nlohmann's == would call an int 2 and a double 2.0 equal.
void expect_round_trip(const Program& p, const std::string& what) {
  const json j = program_to_json(p);
  EXPECT_EQ(program_to_json(program_from_json(json::parse(j.dump()))).dump(), j.dump()) << what;
}

// The suites' names, from the registry: one test per suite.
std::vector<std::string> suite_names() {
  std::set<std::string> names;
  for (const Case* c : registry().select(kProfile, "", "")) names.insert(c->suite);
  return {names.begin(), names.end()};
}

// Its oracle items, as dump-programs gets them; none where the case is not a Program.
std::vector<OracleProgram> oracle_items(const Case& c) {
  try {
    CaseInstance inst = c.instantiate(Device::cpu());
    return inst.oracle ? inst.oracle() : std::vector<OracleProgram>{};
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::unsupported) return {};
    throw;
  }
}

class SuitePrograms : public ::testing::TestWithParam<std::string> {};

TEST_P(SuitePrograms, RoundTripThroughJson) {
  size_t programs = 0;
  for (const Case* c : registry().select(kProfile, GetParam(), "")) {
    for (const OracleProgram& o : oracle_items(*c)) {
      const std::string what = c->name + " [" + o.label + "]";
      expect_round_trip(o.program, what);
      if (!o.output_cts.empty()) {
        VjpProgram v = vjp(o.program, o.wrt);
        expect_round_trip(v.forward, what + " vjp forward");
        expect_round_trip(v.backward, what + " vjp backward");
      } else if (o.vmap) {
        expect_round_trip(vmap(o.program, o.vmap->in_axes, o.vmap->out_axes, o.vmap->size), what + " vmap");
      }
      ++programs;
    }
  }
  if (programs == 0) GTEST_SKIP() << "no Program cases (no oracle items)";
}

INSTANTIATE_TEST_SUITE_P(Suites, SuitePrograms, ::testing::ValuesIn(suite_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ProgramJsonLstm, PrimitiveAndScanPathsRoundTrip) {
  for (const LstmConfig& c : {LstmConfig{2, 3, 4, 5, 1, false}, LstmConfig{2, 3, 4, 5, 2, true}}) {
    expect_round_trip(lstm_fwd_program(c), "lstm_fwd");
    expect_round_trip(lstm_train_program(c, "HIGH"), "lstm_fwd + lstm_bwd");
    VjpProgram v = lstm_program_vjp(c);
    expect_round_trip(v.forward, "scan path forward");
    expect_round_trip(v.backward, "scan path backward");
    expect_round_trip(lstm_program_joint(c, false, false), "scan path joint");
  }
}

TEST(ProgramJsonCollectives, NamedAxisProgramsRoundTrip) {
  for (const vmap_suite::CollectiveProgram& c : vmap_suite::collective_programs()) {
    Program p = c.build(4);
    expect_round_trip(p, c.name);
    expect_round_trip(vmap(p, std::vector<VmapAxis>(p.in_vars.size(), 0), std::vector<VmapAxis>(p.out_vars.size(), 0),
                           4, "batch"), c.name + " vmapped");
    if (c.differentiable) expect_round_trip(vjp(p).backward, c.name + " vjp backward");
  }
  expect_round_trip(vmap_suite::two_axis_program("rank", 2, "batch", 3), "two axes");
}

}  // namespace
}  // namespace tandem
