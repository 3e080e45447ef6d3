// Each suite's registration function, called once to fill the registry.
#pragma once

namespace tandem {
class Registry;
void register_dot_suite(Registry& r);
void register_lstm_suite(Registry& r);
void register_selftest_suite(Registry& r);  // only with TANDEM_SELFTEST=1
void register_scan_hoist_suite(Registry& r);
void register_collectives_suite(Registry& r);  // empty without MPI
void register_remat_suite(Registry& r);
void register_vmap_suite(Registry& r);
inline void register_all_suites(Registry& r) {
  register_dot_suite(r);
  register_lstm_suite(r);
  register_collectives_suite(r);
  register_selftest_suite(r);
  register_scan_hoist_suite(r);
  register_remat_suite(r);
  register_vmap_suite(r);
}
}  // namespace tandem
