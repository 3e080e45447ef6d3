# tandem's exit-code contract (DESIGN.md), shared with common/exit_codes.h: CI branches
# on these numbers. Errors raised here carry a one-line message, a hint and their exit code.

PASS = 0
CORRECTNESS_FAILURE = 1
PERFORMANCE_REGRESSION = 2
INCONCLUSIVE = 3
BAD_INPUT = 4
INFRASTRUCTURE_ERROR = 5
INCOMPLETE = 6  # gate: baseline cases missing or newly skipped, or the run did not complete;
#                ci/quick_run.sh: a promised plot not drawn although MPI ran

NAMES = {
    PASS: "pass",
    CORRECTNESS_FAILURE: "correctness failure",
    PERFORMANCE_REGRESSION: "performance regression",
    INCONCLUSIVE: "inconclusive",
    BAD_INPUT: "bad input",
    INFRASTRUCTURE_ERROR: "infrastructure error",
    INCOMPLETE: "incomplete run",
}


class TandemError(Exception):
    """An error for the user: `message` says what is wrong, `hint` how to fix it."""

    code = INFRASTRUCTURE_ERROR

    def __init__(self, message, hint=""):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self):
        return f"error: {self.message}" + (f"\n  hint: {self.hint}" if self.hint else "")


class BadInput(TandemError):
    code = BAD_INPUT


class InfrastructureError(TandemError):
    code = INFRASTRUCTURE_ERROR
