// Precision / DotAlgorithm resolution and the support table: bad names and unsupported
// presets are clear errors naming the preset and backend.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/prims/dot_algorithm.h"

namespace tandem {
namespace {

TEST(DotAlgorithm, PrecisionResolvesPerBackend) {
  EXPECT_EQ(resolve_dot_algorithm("DEFAULT", DType::f32, DeviceKind::cpu), DotAlgorithm::F32_F32_F32);
  EXPECT_EQ(resolve_dot_algorithm("HIGHEST", DType::f32, DeviceKind::cuda), DotAlgorithm::F32_F32_F32);
  EXPECT_EQ(resolve_dot_algorithm("DEFAULT", DType::f32, DeviceKind::cuda), DotAlgorithm::TF32_TF32_F32);
  EXPECT_EQ(resolve_dot_algorithm("HIGH", DType::bf16, DeviceKind::cpu), DotAlgorithm::BF16_BF16_F32);
  EXPECT_EQ(resolve_dot_algorithm("DEFAULT", DType::f64, DeviceKind::cpu), DotAlgorithm::F64_F64_F64);
  EXPECT_EQ(resolve_dot_algorithm("BF16_BF16_F32_X6", DType::f64, DeviceKind::cpu), DotAlgorithm::BF16_BF16_F32_X6);
}

// JAX: without a preset, preferred_element_type is the accumulation type; a preset keeps its own.
TEST(DotAlgorithm, F64ResultWithoutAPresetAccumulatesInF64) {
  for (const char* p : {"DEFAULT", "HIGH", "HIGHEST"})
    for (DType in : {DType::f32, DType::bf16, DType::f16}) {
      EXPECT_EQ(resolve_dot_algorithm(p, in, DType::f64, DeviceKind::cpu), DotAlgorithm::F64_F64_F64) << p;
      EXPECT_EQ(resolve_dot_algorithm(p, in, DType::f64, DeviceKind::cuda), DotAlgorithm::F64_F64_F64) << p;
    }
  EXPECT_EQ(resolve_dot_algorithm("F32_F32_F32", DType::f32, DType::f64, DeviceKind::cpu), DotAlgorithm::F32_F32_F32);
  EXPECT_EQ(resolve_dot_algorithm("DEFAULT", DType::f32, DType::f32, DeviceKind::cuda), DotAlgorithm::TF32_TF32_F32);
  EXPECT_EQ(resolve_dot_algorithm("DEFAULT", DType::bf16, DType::f32, DeviceKind::cpu), DotAlgorithm::BF16_BF16_F32);
  // An f8 preset keeps its f32 accumulation whatever the result type (JAX lowers it so).
  for (const char* f8 : {"ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"})
    EXPECT_EQ(algorithm_info(resolve_dot_algorithm(f8, DType::f32, DType::f64, DeviceKind::cpu)).name, std::string(f8));
}

TEST(DotAlgorithm, UnknownAndUnsupportedAreClear) {
  try {
    resolve_dot_algorithm("BF16_X3", DType::f32, DeviceKind::cpu);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("BF16_BF16_F32_X3"), std::string::npos);  // hint lists names
  }
  // The f8 presets are emulated on the CPU; CUDA has no FP8 path and says so.
  for (const auto& info : all_algorithms())
    if (info.f8_inputs) {
      EXPECT_EQ(resolve_dot_algorithm(info.name, DType::f32, DeviceKind::cpu), info.algorithm);
      EXPECT_EQ(algorithm_support(info.algorithm, DeviceKind::cpu).support, Support::emulated);
      try {
        resolve_dot_algorithm(info.name, DType::f32, DeviceKind::cuda);
        FAIL() << info.name;
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::unsupported);
        EXPECT_NE(std::string(e.what()).find(cat(info.name, " is unsupported on cuda")), std::string::npos) << e.what();
      }
    }
}

TEST(DotAlgorithm, EveryPresetHasASupportEntryOnEveryBackend) {
  for (const auto& info : all_algorithms())
    for (DeviceKind k : {DeviceKind::cpu, DeviceKind::cuda})
      EXPECT_FALSE(algorithm_support(info.algorithm, k).how.empty()) << info.name;
}

TEST(DotAlgorithm, BadDimensionNumbersAreClear) {
  Builder b;
  Value x = b.input({2, 3, 4}, DType::f32), y = b.input({2, 4, 5}, DType::f32);
  EXPECT_NO_THROW(dot_general(x, y, {{2}, {1}, {0}, {0}}));
  EXPECT_THROW(dot_general(x, y, {{2}, {1, 0}, {0}, {0}}), Error);    // count mismatch
  EXPECT_THROW(dot_general(x, y, {{1}, {1}, {0}, {0}}), Error);       // 3 vs 4
  EXPECT_THROW(dot_general(x, y, {{2}, {1}, {0}, {2}}), Error);       // batch 2 vs 5
  EXPECT_THROW(dot_general(x, y, {{0}, {0}, {0}, {0}}), Error);       // batch and contracting
  EXPECT_THROW(dot_general(x, y, {{7}, {1}, {}, {}}), Error);         // axis out of range
  EXPECT_THROW(dot_general(x, y, {{2}, {1}, {0}, {0}}, "FAST"), Error);
}

}  // namespace
}  // namespace tandem
