// Run / check implementation.
#include "runners/cli/run_command.h"

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "engine/core/rank_env.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "runners/cli/option_checks.h"
#include "common/exit_codes.h"
#include "runners/cli/selection.h"
#include "suites/common/gbench_json.h"
#include "suites/common/harness.h"
#include "suites/common/out_dir_lock.h"
#include "suites/common/records.h"
#include "suites/common/timing.h"

namespace tandem {
namespace {

struct RunArgs {
  Selection sel;
  std::string out = "results";
  int repetitions = 5;
  int warmup = 1;
  double min_time = 0.0;
  bool quiet = false;
  std::string inject;  // a fault to inject (engine/core/faults.h), "" for none
};

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

int run(const RunArgs& a, bool timed) {
  auto cases = selected_cases(a.sel);
  auto devices = selected_devices(a.sel);
  if (cases.empty())
    throw_bad_input("no case matches the selection", "`tandem list --profile " + a.sel.profile + "` shows the cases");
  if (a.repetitions < 1) throw_bad_input("--repetitions must be >= 1");
  RecordWriter writer(a.out + "/records.json");
  // Under mpirun/srun every rank runs every case, but only rank 0 prints and writes files.
  const bool writes = is_writer_rank();
  // A second run into the same --out would interleave its records with this one's (issue 20 #14).
  std::optional<OutDirLock> lock;
  if (writes) lock.emplace(a.out, "run");
  if (const FaultInfo* f = injected_fault(); f && writes)
    std::cerr << "FAULT INJECTED: " << f->name << " (" << f->mimics << "): results are an experiment, not a verdict\n";
  std::vector<nlohmann::json> unwritten;
  int counts[4] = {0, 0, 0, 0};
  size_t total = cases.size() * devices.size(), done = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (const Case* c : cases)
    for (Device d : devices) {
      RunOptions opts;
      opts.device = d;
      opts.time = timed;
      opts.repetitions = a.repetitions;
      opts.warmup = a.warmup;
      opts.min_time_s = a.min_time;
      CaseResult r = run_case(*c, opts);
      counts[int(r.verdict)]++;
      nlohmann::json rec = make_record(*c, backend_name(d), d.str(), r);
      if (writes) writer.add(std::move(rec)); else unwritten.push_back(std::move(rec));
      ++done;
      if (!a.quiet && writes) {
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cerr << "[" << done << "/" << total << " " << fmt_double(el, 3) << "s] " << c->name << "/"
                  << backend_name(d) << " " << verdict_name(r.verdict);
        if (!r.samples_s.empty()) std::cerr << " " << fmt_double(summarize(r.samples_s).median * 1e3) << " ms";
        std::cerr << "\n";
        if (r.verdict == Verdict::fail || r.verdict == Verdict::error) std::cerr << r.message << "\n";
      }
    }
  std::string md = summary_markdown(writes ? writer.records() : unwritten, counts);
  if (writes) {
    writer.finish();
    write_file_atomically(a.out + "/summary.md", md);
    write_file_atomically(a.out + "/benchmark.json", google_benchmark_json(writer.records()).dump(1) + "\n");
    if (!a.quiet) std::cout << md;
    std::cout << counts[0] << " passed, " << counts[1] << " failed, " << counts[2] << " skipped\n";
    std::cerr << "records: " << a.out << "/records.json  summary: " << a.out << "/summary.md\n";
  }
  if (counts[1] > 0) return exit_code::correctness_failure;
  if (counts[3] > 0) return exit_code::infrastructure_error;
  return exit_code::pass;
}

}  // namespace

void add_run_command(CLI::App& app, const std::string& name, bool timed, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      name, timed ? "check every selected case against the reference, then time it"
                  : "check every selected case against the reference (no timing)");
  add_selection_options(*cmd, args->sel);
  cmd->add_option("--out,-o", args->out, "directory for records.json, benchmark.json, summary.md");
  cmd->add_flag("--quiet,-q", args->quiet, "no progress lines or table");
  if (timed) {
    cmd->add_option("--repetitions,-n", args->repetitions, "timed repetitions per case (default 5)")
        ->check(in_range(1, 1e6, "-n counts timed repetitions per case: at least 1, e.g. 5"));
    cmd->add_option("--warmup,-w", args->warmup, "untimed warm-up runs (default 1)")
        ->check(in_range(0, 1e6, "-w counts untimed warm-up runs: 0 or more"));
    cmd->add_option("--min-time", args->min_time, "repeat until this many seconds are measured")
        ->check(in_range(0, 3600, "--min-time is seconds of measured time per case, e.g. 0.5"));
  }
  cmd->add_option("--inject", args->inject, "inject a named engine fault (`tandem faults --list`); also TANDEM_INJECT");
  cmd->callback([args, timed, &exit_code] {
    if (!args->inject.empty()) inject_fault(args->inject);
    exit_code = run(*args, timed);
  });
}

}  // namespace tandem
