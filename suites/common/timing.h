// Wall-clock timing of a case body: warm-up, then repetitions (at least `repetitions`, and
// more until min_time_s is covered), and the summary statistics a record carries.
#pragma once
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

namespace tandem {

std::vector<double> time_repeated(const std::function<void()>& body, int warmup, int repetitions,
                                  double min_time_s);

struct TimingStats {
  double median = 0, min = 0, max = 0, p99 = 0, mean = 0;
  int repetitions = 0;
};
TimingStats summarize(std::vector<double> samples);
nlohmann::json timing_json(const std::vector<double>& samples_s);

}  // namespace tandem
