// `tandem bench`: times the selected cases with Google Benchmark (its flags pass through
// after `--`, e.g. `tandem bench --suite dot -- --benchmark_out=b.json`). Each case is
// checked once before it is timed; a case that fails its check is not benchmarked. Each
// iteration is timed as `tandem run` times a repetition (time_once: wall clock on the CPU,
// CUDA events on a GPU) and cpu_time is the process CPU time, so the names and numbers
// match `tandem run`'s benchmark.json: Google Benchmark's "/process_time/manual_time" name
// suffixes are taken off in the reporters. The flags are checked (gbench_flags.h) before any
// case runs, and a filter that matches no benchmark is bad input, not an empty success.
#include <benchmark/benchmark.h>

#include <iostream>
#include <memory>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "harness/harness.h"
#include "harness/timing.h"
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
};

int bench(const BenchArgs& a) {
  const GbenchFlags flags = check_gbench_flags(a.gbench_flags);  // before any case runs
  auto cases = selected_cases(a.sel);
  if (cases.empty()) throw_bad_input("no case matches the selection", "`tandem list` shows the cases");
  int failures = 0;
  std::vector<std::shared_ptr<CaseInstance>> keep;
  for (const Case* c : cases)
    for (Device d : selected_devices(a.sel)) {
      std::string name = c->name + "/" + backend_name(d);
      RunOptions check_only;
      check_only.device = d;
      check_only.time = false;
      CaseResult r = run_case(*c, check_only);
      if (r.verdict != Verdict::pass) {
        std::cerr << name << ": " << verdict_name(r.verdict) << " — not benchmarked\n" << r.message << "\n";
        failures += r.verdict == Verdict::fail;
        continue;
      }
      auto inst = std::make_shared<CaseInstance>(c->instantiate(d));
      keep.push_back(inst);
      double flops = c->flops;
      benchmark::RegisterBenchmark(name.c_str(), [inst, flops, d](benchmark::State& st) {
        for (auto _ : st) st.SetIterationTime(time_once(inst->body, d));
        if (flops > 0)
          st.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
      })->UseManualTime()->MeasureProcessCPUTime()->Unit(benchmark::kNanosecond);
    }
  if (keep.empty()) {  // every selected case failed or skipped its check: nothing to time
    std::cerr << "bench: no case passed its check, nothing benchmarked\n";
    return failures ? exit_code::correctness_failure : exit_code::pass;
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
  return failures ? exit_code::correctness_failure : exit_code::pass;
}
}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "time cases with Google Benchmark (flags after --)");
  add_selection_options(*cmd, args->sel);
  cmd->add_option("gbench_flags", args->gbench_flags, "Google Benchmark flags")->take_all();
  cmd->callback([args, &exit_code] { exit_code = bench(*args); });
}

}  // namespace tandem
