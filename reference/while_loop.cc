// while_loop: call the body while the cond holds, checking each carry it returns; switch_branch.
#include "reference/while_loop.h"

#include <stdexcept>
#include <string>

namespace tandem::ref {

std::vector<Array> while_loop(const WhileCond& cond, const WhileBody& body, const std::vector<Array>& cond_consts,
                              const std::vector<Array>& body_consts, const std::vector<Array>& init,
                              int64_t max_iterations) {
  require(static_cast<bool>(cond) && static_cast<bool>(body), "while_loop: empty cond or body");
  for (const Array& c : init) check_array(c, "while_loop init");
  std::vector<Array> carry = init;
  for (int64_t step = 0; cond(cond_consts, carry); ++step) {
    require(step < max_iterations,
            "while_loop: the predicate still holds after " + std::to_string(max_iterations) + " iterations");
    std::vector<Array> next = body(body_consts, carry);
    require(next.size() == init.size(), "while_loop: step " + std::to_string(step) + " returned " +
                                            std::to_string(next.size()) + " carries, expected " +
                                            std::to_string(init.size()));
    for (size_t i = 0; i < next.size(); ++i) {
      check_array(next[i], "while_loop carry");
      require(next[i].dtype == init[i].dtype && next[i].shape == init[i].shape,
              "while_loop: step " + std::to_string(step) + " carry[" + std::to_string(i) + "] is " +
                  std::string(dtype_name(next[i].dtype)) + shape_string(next[i].shape) + ", expected " +
                  std::string(dtype_name(init[i].dtype)) + shape_string(init[i].shape));
    }
    carry = std::move(next);
  }
  return carry;
}

size_t switch_branch(const Array& index, size_t n) {
  if (index.numel() != 1 || !index.shape.empty() || n == 0)
    throw std::invalid_argument("switch_branch: the index must be a scalar and there must be a branch");
  const double i = index.data[0];
  return i >= 0 && i < double(n) ? size_t(i) : n - 1;
}

}  // namespace tandem::ref
