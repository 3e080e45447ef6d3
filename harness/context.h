// The run context each record carries: when and where it ran (UTC date, CPU model, cores,
// load average at start and end, GPU and driver), what ran (git sha read at run time, the
// command line) and with what (compiler, BLAS, CUDA/cuBLAS/cuDNN/NCCL/MPI versions, ranks) —
// what a history needs to tell runs apart. Every record of one run has the same context.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace tandem {

// Gathered once per process, at its first call (the start of the run).
nlohmann::json run_context();

// What is known only once the run is over: {"load_avg_end": [1, 5, 15 min], "date_end": ...}.
nlohmann::json run_end_context();

// The 1, 5 and 15 minute load averages now ([] where the system does not say).
nlohmann::json load_average();
// Its 1-minute figure, -1 where the system does not say (for the tools' headers).
inline double first_load(const nlohmann::json& l) { return l.empty() ? -1.0 : l[0].get<double>(); }

// Now, as ISO 8601 UTC: 2026-11-23T12:41:49Z.
std::string utc_now_iso8601();

}  // namespace tandem
