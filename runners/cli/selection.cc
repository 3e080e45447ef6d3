// Case and device selection.
#include "runners/cli/selection.h"

#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"

namespace tandem {

void add_selection_options(CLI::App& cmd, Selection& s) {
  cmd.add_option("--suite", s.suite, "only this suite (dot, ...)");
  cmd.add_option("--filter", s.filter, "regex on case names, e.g. 'alg:BF16.*in:f32'");
  cmd.add_option("--backend", s.backend, "cpu | cuda | all | auto (cpu, plus cuda if a GPU is visible)");
  cmd.add_option("--profile", s.profile, "quick | nightly | full");
}

std::vector<const Case*> selected_cases(const Selection& s) {
  if (!is_known_profile(s.profile))
    throw_bad_input("unknown profile '" + s.profile + "'", "use quick, nightly or full");
  if (!s.suite.empty()) {
    bool known = false;
    for (const Case& c : registry().cases()) known |= c.suite == s.suite;
    if (!known) throw_bad_input("unknown suite '" + s.suite + "'", "`tandem list` shows the suites");
  }
  return registry().select(s.profile, s.suite, s.filter);
}

std::vector<Device> selected_devices(const Selection& s) {
  if (s.backend == "cpu") return {Device::cpu()};
  if (s.backend == "cuda") return {Device::cuda(0)};
  if (s.backend == "all") return {Device::cpu(), Device::cuda(0)};
  if (s.backend == "auto") {
    if (cuda_device_count() > 0) return {Device::cpu(), Device::cuda(0)};
    return {Device::cpu()};
  }
  throw_bad_input("unknown backend '" + s.backend + "'", "use cpu, cuda, all or auto");
}

std::string backend_name(Device d) { return d.kind == DeviceKind::cpu ? "cpu" : "cuda"; }

}  // namespace tandem
