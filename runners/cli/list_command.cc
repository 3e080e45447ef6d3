// `tandem list`: cases of a profile, the suites, primitives, and the DotAlgorithm support table.
#include <iomanip>
#include <iostream>
#include <memory>

#include "engine/ir/primitive.h"
#include "engine/prims/dot_algorithm.h"
#include "runners/cli/commands.h"
#include "common/exit_codes.h"
#include "runners/cli/selection.h"
#include "suites/register_suites.h"

namespace tandem {
namespace {

struct ListArgs {
  Selection sel;
  bool algorithms = false, primitives = false, suites = false;
};

void print_algorithm_table() {
  std::cout << std::left << std::setw(30) << "preset" << std::setw(13) << "cpu" << std::setw(13)
            << "cuda" << "how (cpu | cuda)\n";
  for (const auto& info : all_algorithms()) {
    SupportEntry c = algorithm_support(info.algorithm, DeviceKind::cpu);
    SupportEntry g = algorithm_support(info.algorithm, DeviceKind::cuda);
    std::cout << std::setw(30) << info.name << std::setw(13) << support_name(c.support)
              << std::setw(13) << support_name(g.support) << c.how << " | " << g.how << "\n";
  }
}

int list(const ListArgs& a) {
  if (a.algorithms) { print_algorithm_table(); return exit_code::pass; }
  if (a.suites) {  // the suite table (suites/suites.def): name, then what it holds
    for (const SuiteInfo& t : suite_table()) std::cout << std::left << std::setw(13) << t.name << " " << t.what << "\n";
    return exit_code::pass;
  }
  if (a.primitives) {
    for (const std::string& n : primitive_names()) {
      const Primitive& p = primitive(n);
      std::cout << n << (p.cpu ? " cpu" : "") << (p.cuda ? " cuda" : "") << "\n";
    }
    return exit_code::pass;
  }
  auto cases = selected_cases(a.sel);
  for (const Case* c : cases) std::cout << c->name << "\n";
  std::cerr << cases.size() << " cases in profile " << a.sel.profile << "\n";
  return exit_code::pass;
}
}  // namespace

void add_list_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* cmd = app.add_subcommand("list", "list cases, suites, primitives or DotAlgorithm support");
  add_selection_options(*cmd, args->sel);
  cmd->add_flag("--algorithms", args->algorithms, "DotAlgorithm presets: native / emulated / unsupported per backend");
  cmd->add_flag("--primitives", args->primitives, "registered primitives and their backends");
  cmd->add_flag("--suites", args->suites, "the suites, one a line: its name, then what it holds (the one table of them)");
  cmd->callback([args, &exit_code] { exit_code = list(*args); });
}

}  // namespace tandem
