// What a tandem::Error means for a verdict, in one table: the verdict of a case it ends
// (harness/harness.cc, the Program cases) and the exit code of a command it ends
// (runners/cli/main.cc). A wrong value the engine finds through an exception (a failed
// internal check, a valid program refused) is a correctness failure like one a comparison
// finds: a CI that retries infrastructure errors (exit 5) must never retry it away.
#pragma once
#include <exception>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "harness/case.h"

namespace tandem {

// X(kind, verdict of a case it ends, exit code of a command it ends, why). Inside a case the
// input is valid by construction (a suite builds it, --program validated it on import), so
// the engine calling it bad input is the engine's fault; outside a case it is the user's.
#define TANDEM_ERROR_OUTCOMES(X)                                                                         \
  X(bad_input, fail, bad_input, "the user's input (a command), or a valid case refused (a case)")       \
  X(unsupported, skip, infrastructure_error, "this build, backend or device lacks the feature")          \
  X(internal, error, infrastructure_error, "a library, the OS or the machine failed: CUDA, MPI, I/O")   \
  X(invariant, fail, correctness_failure, "the engine found its own result inconsistent: a wrong value")

struct ErrorOutcome {
  ErrorKind kind;
  Verdict case_verdict;
  int exit_code;
  const char* why;
};

// The row of `kind`.
const ErrorOutcome& error_outcome(ErrorKind kind);

// An exception's kind as the table reads it: a tandem::Error's own; std::bad_alloc and
// std::system_error (memory, the OS) internal; any other std::logic_error (out_of_range,
// invalid_argument: the engine broke its own precondition) an invariant; anything else internal.
ErrorKind error_kind_of(const std::exception& e);

}  // namespace tandem
