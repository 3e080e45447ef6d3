// Timing implementation: steady_clock (CPU) or CUDA events (GPU) around each repetition, and
// the process CPU time around the same call.
#include "harness/timing.h"

#include <time.h>

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
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
}  // namespace

double time_once(const std::function<void()>& body, Device device, double* cpu_s) {
  const double cpu0 = process_cpu_seconds();
  double dt = device.kind == DeviceKind::cuda ? cuda_event_seconds(device.index, body) : wall_seconds(body);
  if (cpu_s) *cpu_s = process_cpu_seconds() - cpu0;
  return dt;
}

std::vector<double> time_repeated(const std::function<void()>& body, int warmup, int repetitions,
                                  double min_time_s, Device device, std::vector<double>* cpu_samples_s) {
  for (int i = 0; i < warmup; ++i) body();
  std::vector<double> s;
  double total = 0;
  while (int(s.size()) < repetitions || (total < min_time_s && s.size() < 10000)) {
    double cpu = 0;
    double dt = time_once(body, device, &cpu);
    s.push_back(dt);
    if (cpu_samples_s) cpu_samples_s->push_back(cpu);
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

nlohmann::json timing_json(const std::vector<double>& samples, const std::vector<double>& cpu_samples) {
  TimingStats t = summarize(samples);
  nlohmann::json j = {{"unit", "s"}, {"median", t.median}, {"min", t.min}, {"max", t.max}, {"p99", t.p99},
                      {"mean", t.mean}, {"repetitions", t.repetitions}, {"samples", samples}};
  if (!cpu_samples.empty()) {
    j["cpu_median"] = summarize(cpu_samples).median;
    j["cpu_samples"] = cpu_samples;
  }
  return j;
}

}  // namespace tandem
