// Every Program the suites build reads back from its JSON to one that writes the same JSON:
// the quick profile's Program cases, enumerated as `tandem dump-programs` does (the registry,
// then each case's oracle items on the CPU), with the vjp and vmap programs tandem runs from
// them, and the LSTM's programs (primitive and scan paths), which have no oracle items.
#include <gtest/gtest.h>

#include "engine/ir/program_json.h"
#include "engine/ir/program_json_read.h"
#include "engine/passes/vjp.h"
#include "engine/passes/vmap.h"
#include "suites/common/harness.h"
#include "suites/common/lstm_program.h"

namespace tandem {
namespace {

using nlohmann::json;

// Exact, to the text: nlohmann's == would call an int 2 and a double 2.0 equal.
void expect_round_trip(const Program& p, const std::string& what) {
  const json j = program_to_json(p);
  EXPECT_EQ(program_to_json(program_from_json(json::parse(j.dump()))).dump(), j.dump()) << what;
}

class ProgramCase : public ::testing::TestWithParam<const Case*> {};

TEST_P(ProgramCase, RoundTripsThroughJson) {
  const Case& c = *GetParam();
  CaseInstance inst;
  try {
    inst = c.instantiate(Device::cpu());
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::unsupported) GTEST_SKIP() << e.what();
    throw;
  }
  if (!inst.oracle) GTEST_SKIP() << "not a Program case (no oracle items)";
  for (const OracleProgram& o : inst.oracle()) {
    const std::string what = c.name + " [" + o.label + "]";
    expect_round_trip(o.program, what);
    if (!o.output_cts.empty()) {
      VjpProgram v = vjp(o.program, o.wrt);
      expect_round_trip(v.forward, what + " vjp forward");
      expect_round_trip(v.backward, what + " vjp backward");
    } else if (o.vmap) {
      expect_round_trip(vmap(o.program, o.vmap->in_axes, o.vmap->out_axes, o.vmap->size), what + " vmap");
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<const Case*>& info) {
  std::string n = info.param->name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Quick, ProgramCase, ::testing::ValuesIn(registry().select("quick", "", "")), test_name);

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

}  // namespace
}  // namespace tandem
