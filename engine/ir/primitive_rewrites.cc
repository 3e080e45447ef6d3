// The rewrite table (primitive_rewrites.h). Each rewrite computes what the primitive does with
// primitives tandem has (jax.lax.associative_scan lowers to slices, pads and the op itself);
// where it holds only on part of the domain, the row says which.
#include "engine/ir/primitive_rewrites.h"

#include <map>

namespace tandem {

std::optional<std::string> primitive_rewrite(const std::string& name) {
  static const std::map<std::string, std::string> rows = {
      {"cumprod", "jax.lax.associative_scan(jnp.multiply, x, axis=a) (reverse=True for a reverse cumprod)"},
      {"cummax", "jax.lax.associative_scan(jnp.maximum, x, axis=a)"},
      {"cummin", "jax.lax.associative_scan(jnp.minimum, x, axis=a)"},
      {"clamp", "jnp.minimum(jnp.maximum(x, lo), hi)"},
      {"ceil", "-jnp.floor(-x)"},
      {"exp2", "jnp.exp(x * np.log(2.0))"},
      {"tan", "jnp.sin(x) / jnp.cos(x)"},
      {"pow", "jnp.exp(y * jnp.log(x)) for x > 0, or x ** k with a Python int k (integer_pow)"},
      {"not", "jnp.where(b, False, True) for a bool b"},
      {"and", "jnp.where(a, b, False) for bools a, b"},
      {"or", "jnp.where(a, True, b) for bools a, b"},
      {"reduce_and", "jnp.min(jnp.where(b, 1.0, 0.0), axis) == 1.0 for a bool b"},
      {"reduce_or", "jnp.max(jnp.where(b, 1.0, 0.0), axis) == 1.0 for a bool b"},
      {"reduce_prod", "jnp.exp(jnp.sum(jnp.log(x), axis)) for x > 0"},
      {"argmax", "the first index of the max: jnp.min(jnp.where(x == x.max(axis, keepdims=True), "
                 "jax.lax.broadcasted_iota(jnp.int32, x.shape, axis), x.shape[axis]), axis)"},
      {"argmin", "the first index of the min: jnp.min(jnp.where(x == x.min(axis, keepdims=True), "
                 "jax.lax.broadcasted_iota(jnp.int32, x.shape, axis), x.shape[axis]), axis)"},
  };
  auto it = rows.find(name);
  if (it == rows.end()) return std::nullopt;
  return it->second;
}

}  // namespace tandem
