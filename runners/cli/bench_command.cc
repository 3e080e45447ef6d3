// `tandem bench`: times the selected cases with Google Benchmark (its flags pass through
// after `--`, e.g. `tandem bench --suite dot -- --benchmark_out=b.json`). Each case is
// checked once before it is timed; a case that fails its check is not benchmarked.
#include <benchmark/benchmark.h>

#include <iostream>
#include <memory>

#include "engine/core/error.h"
#include "runners/cli/commands.h"
#include "common/exit_codes.h"
#include "runners/cli/selection.h"
#include "suites/common/harness.h"

namespace tandem {
namespace {

struct BenchArgs {
  Selection sel;
  std::vector<std::string> gbench_flags;
};

int bench(const BenchArgs& a) {
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
      benchmark::RegisterBenchmark(name.c_str(), [inst, flops](benchmark::State& st) {
        for (auto _ : st) inst->body();
        if (flops > 0)
          st.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
      })->UseRealTime()->Unit(benchmark::kMillisecond);
    }
  std::vector<char*> argv;
  std::string prog = "tandem-bench";
  argv.push_back(prog.data());
  std::vector<std::string> flags = a.gbench_flags;
  for (std::string& f : flags) argv.push_back(f.data());
  int argc = int(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data()))
    throw_bad_input("unrecognised Google Benchmark flag", "pass --benchmark_* flags after `--`");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
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
