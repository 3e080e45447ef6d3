// `tandem fuzz`: the differential program fuzzer (suites/program_fuzz/): random Programs over
// every registered primitive under random chains of vjp, vmap, checkpoint policies, scan and
// hoisting, engine against the reference; a disagreement is shrunk and written as a case.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "common/exit_codes.h"
#include "engine/core/faults.h"
#include "engine/ir/printer.h"
#include "harness/atomic_file.h"
#include "harness/out_dir_lock.h"
#include "runners/cli/case_workers.h"
#include "runners/cli/option_checks.h"
#include "suites/program_fuzz/fuzz_case_json.h"
#include "suites/program_fuzz/fuzz_driver.h"
#include "suites/program_fuzz/fuzz_each_fault.h"
#include "suites/program_fuzz/fuzz_shrink.h"

namespace tandem {
namespace {

struct FuzzArgs {
  fuzz::FuzzRunOptions run;
  std::vector<std::string> chains;
  std::optional<uint64_t> case_seed;
  std::string replay, as_chain;
  std::string inject;
  std::vector<std::string> inject_each;  // which of these faults the cases catch, in this process
  bool in_process = false;  // every case in this process, no case workers (a crash ends the run)
};

std::vector<std::string> chain_names() {
  std::vector<std::string> r;
  for (fuzz::ChainKind k : fuzz::kAllChains) r.push_back(fuzz::chain_name(k));
  return r;
}

int exit_of(int fuzz_code) {
  switch (fuzz_code) {
    case 0: return exit_code::pass;
    case 1: return exit_code::correctness_failure;
    default: return exit_code::inconclusive;
  }
}

// With --out, one checked case (--replay, --case-seed) is written there with the engine's and the
// reference's results, for tools/oracles/fuzz_case_vs_jax.py and for a findings row.
void write_checked_case(const FuzzArgs& a, const fuzz::FuzzCase& c, const std::string& what) {
  if (a.run.out_dir.empty()) return;
  std::filesystem::create_directories(a.run.out_dir);
  const std::string path = (std::filesystem::path(a.run.out_dir) / ("case-" + std::to_string(c.seed) + ".json")).string();
  write_file_atomically(path, fuzz::case_with_results(c, what).dump(1) + "\n");
  std::cout << "written: " << path << "\n";
}

int run(FuzzArgs& a) {
  if (!a.inject.empty()) inject_fault(a.inject);
  std::optional<OutDirLock> lock;  // one writer per folder, as `tandem run --out`; its workers write nothing there
  if (!a.run.out_dir.empty() && !is_case_worker()) lock.emplace(a.run.out_dir, "fuzz");
  if (!a.chains.empty()) {
    a.run.fuzz.chains.clear();
    for (const std::string& c : a.chains) a.run.fuzz.chains.push_back(fuzz::parse_chain(c));
  }
  if (!a.inject_each.empty()) return exit_of(fuzz::run_fuzz_each_fault(a.run, a.inject_each, std::cout));
  if (!a.replay.empty()) {
    fuzz::FuzzCase c = fuzz::read_case(a.replay);
    if (!a.as_chain.empty()) c = fuzz::rechain(c, fuzz::parse_chain(a.as_chain));
    std::cout << "chain " << fuzz::chain_name(c.chain.kind) << "\n" << to_string(c.program) << "\n";
    const int code = fuzz::replay_case(c, std::cout) ? exit_code::correctness_failure : exit_code::pass;
    write_checked_case(a, c, "replayed");
    return code;
  }
  if (a.case_seed) {
    // One case from its seed: print it and check it (what a failure's "seed" reproduces).
    const fuzz::FuzzCase c = fuzz::generate_case(*a.case_seed, a.run.fuzz);
    std::cout << "chain " << fuzz::chain_name(c.chain.kind) << "\n" << to_string(c.program) << "\n";
    const int code = fuzz::replay_case(c, std::cout) ? exit_code::correctness_failure : exit_code::pass;
    // A failing case is written shrunk, as a run writes its failures (a findings row's file).
    if (code != exit_code::pass && !a.run.out_dir.empty())
      write_checked_case(a, fuzz::shrink(c, [](const fuzz::FuzzCase& k) { return fuzz::failed(fuzz::check_case(k)); },
                                         a.run.shrink_budget), "shrunk");
    else write_checked_case(a, c, "regenerated");
    return code;
  }
  if (a.in_process) return exit_of(fuzz::run_fuzz(a.run, std::cout));
  if (const std::optional<CaseWorker> worker = case_worker_role()) {  // checks cases, the parent counts
    for (int64_t i = int64_t(worker->first); i < a.run.programs; ++i) {
      worker->begin(size_t(i));
      worker->done(fuzz::fuzz_one(a.run, i));
    }
    return exit_code::pass;
  }
  // Each case in a worker process: a case that crashes it (a segfault in the engine) is a
  // failing record naming its seed, and a new worker goes on with the next case.
  fuzz::FuzzTally tally(a.run);
  if (int code = run_in_workers(
          size_t(a.run.programs), [&](size_t, nlohmann::json rec) { tally.add(rec, std::cout); },
          [&](size_t i, const std::string& why) { return fuzz::crashed_case(a.run, int64_t(i), why); },
          default_case_limit_s(), [&] { return tally.should_stop(); }))
    return code;  // a worker failed before its first case and said why
  return exit_of(tally.finish(std::cout));
}

}  // namespace

void add_fuzz_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<FuzzArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fuzz", "differential program fuzzer: random Programs over every primitive under vjp / vmap / checkpoint / scan / "
              "hoisting, engine vs reference; a disagreement is shrunk and written as a replayable case (docs/FUZZING.md)");
  cmd->add_option("--seed", a->run.seed, "run seed (case i is generated from seed and i)")->capture_default_str();
  cmd->add_option("--programs", a->run.programs, "cases to generate")->check(CLI::Range(int64_t(1), int64_t(100000000)))
      ->capture_default_str();
  cmd->add_option("--seconds", a->run.seconds, "stop after this long (0: after --programs cases)")
      ->check(in_range(0.0, 7 * 86400.0, "give seconds in [0, 604800]; 0 runs --programs cases"))->capture_default_str();
  cmd->add_option("--chains", a->chains, "only these chains (comma-separated)")
      ->delimiter(',')->check(one_of(chain_names()));
  cmd->add_option("--eqns", a->run.fuzz.gen.eqns, "most equations at the top level of a program")
      ->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--max-failures", a->run.max_failures, "stop after this many disagreements")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_option("--out", a->run.out_dir,
                  "write fuzz_summary.json and the shrunk cases here (--case-seed: that case, shrunk if it fails; --replay: that case)");
  cmd->add_option("--sample-every", a->run.sample_every,
                  "with --out: also write every Nth agreeing case, for tools/oracles/fuzz_case_vs_jax.py (0: none)")
      ->check(CLI::Range(int64_t(0), int64_t(100000000)))->needs("--out");
  cmd->add_option("--case-seed", a->case_seed, "check the one case generated from this seed (a failure's \"seed\")");
  cmd->add_option("--replay", a->replay, "check the case a file holds (written by --out) again")->excludes("--case-seed");
  cmd->add_option("--as-chain", a->as_chain, "with --replay: under this chain instead (plain, vjp, hoist, hoist_vjp)")
      ->needs("--replay")->check(one_of(chain_names()));
  cmd->add_option("--inject", a->inject, "inject a named engine fault (`tandem faults --list`); also TANDEM_INJECT");
  cmd->add_option("--inject-each", a->inject_each,
                  "which of these faults (comma-separated) the cases catch: one line each, caught at its first failing "
                  "case or missed; the cases and their references made once for all, in this process")
      ->delimiter(',')->excludes("--inject")->excludes("--replay")->excludes("--case-seed");
  cmd->add_flag("--in-process", a->in_process,
                "check every case in this process, without case workers (a crash in a case then ends the run)");
  cmd->callback([a, &exit_code] { exit_code = run(*a); });
}

}  // namespace tandem
