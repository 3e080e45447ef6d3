// Each suite's registration function, and register_all_suites() which the top layer (the
// CLI's main, tandem_suites_test_main) calls once to fill registry(). harness/ never
// calls it: the case registry does not depend on the suites that fill it.
#pragma once
#include <string>
#include <vector>

namespace tandem {
class Registry;
// The registration functions the suite table (suites/suites.def) names.
void register_dot_suite(Registry& r);
void register_lstm_suite(Registry& r);
void register_selftest_suite(Registry& r);  // only with TANDEM_SELFTEST=1
void register_scan_hoist_suite(Registry& r);
void register_collectives_suite(Registry& r);  // empty without MPI
void register_remat_suite(Registry& r);
void register_vmap_suite(Registry& r);
// Registers every primitive first (the cases build programs), then every suite into
// registry(); a second call does nothing.
void register_all_suites();

// The suite table's rows, in order: what `tandem list --suites` prints and --suite's help names.
struct SuiteInfo {
  std::string name, what;
};
std::vector<SuiteInfo> suite_table();
}  // namespace tandem
