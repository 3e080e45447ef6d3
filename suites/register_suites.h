// Each suite's registration function, called once to fill the registry.
#pragma once

namespace tandem {
class Registry;
void register_dot_suite(Registry& r);
inline void register_all_suites(Registry& r) { register_dot_suite(r); }
}  // namespace tandem
