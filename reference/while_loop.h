// lax.while_loop as a plain loop over cond and body callbacks, and lax.switch's branch choice.
#pragma once
#include <functional>
#include <vector>

#include "reference/array.h"

namespace tandem::ref {

using WhileCond = std::function<bool(const std::vector<Array>& consts, const std::vector<Array>& carry)>;
using WhileBody = std::function<std::vector<Array>(const std::vector<Array>& consts, const std::vector<Array>& carry)>;

// While cond(cond_consts, carry) holds, carry = body(body_consts, carry); returns the carry.
// The body's carry must match init in count, shapes and dtypes. A loop still running after
// max_iterations steps is an error (std::invalid_argument), not a hang.
std::vector<Array> while_loop(const WhileCond& cond, const WhileBody& body, const std::vector<Array>& cond_consts,
                              const std::vector<Array>& body_consts, const std::vector<Array>& init,
                              int64_t max_iterations = int64_t(1) << 26);

// lax.cond / lax.switch's choice among n branches by an integer scalar index: the index
// itself in [0, n), else the last branch (XLA's Conditional). Throws on a non-scalar index.
size_t switch_branch(const Array& index, size_t n);

}  // namespace tandem::ref
