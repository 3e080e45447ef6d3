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
  };
  auto it = rows.find(name);
  if (it == rows.end()) return std::nullopt;
  return it->second;
}

}  // namespace tandem
