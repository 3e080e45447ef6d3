// Central finite differences in f64 of a scalar function of arrays (built from reference
// ops, or the reference interpreter of a program). The reference's reverse mode is the tape
// in grad_tape.h; these differences are the independent check on that tape (and, for small
// problems, on the engine). Slow: 2 evaluations per input element.
#pragma once
#include <functional>
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

using ScalarFn = std::function<double(const std::vector<Array>&)>;

// d f / d x for every element of every input, each input evaluated in f64 (the returned
// gradients have the inputs' shapes and dtype f64). h is the step for inputs of magnitude
// <= 1; larger inputs use h * |x|.
std::vector<Array> grad(const ScalarFn& f, const std::vector<Array>& x, double h = 1e-5);

}  // namespace tandem::ref
