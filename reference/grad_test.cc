// ref::grad against hand-derived gradients of functions built from reference ops.
#include "reference/grad.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reference/dot.h"
#include "reference/elementwise.h"
#include "reference/reduce.h"

namespace tandem::ref {
namespace {

TEST(RefGrad, SumOfSin) {
  Array x = make({3}, DType::f64, {0.1, -0.7, 1.3});
  auto g = grad([](const std::vector<Array>& a) { return reduce_sum(unary("sin", a[0]), {0}).data[0]; }, {x});
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(g[0].data[i], std::cos(x.data[i]), 1e-9);
}

TEST(RefGrad, MatmulLoss) {
  // L = sum(A·B): dL/dA[i,k] = sum_j B[k,j]; dL/dB[k,j] = sum_i A[i,k].
  Array A = make({2, 3}, DType::f64, {1, 2, 3, 4, 5, 6});
  Array B = make({3, 2}, DType::f64, {0.5, -1, 2, 0.25, -3, 1});
  auto g = grad([](const std::vector<Array>& a) {
    return reduce_sum(dot_general(a[0], a[1], DotDims{{1}, {0}, {}, {}}, DType::f64), {0, 1}).data[0];
  }, {A, B});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 3; ++k)
      EXPECT_NEAR(g[0].data[size_t(i * 3 + k)], B.data[size_t(k * 2)] + B.data[size_t(k * 2 + 1)], 1e-8);
  for (int64_t k = 0; k < 3; ++k)
    for (int64_t j = 0; j < 2; ++j)
      EXPECT_NEAR(g[1].data[size_t(k * 2 + j)], A.data[size_t(k)] + A.data[size_t(3 + k)], 1e-8);
}

}  // namespace
}  // namespace tandem::ref
