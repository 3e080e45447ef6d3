// The after-pass typecheck (pass_typecheck.h): on by default in debug builds, an
// ill-typed result fails naming the pass, and every pass entry point is wired to it (each
// one's count goes up when it runs) — proved in whatever build type the tests are built in.
#include "engine/passes/pass_typecheck.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/passes/fold_scattered_adds.h"
#include "engine/passes/hoist_scan_accumulations.h"
#include "engine/passes/hoist_scan_reductions.h"
#include "engine/passes/vjp.h"

namespace tandem {
namespace {
using V = std::vector<Value>;

// Turns the check on for one test and restores the build's default after.
struct EnableForTest {
  bool before = pass_typecheck_enabled();
  EnableForTest() { set_pass_typecheck(true); }
  ~EnableForTest() { set_pass_typecheck(before); }
};

TEST(PassTypecheck, OnInDebugBuilds) {
#ifdef NDEBUG
  const char* env = std::getenv("TANDEM_TYPECHECK_PASSES");
  EXPECT_EQ(pass_typecheck_enabled(), env && std::string(env) == "1");
#else
  EXPECT_TRUE(pass_typecheck_enabled());
#endif
}

TEST(PassTypecheck, IllTypedResultNamesThePass) {
  EnableForTest on;
  Program p = trace({AType{{2}, DType::f32}}, [](Builder&, const V& v) { return V{sin(v[0])}; });
  typecheck_after_pass(p, "good_pass");
  Program retyped = p;
  retyped.eqns[0].out[0] = new_var(AType{{3}, DType::f32});
  retyped.out_vars[0] = Atom(retyped.eqns[0].out[0]);
  try {
    typecheck_after_pass(retyped, "bad_pass");
    FAIL() << "an ill-typed result passed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invariant);  // the pass's wrong result, not the machine's
    EXPECT_NE(std::string(e.what()).find("pass bad_pass produced an ill-typed program"), std::string::npos) << e.what();
  }
  set_pass_typecheck(false);
  typecheck_after_pass(retyped, "bad_pass");  // off: not walked
  EXPECT_EQ(pass_typecheck_count("bad_pass"), 0);
}

TEST(PassTypecheck, EveryPassIsWired) {
  EnableForTest on;
  AType x{{4}, DType::f32}, xs{{5, 4}, DType::f32};
  Program body = trace({x, x}, [](Builder&, const V& v) { return V{v[0] + v[1], sin(v[1])}; });
  Program p = trace({x, xs}, [&](Builder&, const V& v) {
    V out = scan(body, {}, {v[0]}, {v[1]}, 5);
    return V{out[0], reduce_sum(out[1], {0, 1})};
  });
  auto counted = [](const char* pass, const std::function<void()>& run) {
    int64_t before = pass_typecheck_count(pass);
    run();
    return pass_typecheck_count(pass) - before;
  };
  // At least: the scan's own vjp rule runs the passes on its body too.
  EXPECT_GE(counted("vjp", [&] { vjp(p); }), 2) << "forward and backward";
  EXPECT_GE(counted("vjp_joint", [&] { vjp_joint(p); }), 1);
  EXPECT_GE(counted("hoist_scan_reductions", [&] { hoist_scan_reductions(p); }), 1);
  EXPECT_GE(counted("hoist_scan_accumulations", [&] { hoist_scan_accumulations(p); }), 1);
  EXPECT_GE(counted("fold_scattered_adds", [&] { fold_scattered_adds(p); }), 1);
}

}  // namespace
}  // namespace tandem
