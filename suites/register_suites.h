// Each suite's registration function, called once to fill the registry.
#pragma once

namespace tandem {
class Registry;
void register_dot_suite(Registry& r);
void register_selftest_suite(Registry& r);  // only with TANDEM_SELFTEST=1
inline void register_all_suites(Registry& r) {
  register_dot_suite(r);
  register_selftest_suite(r);
}
}  // namespace tandem
