// register_all_suites(): the one list of suites (suites/register_suites.h).
#include "suites/register_suites.h"

#include <mutex>

#include "engine/prims/register_all.h"
#include "harness/case.h"

namespace tandem {

void register_all_suites() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_all_primitives();
    Registry& r = registry();
    register_dot_suite(r);
    register_lstm_suite(r);
    register_collectives_suite(r);
    register_selftest_suite(r);
    register_scan_hoist_suite(r);
    register_remat_suite(r);
    register_vmap_suite(r);
  });
}

}  // namespace tandem
