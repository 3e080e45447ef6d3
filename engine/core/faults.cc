// The fault registry (faults.h): the table built from TANDEM_FAULTS and the process-wide switch.
#include "engine/core/faults.h"

#include <cstdlib>

#include "engine/core/error.h"

namespace tandem {

namespace detail {
Fault g_injected = Fault::none;
}

const std::vector<FaultInfo>& fault_table() {
  static const std::vector<FaultInfo> table = {
#define TANDEM_FAULT_ROW(name, suite, mimics) {Fault::name, #name, suite, mimics},
      TANDEM_FAULTS(TANDEM_FAULT_ROW)
#undef TANDEM_FAULT_ROW
  };
  return table;
}

void inject_fault(const std::string& name) {
  if (name.empty()) {
    detail::g_injected = Fault::none;
    return;
  }
  for (const FaultInfo& f : fault_table())
    if (name == f.name) {
      detail::g_injected = f.id;
      return;
    }
  throw_bad_input(cat("unknown fault '", name, "'"), "`tandem faults --list` shows the faults");
}

void inject_fault_from_env() {
  if (const char* e = std::getenv("TANDEM_INJECT")) inject_fault(e);
}

const FaultInfo* injected_fault() {
  for (const FaultInfo& f : fault_table())
    if (f.id == detail::g_injected) return &f;
  return nullptr;
}

}  // namespace tandem
