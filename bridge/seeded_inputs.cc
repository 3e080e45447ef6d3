// seeded_uniform (see seeded_inputs.h).
#include "bridge/seeded_inputs.h"

#include <cmath>
#include <random>

namespace tandem {

Tensor seeded_uniform(const Shape& shape, DType dtype, const std::string& key, double lo, double hi) {
  std::mt19937_64 rng(std::hash<std::string>{}(key));
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(num_elements(shape)));
  for (double& x : v) x = dtype == DType::i32 ? std::floor(u(rng)) : u(rng);
  return Tensor::from_f64(v, shape, dtype);
}

}  // namespace tandem
