// Timing implementation: steady_clock (CPU) or CUDA events (GPU) around each repetition.
#include "suites/common/timing.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "engine/cuda/cuda_timing.h"

namespace tandem {

namespace {
double wall_seconds(const std::function<void()>& body) {
  auto t0 = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

std::vector<double> time_repeated(const std::function<void()>& body, int warmup, int repetitions,
                                  double min_time_s, Device device) {
  for (int i = 0; i < warmup; ++i) body();
  std::vector<double> s;
  double total = 0;
  while (int(s.size()) < repetitions || (total < min_time_s && s.size() < 10000)) {
    double dt = device.kind == DeviceKind::cuda ? cuda_event_seconds(device.index, body)
                                                : wall_seconds(body);
    s.push_back(dt);
    total += dt;
  }
  return s;
}

TimingStats summarize(std::vector<double> v) {
  TimingStats t;
  if (v.empty()) return t;
  std::sort(v.begin(), v.end());
  auto q = [&](double f) { return v[std::min(v.size() - 1, size_t(f * double(v.size() - 1) + 0.5))]; };
  t.repetitions = int(v.size());
  t.min = v.front();
  t.max = v.back();
  t.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  t.p99 = q(0.99);
  t.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  return t;
}

nlohmann::json timing_json(const std::vector<double>& samples) {
  TimingStats t = summarize(samples);
  return {{"unit", "s"}, {"median", t.median}, {"min", t.min}, {"max", t.max}, {"p99", t.p99},
          {"mean", t.mean}, {"repetitions", t.repetitions}, {"samples", samples}};
}

}  // namespace tandem
