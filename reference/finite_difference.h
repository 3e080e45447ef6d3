// Central finite differences, the independent check on reference gradients.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

namespace tandem::ref {

// d f / d x[i] at x by the central difference (f(x + h e_i) - f(x - h e_i)) / (2h), where
// 2h is taken as the distance between the two representable points actually evaluated.
// Error O(h^2) from truncation plus O(eps |f| / h) from rounding. Requires i < x.size()
// and h > 0 (and finite).
double finite_difference(const std::function<double(const std::vector<double>&)>& f,
                         std::vector<double> x, size_t i, double h);

}  // namespace tandem::ref
