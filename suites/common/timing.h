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

std::vector<double> time_repeated(const std::function<void()>& body, int warmup, int repetitions,
                                  double min_time_s, Device device = Device::cpu());

struct TimingStats {
  double median = 0, min = 0, max = 0, p99 = 0, mean = 0;
  int repetitions = 0;
};
TimingStats summarize(std::vector<double> samples);
nlohmann::json timing_json(const std::vector<double>& samples_s);

}  // namespace tandem
