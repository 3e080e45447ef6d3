// The error-outcome table (error_outcome.h) as rows, and how an exception finds its row.
#include "harness/error_outcome.h"

#include <new>
#include <stdexcept>
#include <system_error>

namespace tandem {
namespace {

constexpr ErrorOutcome kRows[] = {
#define TANDEM_ERROR_OUTCOME_ROW(kind, verdict, code, why) \
  {ErrorKind::kind, Verdict::verdict, exit_code::code, why},
    TANDEM_ERROR_OUTCOMES(TANDEM_ERROR_OUTCOME_ROW)
#undef TANDEM_ERROR_OUTCOME_ROW
};

}  // namespace

const ErrorOutcome& error_outcome(ErrorKind kind) {
  for (const ErrorOutcome& r : kRows)
    if (r.kind == kind) return r;
  throw Error(ErrorKind::invariant, "an error kind missing from TANDEM_ERROR_OUTCOMES");
}

ErrorKind error_kind_of(const std::exception& e) {
  if (auto* t = dynamic_cast<const Error*>(&e)) return t->kind();
  if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const std::system_error*>(&e)) return ErrorKind::internal;
  if (dynamic_cast<const std::logic_error*>(&e)) return ErrorKind::invariant;
  return ErrorKind::internal;
}

}  // namespace tandem
