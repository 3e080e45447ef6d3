// A program's equations bound again, in order, into builder b on the values `in` (one per
// input of p); returns the values of p's outputs. What the vjp pass uses to join its two
// programs and a batching rule uses to run a batched branch in place (cond's).
#pragma once
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

std::vector<Value> inline_program(Builder& b, const Program& p, const std::vector<Value>& in);

}  // namespace tandem
