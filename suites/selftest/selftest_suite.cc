// The harness's own contract cases, registered only when TANDEM_SELFTEST=1: one that passes,
// one whose engine result is deliberately off by 1e-3 from what it is compared with (a
// correctness failure the harness must report with exit code 1), one that throws as the machine
// fails (an "error" verdict, exit code 5), and one whose engine result fails an internal
// check while it is compared (a wrong value found through an exception: "fail", exit 1). The
// CLI contract test uses them to prove the exit codes.
#include <cstdlib>

#include "bridge/error_spec.h"
#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "harness/case.h"
#include "harness/program_case.h"
#include "suites/register_suites.h"

namespace tandem {
namespace {

Case selftest_case(const std::string& kind) {
  Case c;
  c.suite = "selftest";
  c.name = "selftest/" + kind;
  c.profiles = profiles_from("quick");
  c.instantiate = [kind](Device dev) -> CaseInstance {
    if (kind == "throws") throw Error(ErrorKind::internal, "selftest: deliberate internal error");
    Builder b;
    Value x = b.input({4}, DType::f32);
    auto p = std::make_shared<Program>(b.build({x + (kind == "wrong" ? 1e-3 : 0.0)}));
    Tensor in = seeded_uniform({4}, DType::f32, "selftest");
    CaseInstance inst;
    inst.body = [p, in, dev] { Executor(dev).run(*p, {in}); };
    inst.check = [p, in, dev, kind] {
      const std::vector<Tensor> got = Executor(dev).run(*p, {in});
      // An engine invariant that the result breaks (here deliberately: it expects 5 elements).
      if (kind == "check_fails") TANDEM_CHECK(got[0].numel() == 5, "selftest: the result has ", got[0].numel(), " elements");
      CompareReport rep = compare(in.to_f64(), got[0].to_f64(), elementwise_spec(DType::f32, 1));
      CaseResult r;
      r.correctness["out"] = rep.to_json();
      if (!rep.pass) { r.verdict = Verdict::fail; r.message = "out: " + rep.text(); }
      return r;
    };
    return inst;
  };
  return c;
}

}  // namespace

void register_selftest_suite(Registry& r) {
  const char* on = std::getenv("TANDEM_SELFTEST");
  if (!on || std::string(on) != "1") return;
  for (const char* k : {"passes", "wrong", "throws", "check_fails"}) r.add(selftest_case(k));
}

}  // namespace tandem
