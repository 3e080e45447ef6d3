// Built when the CUDA toolkit is absent: the CUDA backend adds no impls, so every CUDA case
// reports "unsupported" with the reason below.
#include "engine/prims/register_all.h"

namespace tandem {
void register_cuda_impls() {}
bool cuda_backend_built() { return false; }
}  // namespace tandem
