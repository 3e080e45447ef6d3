// tandem's exit-code contract (DESIGN.md): CI and users branch on these. reports/exit_codes.py
// holds the same numbers for the Python gate.
#pragma once

namespace tandem::exit_code {
inline constexpr int pass = 0;
inline constexpr int correctness_failure = 1;
inline constexpr int performance_regression = 2;
inline constexpr int inconclusive = 3;
inline constexpr int bad_input = 4;
inline constexpr int infrastructure_error = 5;
inline constexpr int incomplete = 6;  // gate: cases missing or newly skipped, run not complete;
                                       // ci/quick_run.sh: a promised plot not drawn although MPI ran
}  // namespace tandem::exit_code
