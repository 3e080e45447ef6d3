// What a reverse-mode rule (Primitive::vjp) sees, as a value type below the passes: the
// primitives' rules (engine/prims/vjp_rules*.cc) are written against this header, and the
// vjp pass (engine/passes/vjp.h) fills it in. Primal reads are lazy: each may save a
// residual or recompute the value, as the remat policy says, so a rule reads only what its
// derivative needs.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

struct VjpArgs {
  Builder* builder = nullptr;
  std::vector<AType> in_types, out_types;
  std::function<Value(size_t)> primal_in;   // may save a residual or recompute
  std::function<Value(size_t)> primal_out;
  std::vector<std::optional<Value>> cts;    // per output; nullopt: zero
  // Operands that need no cotangent: literals, and values no differentiated input reaches
  // (the vjp pass's activity analysis: one_hot(tokens) in one_hot(tokens) @ E), as JAX's
  // symbolic zeros, so a rule neither computes their cotangent nor reads what it would need.
  std::vector<bool> in_constant;
  bool wants(size_t i) const { return !in_constant.at(i) && is_floating(in_types.at(i).dtype); }
  Value ct(size_t i) const;                 // the cotangent, zeros when absent
};

// Zeros of a type in `b` (a literal for rank 0).
Value zeros(Builder& b, const AType& t);

}  // namespace tandem
