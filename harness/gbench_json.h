// tandem records as Google Benchmark's JSON (context + benchmarks[]), so its tools/compare.py
// compares two `tandem run` outputs, U test included: one "iteration" entry per repetition
// (real_time from the record's samples, cpu_time from its process CPU time samples, in ns so
// nothing prints as 0), then the mean/median/stddev/cv aggregates, under the same names
// `tandem bench` reports (the case name, e.g. dot/M:64/K:256/N:64/alg:F32_F32_F32/cpu).
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

namespace tandem {

nlohmann::json google_benchmark_json(const std::vector<nlohmann::json>& records);

}  // namespace tandem
