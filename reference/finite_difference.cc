// Central finite difference in f64.
#include "reference/finite_difference.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tandem::ref {

double finite_difference(const std::function<double(const std::vector<double>&)>& f,
                         std::vector<double> x, size_t i, double h) {
  if (!f) throw std::invalid_argument("finite_difference: empty function");
  if (i >= x.size())
    throw std::invalid_argument("finite_difference: index " + std::to_string(i) +
                                " out of range for " + std::to_string(x.size()) + " inputs");
  if (!(h > 0.0) || !std::isfinite(h))
    throw std::invalid_argument("finite_difference: step must be positive and finite");
  const double x0 = x[i];
  const double plus = x0 + h, minus = x0 - h;
  if (plus == minus)
    throw std::invalid_argument("finite_difference: step " + std::to_string(h) +
                                " vanishes next to x[i] = " + std::to_string(x0));
  x[i] = plus;
  const double f_plus = f(x);
  x[i] = minus;
  const double f_minus = f(x);
  return (f_plus - f_minus) / (plus - minus);
}

}  // namespace tandem::ref
