// Google Benchmark JSON from records. The machine part of the context (num_cpus,
// mhz_per_cpu, caches, scaling) is Google Benchmark's own CPUInfo, as its reporter writes it.
#include "harness/gbench_json.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "harness/context.h"
#include "harness/timing.h"

namespace tandem {
namespace {

std::vector<double> seconds(const nlohmann::json& timing, const char* key) {
  std::vector<double> v;
  if (timing.contains(key))
    for (const auto& x : timing[key]) v.push_back(x.is_number() ? x.get<double>() : NAN);
  return v;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / double(v.size());
}

double stddev_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = mean_of(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size() - 1));
}

nlohmann::json machine_context(const nlohmann::json& ctx) {
  const benchmark::CPUInfo& cpu = benchmark::CPUInfo::Get();
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : cpu.caches)
    caches.push_back({{"type", c.type}, {"level", c.level}, {"size", c.size}, {"num_sharing", c.num_sharing}});
  return {{"date", ctx.value("date", "")},
          {"host_name", ctx.value("host", "")},
          {"executable", ctx.value("command_line", "tandem")},
          {"num_cpus", cpu.num_cpus},
          {"mhz_per_cpu", int(std::lround(cpu.cycles_per_second / 1e6))},
          {"cpu_scaling_enabled", cpu.scaling == benchmark::CPUInfo::ENABLED},
          {"caches", caches},
          {"load_avg", ctx.value("load_avg_start", nlohmann::json::array())},
          {"library_build_type", ctx.value("build_type", "")},
          {"tandem", ctx}};
}

}  // namespace

nlohmann::json google_benchmark_json(const std::vector<nlohmann::json>& records) {
  nlohmann::json benches = nlohmann::json::array();
  int family = 0;
  for (const auto& r : records) {
    if (!r.contains("timing")) continue;
    const std::string name = r["case"];
    std::vector<double> real = seconds(r["timing"], "samples"), cpu = seconds(r["timing"], "cpu_samples");
    if (real.empty()) continue;
    if (cpu.size() != real.size()) cpu = real;  // an older record without CPU samples
    const int n = int(real.size());
    nlohmann::json base = {{"run_name", name}, {"family_index", family++}, {"per_family_instance_index", 0},
                           {"repetitions", n}, {"threads", 1}, {"time_unit", "ns"}};
    for (int i = 0; i < n; ++i) {
      nlohmann::json b = base;
      b.update({{"name", name}, {"run_type", "iteration"}, {"repetition_index", i}, {"iterations", 1},
                {"real_time", real[i] * 1e9}, {"cpu_time", cpu[i] * 1e9}});
      benches.push_back(b);
    }
    struct Aggregate {
      const char* name;
      double real, cpu;
      const char* unit;
    };
    const Aggregate aggs[] = {
        {"mean", mean_of(real) * 1e9, mean_of(cpu) * 1e9, "time"},
        {"median", summarize(real).median * 1e9, summarize(cpu).median * 1e9, "time"},
        {"stddev", stddev_of(real) * 1e9, stddev_of(cpu) * 1e9, "time"},
        {"cv", stddev_of(real) / mean_of(real), stddev_of(cpu) / mean_of(cpu), "percentage"}};
    for (const Aggregate& a : aggs) {
      nlohmann::json b = base;
      b.update({{"name", name + "_" + a.name}, {"run_type", "aggregate"}, {"aggregate_name", a.name},
                {"aggregate_unit", a.unit}, {"iterations", n}, {"real_time", a.real}, {"cpu_time", a.cpu}});
      // The record's metrics (GFLOP/s, ...) are of the median: they go on the median row.
      if (std::string(a.name) == "median")
        for (const auto& m : r["metrics"]) b[m["name"].get<std::string>()] = m["value"];
      benches.push_back(b);
    }
  }
  const nlohmann::json ctx = records.empty() ? run_context() : records.front().value("context", run_context());
  return {{"context", machine_context(ctx)}, {"benchmarks", benches}};
}

}  // namespace tandem
