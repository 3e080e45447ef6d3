// Every row of unary_ops.def on f16 and bf16 computes in f32 and rounds: its result is the f32
// primitive's rounded, bit for bit, for every 16-bit pattern (the table's contract: a row's
// host_f32_array computes what its host_f32 does). The f32 primitive takes the row's array kernel
// where it has one (vector_math.cc), the halves the inline per-element math (elementwise.cc).
// Both are built without FMA contraction (engine/CMakeLists.txt); with it, elementwise.cc's f32
// values differed by an ulp at some points on aarch64, which the rounding to 16 bits hid at every
// input (measured under QEMU): vector_math_test and vector_math_exp_test see that in f32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/primitive.h"

namespace tandem {
namespace {

std::vector<std::string> unary_rows() {
  std::vector<std::string> names;
#define TANDEM_UNARY(name, ...) names.push_back(#name);
#include "engine/prims/unary_ops.def"
  return names;
}

Tensor run_unary(const std::string& name, const Tensor& x) {
  EvalContext ctx{Device::cpu(), nullptr, nullptr};
  return primitive(name).cpu(std::vector<Tensor>{x}, Params{}, ctx).at(0);
}

// The f16 or bf16 primitive against the f32 primitive on the same 65,536 values, rounded to
// `half`: the number of bit patterns that differ (NaN matches any NaN), the first one named.
int64_t mismatches(const std::string& name, DType half, std::string* first) {
  Tensor x = Tensor::empty({65536}, half);
  for (int64_t i = 0; i < 65536; ++i) x.data<uint16_t>()[i] = uint16_t(i);
  const std::vector<double> xs = x.to_f64();
  const Tensor got = run_unary(name, x);
  const Tensor want = Tensor::from_f64(run_unary(name, Tensor::from_f64(xs, {65536}, DType::f32)).to_f64(), {65536}, half);
  const std::vector<double> g = got.to_f64(), w = want.to_f64();
  int64_t n = 0;
  for (int64_t i = 0; i < 65536; ++i) {
    if (std::isnan(g[i]) && std::isnan(w[i])) continue;
    if (got.data<uint16_t>()[i] == want.data<uint16_t>()[i]) continue;
    if (n++ == 0) *first = name + "(" + std::to_string(xs[i]) + "): " + std::to_string(g[i]) + " vs " + std::to_string(w[i]);
  }
  return n;
}

TEST(UnaryHalf, EveryRowIsItsF32ResultRounded) {
  const std::vector<std::string> rows = unary_rows();
  ASSERT_GE(rows.size(), 5u);
  for (const std::string& name : rows)
    for (DType half : {DType::f16, DType::bf16}) {
      std::string first;
      EXPECT_EQ(mismatches(name, half, &first), 0) << name << " on " << dtype_name(half) << ", first: " << first;
    }
}

}  // namespace
}  // namespace tandem
