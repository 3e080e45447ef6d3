// Central-difference gradients over all inputs of a scalar function of arrays.
#include "reference/grad.h"

#include <algorithm>
#include <cmath>

#include "reference/finite_difference.h"

namespace tandem::ref {

std::vector<Array> grad(const ScalarFn& f, const std::vector<Array>& x, double h) {
  std::vector<double> flat;
  for (const Array& a : x) flat.insert(flat.end(), a.data.begin(), a.data.end());
  auto unflatten = [&](const std::vector<double>& v) {
    std::vector<Array> args;
    size_t o = 0;
    for (const Array& a : x) {
      size_t n = a.data.size();
      args.push_back(Array{a.shape, DType::f64, std::vector<double>(v.begin() + long(o), v.begin() + long(o + n))});
      o += n;
    }
    return args;
  };
  auto fn = [&](const std::vector<double>& v) { return f(unflatten(v)); };
  std::vector<double> g(flat.size());
  for (size_t i = 0; i < flat.size(); ++i) g[i] = finite_difference(fn, flat, i, h * std::max(1.0, std::abs(flat[i])));
  return unflatten(g);
}

}  // namespace tandem::ref
