// register_all_suites(): every suite of the table (suites/suites.def), in its order.
#include "suites/register_suites.h"

#include <mutex>
#include <vector>

#include "engine/prims/register_all.h"
#include "harness/case.h"

namespace tandem {
namespace {

using Fill = void (*)(Registry&);
constexpr Fill kFills[] = {
#define TANDEM_SUITE(name, folder, fill, what) Fill(fill),
#include "suites/suites.def"
#undef TANDEM_SUITE
};

}  // namespace

void register_all_suites() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_all_primitives();
    Registry& r = registry();
    for (Fill f : kFills)
      if (f) f(r);
  });
}

std::vector<SuiteInfo> suite_table() {
  return {
#define TANDEM_SUITE(name, folder, fill, what) {#name, what},
#include "suites/suites.def"
#undef TANDEM_SUITE
  };
}

}  // namespace tandem
