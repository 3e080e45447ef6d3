// The CLI's option table as JSON, printed when TANDEM_OPTION_TABLE is set (undocumented, for
// runners/option_walk_test.py): read from the very CLI::App main builds, so an option is walked
// by being added. A Python door (report, gate ...) passes everything through: it is listed by
// name, and the test reads its options from reports/__main__.py's argparse parser.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

namespace tandem {

inline void option_rows(const CLI::App& app, const std::string& path, nlohmann::json& rows) {
  for (const CLI::Option* o : app.get_options())
    if (o->get_name() != "--help" && o->get_name() != "--version")  // CLI11's own, exit 0
      rows.push_back({{"sub", path}, {"name", o->get_name()}, {"positional", o->get_positional()},
                      {"takes_value", o->get_expected_max() != 0}, {"type", o->get_type_name()}});
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string p = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    if (sub->get_prefix_command()) rows.push_back({{"sub", p}, {"python", true}});
    else option_rows(*sub, p, rows);
  }
}

inline int print_option_table(const CLI::App& app) {
  nlohmann::json rows = nlohmann::json::array();
  option_rows(app, "", rows);
  std::cout << rows.dump(1) << "\n";
  return 0;
}

}  // namespace tandem
