// Tests of conv_general_dilated: hand-worked 1-D cases (strides, padding, both dilations,
// feature and batch groups), a layout (NHWC/HWIO against NCHW/OIHW transposed) and the vjp
// against central differences.
#include "reference/conv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "reference/grad.h"
#include "reference/structure.h"

namespace tandem::ref {
namespace {
using Values = std::vector<double>;

// 1-D, NCW / OIW / NCW.
ConvDims d1(int64_t stride = 1, int64_t lo = 0, int64_t hi = 0, int64_t ld = 1, int64_t rd = 1) {
  return ConvDims{{stride}, {lo}, {hi}, {ld}, {rd}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2}};
}

TEST(Conv, HandWorkedOneD) {
  const Array x = make({1, 1, 5}, DType::f64, {1, 2, 3, 4, 5}), k = make({1, 1, 2}, DType::f64, {1, 10});
  EXPECT_EQ(conv_general_dilated(x, k, d1(), DType::f64).data, (Values{21, 32, 43, 54}));
  EXPECT_EQ(conv_general_dilated(x, k, d1(2), DType::f64).data, (Values{21, 43}));
  EXPECT_EQ(conv_general_dilated(x, k, d1(1, 1, 1), DType::f64).data, (Values{10, 21, 32, 43, 54, 5}));
  EXPECT_EQ(conv_general_dilated(x, k, d1(1, 0, 0, 2), DType::f64).data, (Values{1, 20, 2, 30, 3, 40, 4, 50}));
  EXPECT_EQ(conv_general_dilated(x, k, d1(1, 0, 0, 1, 2), DType::f64).data, (Values{31, 42, 53}));
  EXPECT_EQ(conv_general_dilated(x, k, d1(1, -1, 0), DType::f64).data, (Values{32, 43, 54}));  // negative padding crops
  EXPECT_EQ(conv_general_dilated(x, make({1, 1, 6}, DType::f64, Values(6, 1)), d1(), DType::f64).shape,
            (std::vector<int64_t>{1, 1, 0}));  // a window larger than the input: no outputs
}

TEST(Conv, FeatureAndBatchGroups) {
  ConvDims f = d1(), b = d1();
  f.feature_group_count = 2;
  b.batch_group_count = 2;
  const Array k = make({2, 1, 1}, DType::f64, {3, 5});
  // Two input channels, each its own group: out channel o reads channel o only.
  EXPECT_EQ(conv_general_dilated(make({1, 2, 1}, DType::f64, {1, 2}), k, f, DType::f64).data, (Values{3, 10}));
  // Two batch entries, each its own group: out channel o reads batch entry o only; batch 1 out.
  Array y = conv_general_dilated(make({2, 1, 1}, DType::f64, {1, 2}), k, b, DType::f64);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 2, 1}));
  EXPECT_EQ(y.data, (Values{3, 10}));
  ConvDims both = f;
  both.batch_group_count = 2;
  EXPECT_THROW(conv_general_dilated(make({2, 2, 1}, DType::f64, {1, 2, 3, 4}), k, both, DType::f64), std::invalid_argument);
}

Array ramp(std::vector<int64_t> shape, double scale) {
  Array a{shape, DType::f64, std::vector<double>(size_t(shape_numel(shape)))};
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = std::sin(scale * double(i + 1));
  return a;
}

TEST(Conv, LayoutsAgree) {
  // NCHW / OIHW / NCHW against NHWC / HWIO / NHWC of the same values, strides 2, SAME-style padding.
  const Array x = ramp({2, 3, 5, 4}, 0.7), k = ramp({4, 3, 3, 2}, 1.3);
  ConvDims nchw{{2, 1}, {1, 0}, {1, 1}, {1, 1}, {1, 2}, {0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3}};
  ConvDims nhwc = nchw;
  nhwc.lhs_spec = {0, 3, 1, 2};
  nhwc.rhs_spec = {3, 2, 0, 1};
  nhwc.out_spec = {0, 3, 1, 2};
  const Array a = conv_general_dilated(x, k, nchw, DType::f64);
  const Array b = conv_general_dilated(transpose(x, {0, 2, 3, 1}), transpose(k, {2, 3, 1, 0}), nhwc, DType::f64);
  const Array bt = transpose(b, {0, 3, 1, 2});
  ASSERT_EQ(bt.shape, a.shape);
  for (size_t i = 0; i < a.data.size(); ++i) EXPECT_DOUBLE_EQ(a.data[i], bt.data[i]) << i;
}

TEST(Conv, VjpMatchesFiniteDifferences) {
  ConvDims d{{2, 1}, {1, 0}, {0, 2}, {2, 1}, {1, 2}, {0, 3, 1, 2}, {3, 2, 0, 1}, {1, 0, 3, 2}};
  d.feature_group_count = 2;
  const Array x = ramp({2, 3, 4, 4}, 0.9), k = ramp({2, 2, 2, 6}, 1.1);
  const Array ct = ramp(conv_output_shape(x.shape, k.shape, d), 0.3);
  auto loss = [&](const std::vector<Array>& v) {
    Array y = conv_general_dilated(v[0], v[1], d, DType::f64);
    double s = 0;
    for (size_t i = 0; i < y.data.size(); ++i) s += y.data[i] * ct.data[i];
    return s;
  };
  const std::vector<Array> fd = grad(loss, {x, k});
  auto [dx, dk] = conv_general_dilated_vjp(x, k, ct, d);
  for (size_t i = 0; i < dx.data.size(); ++i) EXPECT_NEAR(dx.data[i], fd[0].data[i], 1e-8) << "lhs " << i;
  for (size_t i = 0; i < dk.data.size(); ++i) EXPECT_NEAR(dk.data[i], fd[1].data[i], 1e-8) << "rhs " << i;
}

}  // namespace
}  // namespace tandem::ref
