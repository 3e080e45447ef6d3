// lax.scan as a plain loop over a body callback.
#pragma once
#include <functional>
#include <utility>
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

// body(consts, carry, x_t) -> (new_carry, y_t)
using ScanBody = std::function<std::pair<std::vector<Array>, std::vector<Array>>(
    const std::vector<Array>& consts, const std::vector<Array>& carry, const std::vector<Array>& x)>;

// xs: each [length, ...], sliced along axis 0 (x_t: [...]). The body's new carry must match
// init in count, shapes and dtypes; every step's ys must match the first step's. Returns
// (final carry, ys) with each ys[j]: [length, ...y_t[j]]. reverse walks t = length-1 .. 0
// and still stores y_t at index t. length 0 returns (init, {}): no body call, so the ys'
// shapes are unknown.
std::pair<std::vector<Array>, std::vector<Array>> scan(const ScanBody& body, const std::vector<Array>& consts,
                                                       const std::vector<Array>& init, const std::vector<Array>& xs,
                                                       int64_t length, bool reverse);

}  // namespace tandem::ref
