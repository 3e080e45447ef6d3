// The fuzzer's random source: one seeded generator per program, so a program is reproduced
// from (run seed, program index) alone, and small helpers that read as the choice they make.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace tandem::fuzz {

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  // Uniform integer in [lo, hi].
  int64_t in(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen_); }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen_); }
  // std::bernoulli_distribution(p) as libstdc++ draws it (generate_canonical: one draw as a double
  // over 2^64, at most the double below 1), written out: the same draws and answers without its
  // long double set-up per call (the error model's runs draw once per element).
  bool chance(double p) { return below(gen_(), p); }
  static bool below(uint64_t draw, double p) { return std::min(double(draw) * 0x1p-64, 0x1.fffffffffffffp-1) < p; }
  template <class T>
  const T& pick(const std::vector<T>& xs) {
    if (xs.empty()) throw std::logic_error("Rng::pick from an empty list");
    return xs[static_cast<size_t>(in(0, int64_t(xs.size()) - 1))];
  }
  template <class T>
  void shuffle(std::vector<T>& xs) { std::shuffle(xs.begin(), xs.end(), gen_); }
  uint64_t next() { return gen_(); }

 private:
  std::mt19937_64 gen_;
};

// The seed of program `index` of a run seeded `run_seed` (splitmix64 of both): independent
// streams, and `--seed S --replay-index I` regenerates exactly program I.
inline uint64_t program_seed(uint64_t run_seed, uint64_t index) {
  uint64_t z = run_seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace tandem::fuzz
