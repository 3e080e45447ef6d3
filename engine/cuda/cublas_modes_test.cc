// The preset → cuBLAS compute type / math mode table (cublas_modes.h), which the engine's
// dot_general and the dot suite's cublasGemmEx baseline both read. No GPU needed: the table is
// host data. The rows pinned here are the numerics each preset promises (docs/DOT_ALGORITHMS.md).
#include <gtest/gtest.h>

#include <string>

#include "engine/cuda/cublas_modes.h"

namespace tandem::cuda_impl {
namespace {

using A = DotAlgorithm;

TEST(CublasModes, F32IsPedanticInComputeTypeAndMathMode) {
  // The baseline once ran F32 at CUBLAS_COMPUTE_32F while the engine ran PEDANTIC.
  CublasMode m = *cublas_mode(A::F32_F32_F32);
  EXPECT_EQ(m.compute, CUBLAS_COMPUTE_32F_PEDANTIC);
  EXPECT_EQ(m.math, CUBLAS_PEDANTIC_MATH);
  EXPECT_EQ(std::string(m.compute_name), "CUBLAS_COMPUTE_32F_PEDANTIC");
  EXPECT_EQ(std::string(m.math_name), "CUBLAS_PEDANTIC_MATH");
}

TEST(CublasModes, EveryPresetHasTheComputeTypeOfItsNumerics) {
  EXPECT_EQ(cublas_mode(A::F64_F64_F64)->compute, CUBLAS_COMPUTE_64F);
  EXPECT_EQ(cublas_mode(A::TF32_TF32_F32)->compute, CUBLAS_COMPUTE_32F_FAST_TF32);
  EXPECT_EQ(cublas_mode(A::TF32_TF32_F32_X3)->compute, CUBLAS_COMPUTE_32F_FAST_TF32);
  EXPECT_EQ(cublas_mode(A::F16_F16_F16)->compute, CUBLAS_COMPUTE_16F);
  for (A a : {A::BF16_BF16_F32, A::F16_F16_F32, A::BF16_BF16_F32_X3, A::BF16_BF16_F32_X6, A::BF16_BF16_F32_X9})
    EXPECT_EQ(cublas_mode(a)->compute, CUBLAS_COMPUTE_32F) << algorithm_info(a).name;
}

TEST(CublasModes, OnlyTheExactF32PresetUsesPedantic) {
  for (const AlgorithmInfo& info : all_algorithms()) {
    auto m = cublas_mode(info.algorithm);
    if (!m || info.algorithm == A::F32_F32_F32) continue;
    EXPECT_NE(m->compute, CUBLAS_COMPUTE_32F_PEDANTIC) << info.name;
    EXPECT_EQ(m->math, CUBLAS_DEFAULT_MATH) << info.name;
  }
}

TEST(CublasModes, PresetsWithoutACublasGemmHaveNoRow) {
  // Integers, FP8 and BF16_BF16_BF16 (a device loop rounding its accumulator) are not cuBLAS.
  for (A a : {A::DEFAULT, A::ANY_F8_ANY_F8_F32, A::ANY_F8_ANY_F8_ANY, A::BF16_BF16_BF16})
    EXPECT_FALSE(cublas_mode(a).has_value()) << algorithm_info(a).name;
}

}  // namespace
}  // namespace tandem::cuda_impl
