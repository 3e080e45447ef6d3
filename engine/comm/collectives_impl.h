// Helpers shared by the files implementing engine/comm/collectives.h: argument signatures,
// agreed validation and the watchdog description (pack / unpack: Communicator::local()).
#pragma once
#include <functional>
#include <string>

#include "engine/comm/collectives.h"

namespace tandem::comm::detail {

int64_t prod(const Shape& s, size_t from, size_t to);
std::string sig(const char* op, const Tensor& x, const std::string& params, const Groups& g);
// Local checks (groups, then `check(group_size)`), agreed across ranks when c.validate;
// returns the group communicator. `signature` is only read when c.validate, so callers pass
// `c.validate ? sig(...) : std::string()`: formatting it cost more than a small collective.
Communicator& prepare(Collectives& c, const char* op, const std::string& signature, const Groups& g,
                      bool equal_sizes, const std::function<void(int group_size)>& check);
std::function<std::string()> what(const char* op, const Tensor& x, const Groups& g);
void check_out(const Tensor& out, const Shape& s, DType t, const char* op);
// For allocating a result before validation: the group size (1 for malformed groups), and
// the shape f() gives or `fallback` when f throws (the op then reports the agreed error).
int group_size_hint(Collectives& c, const Groups& g);
Shape shape_or(const Shape& fallback, const std::function<Shape()>& f);

}  // namespace tandem::comm::detail
