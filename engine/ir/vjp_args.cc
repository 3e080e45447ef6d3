// VjpArgs helpers (see vjp_args.h).
#include "engine/ir/vjp_args.h"

namespace tandem {

Value zeros(Builder& b, const AType& t) {
  Value z = b.literal(0, t.dtype);
  return t.rank() == 0 ? z : broadcast_in_dim(z, t.shape, {});
}

Value VjpArgs::ct(size_t i) const { return cts.at(i) ? *cts[i] : zeros(*builder, out_types.at(i)); }

}  // namespace tandem
