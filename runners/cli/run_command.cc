// Run / check implementation.
#include "runners/cli/run_command.h"

#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/core/rank_env.h"
#include "harness/gbench_json.h"
#include "harness/harness.h"
#include "harness/out_dir_lock.h"
#include "harness/rank_lockstep.h"
#include "harness/records.h"
#include "harness/timing.h"
#include "runners/cli/case_workers.h"
#include "runners/cli/option_checks.h"
#include "runners/cli/run_progress.h"
#include "runners/cli/selection.h"

namespace tandem {
namespace {

struct RunArgs {
  Selection sel;
  std::string out = "results";
  int repetitions = 5;
  int warmup = 1;
  double min_time = 0.0;
  bool quiet = false;
  bool verbose = false;  // a progress line per case, and the summary table on stdout
  std::string inject;  // a fault to inject (engine/core/faults.h), "" for none
  double watchdog_s = 300;  // under a launcher: seconds a rank may wait for the others
  bool in_process = false;  // every case in this process, no case workers (a crash ends the run)
  double case_timeout_s = -1;  // seconds a case may run in its worker; 0: no limit; <0: the default
};

// The per-case limit: --case-timeout, else the default (case_workers.h) plus the time
// --min-time asks each case to be measured for.
double case_limit_s(const RunArgs& a, bool timed) {
  if (a.case_timeout_s >= 0) return a.case_timeout_s;
  return default_case_limit_s() + (timed ? 2 * a.min_time : 0.0);
}

// What decides the sequence of lockstep calls: ranks must agree on it before the first case.
std::string run_signature(const RunArgs& a, bool timed, const std::vector<const Case*>& cases,
                          const std::vector<Device>& devices) {
  nlohmann::json names = nlohmann::json::array(), devs = nlohmann::json::array();
  for (const Case* c : cases) names.push_back(c->name);
  for (Device d : devices) devs.push_back(d.str());
  return nlohmann::json{{"timed", timed}, {"repetitions", a.repetitions}, {"warmup", a.warmup},
                        {"min_time", a.min_time}, {"devices", devs}, {"cases", names}}.dump();
}

std::string fmt_double(double v, int prec = 3) {
  std::ostringstream os;
  os << std::setprecision(prec) << v;
  return os.str();
}

// The worst error/tolerance ratio over a record's outputs, for the table.
std::string worst_ratio(const nlohmann::json& correctness) {
  double worst = -1;
  std::function<void(const nlohmann::json&)> visit = [&](const nlohmann::json& j) {
    if (!j.is_object()) return;
    if (j.contains("error_over_tolerance") && j["error_over_tolerance"].is_number())
      worst = std::max(worst, j["error_over_tolerance"].get<double>());
    for (auto& [k, v] : j.items()) visit(v);
  };
  visit(correctness);
  return worst < 0 ? "-" : fmt_double(worst, 2);
}

std::string summary_markdown(const std::vector<nlohmann::json>& recs, int counts[4]) {
  std::ostringstream os;
  os << "# tandem summary\n\n" << counts[0] << " passed, " << counts[1] << " failed, " << counts[2]
     << " skipped, " << counts[3] << " errors\n\n"
     << "| case | verdict | err/tol | median | GFLOP/s | note |\n|---|---|---|---|---|---|\n";
  for (const auto& r : recs) {
    std::string median = "-", gflops = "-";
    if (r.contains("timing")) median = fmt_double(r["timing"]["median"].get<double>() * 1e3) + " ms";
    for (const auto& m : r["metrics"])
      if (m["name"] == "gflops") gflops = fmt_double(m["value"].get<double>(), 4);
    std::string note = r["message"].get<std::string>();
    if (auto nl = note.find('\n'); nl != std::string::npos) note = note.substr(0, nl);
    if (note.size() > 90) note = note.substr(0, 87) + "...";
    for (char& c : note) if (c == '|') c = '/';
    os << "| " << r["case"].get<std::string>() << " | " << r["verdict"].get<std::string>() << " | "
       << worst_ratio(r["correctness"]) << " | " << median << " | " << gflops << " | " << note << " |\n";
  }
  return os.str();
}

// An earlier run's outputs go before this run's first record: a run killed
// midway never leaves its records beside the last run's benchmark.json. Derived files first,
// records.json last, so a kill in between leaves one run's files, never two runs' mixed.
void remove_stale_outputs(const std::string& out) {
  for (const char* f : {"benchmark.json", "summary.md", "records.json"}) std::filesystem::remove(out + "/" + f);
}

struct Slot {
  const Case* c;
  Device d;
};

// One case on one device, checked (and timed), as its record: in this process, or in a case
// worker (case_workers.h); on several ranks, agreed with the other ranks first.
nlohmann::json slot_record(const RunArgs& a, bool timed, const Slot& s, RankLockstep* lockstep) {
  RunOptions opts;
  opts.device = s.d;
  opts.time = timed;
  opts.repetitions = a.repetitions;
  opts.warmup = a.warmup;
  opts.min_time_s = a.min_time;
  const std::string name = s.c->name + "/" + backend_name(s.d);
  nlohmann::json ranks;
  if (lockstep) opts.before_timing = [&](const CaseResult& mine) { return lockstep->agree_to_time(name, mine); };
  CaseResult r = run_case(*s.c, opts);
  if (lockstep) r = lockstep->agree_result(name, r, s.c->flops, &ranks);
  nlohmann::json rec = make_record(*s.c, backend_name(s.d), s.d.str(), r);
  if (lockstep) {  // a timing over N ranks is a case of its own, never gated against one rank's
    rec["case"] = name + "/ranks:" + std::to_string(lockstep->size());
    rec["params"]["ranks"] = lockstep->size();
    rec["context"]["ranks"] = lockstep->size();
    // A fault injected on any rank marks the record, as a single-rank run's context does.
    if (ranks.contains("injected_faults") && !rec["context"].contains("injected_fault"))
      rec["context"]["injected_fault"] = ranks["injected_faults"].begin().value();
    rec["multi_rank"] = ranks;
  }
  return rec;
}

// The record of a case whose worker died in it: an infrastructure error, the run goes on.
nlohmann::json crash_record(const Slot& s, const std::string& why) {
  CaseResult r;
  r.verdict = Verdict::error;
  r.message = why + "; tandem went on with the next case in a new process (to debug it: this case alone, "
                    "`--filter` on its name, with --in-process under gdb)";
  return make_record(*s.c, backend_name(s.d), s.d.str(), r);
}

int run(const RunArgs& a, bool timed) {
  auto cases = selected_cases(a.sel);
  auto devices = selected_devices(a.sel);
  if (cases.empty())
    throw_bad_input("no case matches the selection", "`tandem list --profile " + a.sel.profile + "` shows the cases");
  if (a.repetitions < 1) throw_bad_input("--repetitions must be >= 1");
  std::vector<Slot> slots;
  for (const Case* c : cases)
    for (Device d : devices) slots.push_back({c, d});
  if (const std::optional<CaseWorker> worker = case_worker_role()) {  // runs cases, the parent writes
    for (size_t i = worker->first; i < slots.size(); ++i) {
      worker->begin(i);
      worker->done(slot_record(a, timed, slots[i], nullptr));
    }
    return exit_code::pass;
  }
  RecordWriter writer(a.out + "/records.json");
  // Under mpirun/srun with more than one rank the ranks run in lockstep and rank 0 writes
  // the agreed records (harness/rank_lockstep.h); without MPI every rank runs alone
  // and only rank 0 prints and writes files.
  std::unique_ptr<RankLockstep> lockstep;
  if (launched_multi_rank()) {
    lockstep = std::make_unique<RankLockstep>(a.watchdog_s);
    lockstep->agree_on_run(run_signature(a, timed, cases, devices));
  }
  const bool writes = lockstep ? lockstep->rank() == 0 : is_writer_rank();
  if (lockstep)  // a bad --out fails every rank at once, not rank 0 alone after the first case
    lockstep->agree_on([&] { if (writes) std::filesystem::create_directories(a.out); });
  // A second run into the same --out would interleave its records with this one's.
  std::optional<OutDirLock> lock;
  auto take_out = [&] { lock.emplace(a.out, "run"); remove_stale_outputs(a.out); };
  if (lockstep) lockstep->agree_on([&] { if (writes) take_out(); });
  else if (writes) take_out();
  auto record_of = [&](size_t i) { return slot_record(a, timed, slots[i], lockstep.get()); };
  if (const FaultInfo* f = injected_fault(); f && (writes || lockstep))
    std::cerr << ("FAULT INJECTED" + (lockstep ? " on rank " + std::to_string(lockstep->rank()) : std::string()) +
                  ": " + f->name + " (" + f->mimics + "): results are an experiment, not a verdict\n");
  std::vector<nlohmann::json> unwritten;
  int counts[4] = {0, 0, 0, 0};
  std::vector<std::string> slot_suites;
  for (const Slot& s : slots) slot_suites.push_back(s.c->suite);
  RunProgress progress(slot_suites, a.verbose, stderr_is_terminal());
  auto take = [&](nlohmann::json rec) {  // counts, keeps and prints one finished case
    const std::string verdict = rec["verdict"].get<std::string>();
    int v = int(Verdict::error);  // the verdict's index, by case.h's own names
    for (Verdict x : {Verdict::pass, Verdict::fail, Verdict::skip})
      if (verdict == verdict_name(x)) v = int(x);
    counts[v]++;
    if (!a.quiet && writes) progress.on_record(rec);
    if (writes) writer.add(std::move(rec)); else unwritten.push_back(std::move(rec));
  };
  if (lockstep || a.in_process) {
    for (size_t i = 0; i < slots.size(); ++i) take(record_of(i));
  } else if (int code = run_in_workers(slots.size(), [&](size_t, nlohmann::json rec) { take(std::move(rec)); },
                                       [&](size_t i, const std::string& why) { return crash_record(slots[i], why); },
                                       case_limit_s(a, timed))) {
    return code;  // a worker failed before its first case and said why
  }
  std::string md = summary_markdown(writes ? writer.records() : unwritten, counts);
  if (writes) {
    writer.finish();
    write_file_atomically(a.out + "/summary.md", md);
    write_file_atomically(a.out + "/benchmark.json", google_benchmark_json(writer.records()).dump(1) + "\n");
    if (a.verbose && !a.quiet) std::cout << md;
    std::cout << "total: " << counts[0] << " passed, " << counts[1] << " failed, " << counts[2] << " skipped, " << counts[3] << " errors\n";
    std::cerr << "records: " << a.out << "/records.json  summary: " << a.out << "/summary.md\n";
  }
  if (counts[1] > 0) return exit_code::correctness_failure;
  if (counts[3] > 0) return exit_code::infrastructure_error;
  return exit_code::pass;
}

}  // namespace

void add_run_command(CLI::App& app, const std::string& name, bool timed, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(name, timed ? "check every selected case against the reference, then time it"
                                                 : "check every selected case against the reference (no timing)");
  add_selection_options(*cmd, args->sel);
  cmd->add_option("--out,-o", args->out, "directory for records.json, benchmark.json, summary.md");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress on stderr");
  cmd->add_flag("--verbose,-v", args->verbose,
                "a line per case on stderr and the summary table on stdout (default: a line per suite and per failure)");
  if (timed) {
    cmd->add_option("--repetitions,-n", args->repetitions, "timed repetitions per case (default 5)")
        ->check(in_range(1, 1e6, "-n counts timed repetitions per case: at least 1, e.g. 5"));
    cmd->add_option("--warmup,-w", args->warmup, "untimed warm-up runs (default 1)")
        ->check(in_range(0, 1e6, "-w counts untimed warm-up runs: 0 or more"));
    cmd->add_option("--min-time", args->min_time, "repeat until this many seconds are measured")
        ->check(in_range(0, 3600, "--min-time is seconds of measured time per case, e.g. 0.5"));
  }
  cmd->add_option("--watchdog-timeout", args->watchdog_s,
                  "under mpirun/srun: seconds a rank may wait for the others before the job aborts (exit 5; default 300)")
      ->check(in_range(1, 86400, "seconds a rank may wait in a barrier or gather before the job aborts, e.g. 300"));
  cmd->add_flag("--in-process", args->in_process,
                "run every case in this process, not in a case worker (then a crashing case ends the run; for debuggers)");
  add_case_timeout_option(*cmd, args->case_timeout_s);
  cmd->add_option("--inject", args->inject, "inject a named engine fault (`tandem faults --list`); also TANDEM_INJECT");
  cmd->callback([args, timed, &exit_code] {
    if (!args->inject.empty()) inject_fault(args->inject);
    args->sel.program.time_effects = timed;
    exit_code = run(*args, timed);
  });
}

}  // namespace tandem
