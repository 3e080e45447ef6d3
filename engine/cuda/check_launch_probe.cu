// A kernel launch that always fails (1025 threads per block exceeds every GPU's limit, and
// without a GPU the launch fails anyway), checked with CUDA_CHECK_LAUNCH: the test proves
// a bad launch is reported at the launch (check_cuda_test.cc).
#include "engine/core/check_cuda.h"

namespace tandem::cuda_test {
namespace {
__global__ void noop_kernel() {}
}  // namespace

void launch_with_bad_config() {
  noop_kernel<<<1, 1025>>>();
  CUDA_CHECK_LAUNCH();
}

}  // namespace tandem::cuda_test
