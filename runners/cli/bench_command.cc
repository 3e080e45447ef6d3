// `tandem bench`: times the selected cases with Google Benchmark (its flags pass through
// after `--`, e.g. `tandem bench --suite dot -- --benchmark_out=b.json`). Each case is
// checked once before it is timed; a case that fails its check is not benchmarked. Each
// iteration is timed as `tandem run` times a repetition (time_once: wall clock on the CPU,
// CUDA events on a GPU) and cpu_time is the process CPU time, so the names and numbers
// match `tandem run`'s benchmark.json: Google Benchmark's "/process_time/manual_time" name
// suffixes are taken off in the reporters. The flags are checked (gbench_flags.h) before any
// case runs, and a filter that matches no benchmark is bad input, not an empty success.
// The checks run in case workers (case_workers.h), so a case that crashes or hangs in its
// check is an error (exit 5 when nothing failed), not the end of the run; the passing cases
// are then timed in this process.
#include <benchmark/benchmark.h>

#include <iostream>
#include <memory>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "harness/harness.h"
#include "harness/timing.h"
#include "runners/cli/case_workers.h"
#include "runners/cli/commands.h"
#include "runners/cli/gbench_flags.h"
#include "runners/cli/selection.h"

namespace tandem {
namespace {

// A Google Benchmark reporter that reports runs under their case names alone.
template <class Reporter>
class CaseNamedReporter : public Reporter {
 public:
  using Reporter::Reporter;
  void ReportRuns(const std::vector<benchmark::BenchmarkReporter::Run>& runs) override {
    std::vector<benchmark::BenchmarkReporter::Run> named = runs;
    for (auto& r : named) r.run_name.time_type.clear();
    Reporter::ReportRuns(named);
  }
};

// The reporter for one --benchmark_format / --benchmark_out_format value (checked already).
std::unique_ptr<benchmark::BenchmarkReporter> make_reporter(const std::string& format, bool to_file) {
  if (format == "json") return std::make_unique<CaseNamedReporter<benchmark::JSONReporter>>();
  BENCHMARK_DISABLE_DEPRECATED_WARNING
  if (format == "csv") return std::make_unique<CaseNamedReporter<benchmark::CSVReporter>>();
  BENCHMARK_RESTORE_DEPRECATED_WARNING
  return std::make_unique<CaseNamedReporter<benchmark::ConsoleReporter>>(
      to_file ? benchmark::ConsoleReporter::OO_None : benchmark::ConsoleReporter::OO_Defaults);
}

struct BenchArgs {
  Selection sel;
  std::vector<std::string> gbench_flags;
  double case_timeout_s = -1;  // --case-timeout (case_workers.h); <0: the default
};

struct BenchSlot {
  const Case* c;
  Device d;
  std::string name() const { return c->name + "/" + backend_name(d); }
};

// A slot's check (not timed), as the line a case worker sends: its verdict and message.
nlohmann::json check_record(const BenchSlot& s) {
  RunOptions check_only;
  check_only.device = s.d;
  check_only.time = false;
  const CaseResult r = run_case(*s.c, check_only);
  return {{"verdict", verdict_name(r.verdict)}, {"message", r.message}};
}

// Every slot's check, each in a case worker as `tandem run` runs them (case_workers.h): a
// case that crashes or hangs is that case's error, and the others are still checked.
// Returns the worker's exit code when one failed before any case, else 0.
int check_in_workers(const std::vector<BenchSlot>& slots, double limit_s, std::vector<nlohmann::json>& checked) {
  checked.assign(slots.size(), nlohmann::json());
  return run_in_workers(
      slots.size(), [&](size_t i, nlohmann::json rec) { checked[i] = std::move(rec); },
      [](size_t, const std::string& why) {
        return nlohmann::json{{"verdict", "error"}, {"message", why + "; tandem went on with the next case in a new process"}};
      },
      limit_s);
}

int bench(const BenchArgs& a) {
  const GbenchFlags flags = check_gbench_flags(a.gbench_flags);  // before any case runs
  auto cases = selected_cases(a.sel);
  if (cases.empty()) throw_bad_input("no case matches the selection", "`tandem list` shows the cases");
  std::vector<BenchSlot> slots;
  for (const Case* c : cases)
    for (Device d : selected_devices(a.sel)) slots.push_back({c, d});
  if (const std::optional<CaseWorker> worker = case_worker_role()) {  // checks cases, the parent benchmarks
    for (size_t i = worker->first; i < slots.size(); ++i) {
      worker->begin(i);
      worker->done(check_record(slots[i]));
    }
    return exit_code::pass;
  }
  std::vector<nlohmann::json> checked;
  if (int code = check_in_workers(slots, a.case_timeout_s >= 0 ? a.case_timeout_s : default_case_limit_s(), checked))
    return code;  // a worker failed before its first case and said why
  int failures = 0, errors = 0;
  std::vector<std::shared_ptr<CaseInstance>> keep;
  for (size_t i = 0; i < slots.size(); ++i) {
    const std::string name = slots[i].name(), verdict = checked[i]["verdict"].get<std::string>();
    const Device d = slots[i].d;
    if (verdict != verdict_name(Verdict::pass)) {
      std::cerr << name << ": " << verdict << " — not benchmarked\n" << checked[i]["message"].get<std::string>() << "\n";
      failures += verdict == verdict_name(Verdict::fail);
      errors += verdict == verdict_name(Verdict::error);
      continue;
    }
    auto inst = std::make_shared<CaseInstance>(slots[i].c->instantiate(d));
    keep.push_back(inst);
    double flops = slots[i].c->flops;
    benchmark::RegisterBenchmark(name.c_str(), [inst, flops, d](benchmark::State& st) {
      for (auto _ : st) st.SetIterationTime(time_once(inst->body, d));
      if (flops > 0) st.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
    })->UseManualTime()->MeasureProcessCPUTime()->Unit(benchmark::kNanosecond);
  }
  if (keep.empty()) {  // every selected case failed or skipped its check: nothing to time
    std::cerr << "bench: no case passed its check, nothing benchmarked\n";
    return failures ? exit_code::correctness_failure : errors ? exit_code::infrastructure_error : exit_code::pass;
  }
  std::vector<char*> argv;
  std::string prog = "tandem-bench";
  argv.push_back(prog.data());
  std::vector<std::string> gflags = a.gbench_flags;
  for (std::string& f : gflags) argv.push_back(f.data());
  int argc = int(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data()))  // the table and the library disagree
    throw_bad_input("unrecognised Google Benchmark flag", "pass --benchmark_* flags after `--`");
  auto display = make_reporter(flags.format, false);
  auto file = flags.out.empty() ? nullptr : make_reporter(flags.out_format, true);
  const size_t ran = benchmark::RunSpecifiedBenchmarks(display.get(), file.get());
  benchmark::Shutdown();
  if (ran == 0)
    throw_bad_input(cat("bench: --benchmark_filter=", flags.filter, " matches none of the ", keep.size(),
                        " benchmark(s), nothing benchmarked"),
                    "benchmark names are case/backend, e.g. dot/.../cpu; list them with "
                    "`tandem bench ... -- --benchmark_list_tests`, or filter cases with --filter");
  return failures ? exit_code::correctness_failure : errors ? exit_code::infrastructure_error : exit_code::pass;
}
}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "time cases with Google Benchmark (flags after --)");
  add_selection_options(*cmd, args->sel);
  add_case_timeout_option(*cmd, args->case_timeout_s);
  cmd->add_option("gbench_flags", args->gbench_flags, "Google Benchmark flags")->take_all();
  cmd->callback([args, &exit_code] { exit_code = bench(*args); });
}

}  // namespace tandem
