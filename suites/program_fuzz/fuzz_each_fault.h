// Which engine faults the fuzzer catches (`tandem fuzz --inject-each F1,F2,...`): every fault
// over the same cases in one process, each case generated and its references computed once
// for all of them (the reference's runs are most of a case's cost, and no fault reaches the
// reference: engine/core/faults.h). Per fault: caught at the first case whose engine run under
// it fails check_case's verdict, or missed over all --programs cases — the verdict of
// `tandem fuzz --seed S --programs N --max-failures 1 --inject F`, without its shrinking.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "suites/program_fuzz/fuzz_driver.h"

namespace tandem::fuzz {

// One line per fault, `caught FAULT at case I (seed S, chain C): what` or `missed FAULT in N
// cases`, then a count. Returns 1 when some fault was caught, else 0. Faults stay off after.
// An unknown or empty fault name is bad input (thrown before any case runs).
int run_fuzz_each_fault(const FuzzRunOptions& options, const std::vector<std::string>& faults, std::ostream& log);

}  // namespace tandem::fuzz
