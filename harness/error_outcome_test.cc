// Errors inside a case and their verdicts (harness/error_outcome.h): a failed engine invariant
// (TANDEM_CHECK), a valid case refused as bad input and a broken std precondition are
// correctness failures (exit 1), the machine's failures (a library call, the OS, memory) stay
// errors (exit 5) and unsupported is a skip; every ErrorKind has its row.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include "engine/core/check.h"
#include "harness/error_outcome.h"
#include "harness/harness.h"
#include "harness/records.h"

namespace tandem {
namespace {

// A case whose check (the engine's run on the case's valid input) throws what `raise` throws.
Case raising_case(std::function<void()> raise) {
  Case c;
  c.suite = "dot";
  c.name = "dot/error_outcome_test";
  c.instantiate = [raise](Device) {
    CaseInstance inst;
    inst.check = [raise] { raise(); return CaseResult{}; };
    inst.body = [] {};
    return inst;
  };
  return c;
}

CaseResult checked(std::function<void()> raise) {
  RunOptions opts;
  opts.time = false;
  return run_case(raising_case(std::move(raise)), opts);
}

TEST(ErrorOutcome, EveryKindHasARowWithItsExitCode) {
  EXPECT_EQ(error_outcome(ErrorKind::bad_input).exit_code, exit_code::bad_input);
  EXPECT_EQ(error_outcome(ErrorKind::unsupported).case_verdict, Verdict::skip);
  EXPECT_EQ(error_outcome(ErrorKind::internal).exit_code, exit_code::infrastructure_error);
  EXPECT_EQ(error_outcome(ErrorKind::invariant).exit_code, exit_code::correctness_failure);
  for (ErrorKind k : {ErrorKind::bad_input, ErrorKind::unsupported, ErrorKind::internal, ErrorKind::invariant})
    EXPECT_EQ(error_outcome(k).kind, k);
}

TEST(ErrorOutcome, AFailedEngineCheckInACaseIsAFailureNotAnError) {
  CaseResult r = checked([] { TANDEM_CHECK(1 + 1 == 3, "the result's shape disagrees with its type"); });
  EXPECT_EQ(r.verdict, Verdict::fail) << r.message;
  EXPECT_NE(r.message.find("check failed: 1 + 1 == 3"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("valid input"), std::string::npos) << r.message;
  // The record a run writes says so too, and the run's exit code follows the "fail" verdict.
  EXPECT_EQ(make_record(raising_case([] {}), "cpu", "cpu", r)["verdict"], "fail");
}

TEST(ErrorOutcome, AValidCaseRefusedAsBadInputIsAFailure) {
  EXPECT_EQ(checked([] { throw_bad_input("shapes f32[4] and f32[5] do not match"); }).verdict, Verdict::fail);
}

TEST(ErrorOutcome, ABrokenStdPreconditionInTheEngineIsAFailure) {
  EXPECT_EQ(checked([] { throw std::out_of_range("vector::_M_range_check"); }).verdict, Verdict::fail);
}

TEST(ErrorOutcome, TheMachinesFailuresStayInfrastructureErrors) {
  CaseResult lib = checked([] { check::throw_failure({"CUDA", "cudaMalloc(&p, n)", "x.cc", 1}, 0, "out of memory"); });
  EXPECT_EQ(lib.verdict, Verdict::error) << lib.message;
  EXPECT_EQ(checked([] { throw std::bad_alloc(); }).verdict, Verdict::error);
  EXPECT_EQ(checked([] { throw std::system_error(std::make_error_code(std::errc::io_error), "write"); }).verdict,
            Verdict::error);
  EXPECT_EQ(checked([] { throw std::runtime_error("disk full"); }).verdict, Verdict::error);
  EXPECT_EQ(checked([] { throw_unsupported("no GPU"); }).verdict, Verdict::skip);
}

}  // namespace
}  // namespace tandem
