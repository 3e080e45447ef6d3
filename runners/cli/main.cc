// The tandem CLI: list | run | check | bench | collectives | collectives-dump | lstm | dot | dump-programs | fuzz | import | report | gate | history | baseline.
// Errors at this boundary become one clear message with a hint and the exit-code contract.
#include <iostream>
#include <string>
#include <vector>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/core/rank_env.h"
#include "harness/context.h"
#include "harness/error_outcome.h"
#include "runners/cli/case_workers.h"
#include "runners/cli/commands.h"
#include "runners/cli/option_checks.h"
#include "suites/register_suites.h"
#ifdef TANDEM_HAVE_MPI
#include "engine/comm/job.h"
#endif

namespace tandem {
void add_collectives_command(CLI::App& app, int& exit_code);  // runners/cli/collectives_command.cc
void add_lstm_command(CLI::App& app, int& exit_code);         // runners/cli/lstm_command.cc
void add_dot_command(CLI::App& app, int& exit_code);          // runners/cli/dot_command.cc
void add_faults_command(CLI::App& app, int& exit_code);       // runners/cli/faults_command.cc
void add_dump_programs_command(CLI::App& app, int& exit_code);  // runners/cli/dump_programs_command.cc
void add_collectives_dump_command(CLI::App& app, int& exit_code);  // runners/cli/coll_dump_command.cc
void add_fuzz_command(CLI::App& app, int& exit_code);         // runners/cli/fuzz_command.cc
}

namespace {
// `tandem run collectives` once meant the sweep while `tandem run --suite collectives` meant the
// suite's cases. Now a suite is only ever chosen with --suite and the sweep is
// `tandem collectives`: a suite name given as a word to run/check/bench/list is bad input
// that names both commands, never a silent choice of one.
int reject_suite_as_word(int argc, char** argv) {
  if (argc < 3) return 0;
  const std::string cmd = argv[1], word = argv[2];
  if ((cmd != "run" && cmd != "check" && cmd != "bench" && cmd != "list") || word.empty() || word[0] == '-') return 0;
  std::cerr << "error: `tandem " << cmd << " " << word << "`: " << cmd << " takes no suite name as a word\n"
            << "  hint: `tandem " << cmd << " --suite " << word << "` runs that suite's cases";
  if (word == "collectives") std::cerr << "; the nccl-tests-style sweep is `tandem collectives -b 1K -e 16M --ops psum`";
  std::cerr << "\n";
  return tandem::exit_code::bad_input;
}

// CLI11 answers an unknown word in the subcommand's place with "A subcommand is required":
// name the word and list the subcommands instead.
int reject_unknown_subcommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return 0;
  std::string names;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == argv[1]) return 0;
    names += (names.empty() ? "" : " | ") + sub->get_name();
  }
  std::cerr << "error: unknown subcommand '" << argv[1] << "'\n  hint: tandem takes one of " << names
            << " (`tandem --help` says what each does)\n";
  return tandem::exit_code::bad_input;
}

// Under a launcher every rank ends through the agreed end of the job (engine/comm/job.h): a
// rank whose peers never get there aborts the job (exit 5) instead of waiting forever in
// MPI_Finalize. An error is reported with the rank that hit it.
int finish(int code) {
#ifdef TANDEM_HAVE_MPI
  return tandem::comm::end_job(code);
#else
  return code;
#endif
}
std::string who() {
  const int r = tandem::launcher_rank();
  return r < 0 ? "" : " on rank " + std::to_string(r) + " (host " + tandem::host_name() + ")";
}
}  // namespace

int main(int argc, char** argv) {
  using namespace tandem;
  register_all_suites();  // every primitive, then every suite's cases
  save_invocation(argc, argv);  // run / check start their case workers with these (case_workers.h)
  if (int code = reject_suite_as_word(argc, argv)) return code;
  CLI::App app{"tandem: correctness and performance of JAX-style numerics, engine vs reference"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    return std::string("tandem ") + TANDEM_VERSION + " (git " + run_context()["git_sha"].get<std::string>() + ")";
  });
  int code = exit_code::pass;
  add_list_command(app, code);
  add_run_command(app, "run", /*timed=*/true, code);
  add_run_command(app, "check", /*timed=*/false, code);
  add_bench_command(app, code);
  add_python_commands(app, code);
  add_collectives_command(app, code);
  add_lstm_command(app, code);
  add_dot_command(app, code);
  add_faults_command(app, code);
  add_dump_programs_command(app, code);
  add_collectives_dump_command(app, code);
  add_fuzz_command(app, code);
  check_every_option(app);  // runners/cli/option_checks.h
  if (std::getenv("TANDEM_OPTION_TABLE")) return print_option_table(app);  // option_walk_test.py
  if (int bad = reject_unknown_subcommand(app, argc, argv)) return bad;
  try {
    inject_fault_from_env();  // TANDEM_INJECT (an unknown name is bad input, exit 4)
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // with a hint: check_every_option set the failure message
    return exit_code::bad_input;
  } catch (const Error& e) {
    // One write per message: ranks share the launcher's stderr, so pieces would interleave.
    std::cerr << ("error" + who() + ": " + e.message() + "\n" + (e.hint().empty() ? "" : "  hint: " + e.hint() + "\n"));
    std::cerr.flush();
    return finish(error_outcome(e.kind()).exit_code);  // harness/error_outcome.h
  } catch (const std::exception& e) {
    std::cerr << ("error" + who() + ": " + e.what() + "\n");
    std::cerr.flush();
    return finish(exit_code::infrastructure_error);
  }
  return finish(code);
}
