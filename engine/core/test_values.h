// Test helper: reproducible uniform values in [-1, 1) for engine tests that build tensors by
// hand (the dot tests on every backend draw their operands the same way).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tandem {

inline std::vector<double> random_values(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(rng);
  return v;
}

}  // namespace tandem
