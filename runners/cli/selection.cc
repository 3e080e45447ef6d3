// Case and device selection. An explicit --backend cuda (or all, which is cpu + cuda) without
// a usable GPU is an infrastructure error (exit 5) naming the reason: a GPU run that skipped
// every case would otherwise pass on nothing. --backend auto takes the GPU only when usable
// and says on stderr why not.
#include "runners/cli/selection.h"

#include "runners/cli/case_workers.h"
#include "runners/cli/option_checks.h"

#include <iostream>
#include <set>

#include "engine/core/rank_env.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "suites/register_suites.h"

namespace tandem {
namespace {

void require_usable_gpu(const std::string& backend) {
  std::string why = cuda_unavailable_reason(0);
  if (!why.empty())
    throw Error(ErrorKind::internal, "--backend " + backend + " asks for a GPU, but " + why,
                "use --backend cpu (or auto, which skips CUDA with this reason) here, or run on a machine "
                "with a usable GPU and a CUDA build");
}

}  // namespace

void add_selection_options(CLI::App& cmd, Selection& s) {
  std::string names;  // the suite table's (suites/suites.def), with what each is in `tandem list --suites`
  for (const SuiteInfo& t : suite_table()) names += (names.empty() ? "" : " | ") + t.name;
  cmd.add_option("--suite", s.suite, "only this suite: " + names + " (default: every suite; program's cases come from --program)");
  cmd.add_option("--exclude-suite", s.exclude_suite, "every suite but this one")->excludes("--suite");
  cmd.add_option("--filter", s.filter, "regex (RE2 syntax) on case names, e.g. 'alg:BF16.*in:f32'");
  cmd.add_option("--backend", s.backend, "cpu | cuda | all (cpu + cuda) | auto (cpu, plus cuda if a GPU is usable); "
                 "cuda and all without a usable GPU exit 5 with the reason")
      ->capture_default_str()
      ->check(one_of({"cpu", "cuda", "all", "auto"}, "use cpu, cuda, all or auto"));
  cmd.add_option("--profile", s.profile, "quick (seconds: the correctness grid) | nightly (quick + perf cases and long grids)")
      ->capture_default_str();
  add_program_options(cmd, s.program);
}

std::vector<const Case*> selected_cases(const Selection& s) {
  if (!is_known_profile(s.profile))
    throw_bad_input("unknown profile '" + s.profile + "'",
                    s.profile == "full" ? "use nightly: full selected the same cases and was removed"
                                        : "use quick or nightly");
  for (const std::string& name : {s.suite, s.exclude_suite}) {
    bool known = name.empty(), has_cases = name.empty();
    for (const SuiteInfo& t : suite_table()) known |= t.name == name;
    for (const Case& c : registry().cases()) has_cases |= c.suite == name;
    if (!known) throw_bad_input("unknown suite '" + name + "'", "`tandem list --suites` shows the suites");
    for (const SuiteInfo& t : suite_table())  // a suite of the table with no case in this build or setting
      if (t.name == name && !has_cases)
        throw_bad_input("suite '" + name + "' has no case here: " + t.what,
                        name == "program" ? "give your program with --program PATH" : "`tandem list --suites` says what each holds");
  }
  if (!s.program.path.empty()) {  // the user's program replaces the suites
    if (!s.suite.empty() || !s.exclude_suite.empty())
      throw_bad_input("--program runs the cases of your program, not a suite's", "leave out --suite / --exclude-suite");
    return imported_program_cases(s.program, s.filter);
  }
  auto cases = registry().select(s.profile, s.suite, s.filter);
  std::erase_if(cases, [&](const Case* c) { return c->suite == s.exclude_suite; });
  return cases;
}

std::vector<Device> selected_devices(const Selection& s) {
  if (s.backend == "cpu") return {Device::cpu()};
  if (s.backend == "cuda" || s.backend == "all") {
    require_usable_gpu(s.backend);
    if (s.backend == "cuda") return {Device::cuda(0)};
    return {Device::cpu(), Device::cuda(0)};
  }
  if (s.backend == "auto") {
    std::string why = cuda_unavailable_reason(0);
    if (why.empty()) return {Device::cpu(), Device::cuda(0)};
    if (is_writer_rank() && !is_case_worker()) std::cerr << "note: --backend auto: CUDA cases skipped: " << why << "\n";
    return {Device::cpu()};
  }
  throw_bad_input("unknown backend '" + s.backend + "'", "use cpu, cuda, all or auto");
}

std::string backend_name(Device d) { return d.kind == DeviceKind::cpu ? "cpu" : "cuda"; }

Device single_device(const std::string& command, const std::string& backend) {
  if (backend != "cpu" && backend != "cuda")
    throw_bad_input(cat(command, ": unknown backend '", backend, "'"), "use --backend cpu or --backend cuda");
  if (backend == "cpu") return Device::cpu();
  if (std::string why = cuda_unavailable_reason(0); !why.empty())
    throw_bad_input(cat(command, ": --backend cuda but ", why),
                    "use --backend cpu, or run on a machine with a usable GPU and a CUDA build");
  return Device::cuda(0);
}

}  // namespace tandem
