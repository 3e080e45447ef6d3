// Timing of a case body: warm-up, then repetitions (at least `repetitions`, and more until
// min_time_s is covered), and the summary statistics a record carries. On the CPU a sample
// is steady_clock wall time; on a CUDA device it is CUDA-event time on the device's default
// stream around the body (engine/cuda/cuda_timing.h) — the body's inputs must already be on
// the device, so the region holds no host<->device copy.
#pragma once
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/device.h"

namespace tandem {

// One run of `body`: its time as the header says, and (into *cpu_s when given) the process
// CPU time it took, all threads together (CLOCK_PROCESS_CPUTIME_ID around the same region).
double time_once(const std::function<void()>& body, Device device, double* cpu_s = nullptr);

// Repetitions of time_once; the CPU time of each lands in *cpu_samples_s when given.
std::vector<double> time_repeated(const std::function<void()>& body, int warmup, int repetitions, double min_time_s,
                                  Device device = Device::cpu(), std::vector<double>* cpu_samples_s = nullptr);

struct TimingStats {
  double median = 0, min = 0, max = 0, p99 = 0, mean = 0;
  int repetitions = 0;
};
TimingStats summarize(std::vector<double> samples);
nlohmann::json timing_json(const std::vector<double>& samples_s, const std::vector<double>& cpu_samples_s = {});

}  // namespace tandem
