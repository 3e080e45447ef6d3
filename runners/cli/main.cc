// The tandem CLI: list | run | check | bench | lstm | report | gate | history | baseline.
// Errors at this boundary become one clear message with a hint and the exit-code contract.
#include <iostream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "common/exit_codes.h"
#include "runners/cli/commands.h"
#include "suites/register_suites.h"

namespace tandem {
void add_collectives_command(CLI::App& app, int& exit_code);  // runners/cli/collectives_command.cc
void add_lstm_command(CLI::App& app, int& exit_code);         // runners/cli/lstm_command.cc
}

int main(int argc, char** argv) {
  using namespace tandem;
  register_all_suites();  // every primitive, then every suite's cases
  // `tandem run collectives ...` is the sweep: the same as `tandem collectives ...`.
  std::vector<char*> args(argv, argv + argc);
  if (argc >= 3 && std::string(argv[1]) == "run" && std::string(argv[2]) == "collectives") {
    args.erase(args.begin() + 1);
    --argc;
    argv = args.data();
  }
  CLI::App app{"tandem: correctness and performance of JAX-style numerics, engine vs reference"};
  app.require_subcommand(1);
  int code = exit_code::pass;
  add_list_command(app, code);
  add_run_command(app, "run", /*timed=*/true, code);
  add_run_command(app, "check", /*timed=*/false, code);
  add_bench_command(app, code);
  add_python_commands(app, code);
  add_collectives_command(app, code);
  add_lstm_command(app, code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_code::bad_input;
  } catch (const Error& e) {
    std::cerr << "error: " << e.message() << "\n";
    if (!e.hint().empty()) std::cerr << "  hint: " << e.hint() << "\n";
    return e.kind() == ErrorKind::bad_input ? exit_code::bad_input : exit_code::infrastructure_error;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_code::infrastructure_error;
  }
  return code;
}
