// Every registered primitive has a CUDA impl. Inspects the registry only, so it runs (and
// can fail) in every CUDA build, GPU or not — the CUDA twin of Vjp.EveryPrimitiveHasARule.
#include <gtest/gtest.h>

#include <string>

#include "engine/ir/primitive.h"

namespace tandem {
namespace {

TEST(CudaCoverage, EveryPrimitiveHasACudaImpl) {
  for (const std::string& n : primitive_names()) {
#if !TANDEM_HAVE_CUDNN
    // The LSTM's CUDA impl is cuDNN; a build without cuDNN reports it unsupported on CUDA.
    if (n == "lstm_fwd" || n == "lstm_bwd") continue;
#endif
    EXPECT_TRUE(bool(primitive(n).cuda)) << n << " has no CUDA impl";
  }
}

TEST(CudaCoverage, RegistryIsNotEmpty) {
  EXPECT_GT(primitive_names().size(), 30u);  // the loop above must have something to check
}

}  // namespace
}  // namespace tandem
