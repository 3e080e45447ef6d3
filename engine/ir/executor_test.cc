// Executor: results, freeing after last use (peak bytes), scan forward and reverse, and
// "unsupported" for a backend without an impl, collectives over the axis environment.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/prims/collective_prims.h"

namespace tandem {
namespace {

TEST(Executor, RunsAChain) {
  Builder b;
  Value x = b.input({3}, DType::f32);
  Program p = b.build({(x + 1.0) * 2.0});
  auto out = Executor().run(p, {Tensor::from_f64({1, 2, 3}, {3}, DType::f32)});
  EXPECT_EQ(out[0].to_f64(), (std::vector<double>{4, 6, 8}));
}

TEST(Executor, RejectsWrongInputs) {
  Builder b;
  Value x = b.input({3}, DType::f32);
  Program p = b.build({sin(x)});
  EXPECT_THROW(Executor().run(p, {}), Error);
  EXPECT_THROW(Executor().run(p, {Tensor::zeros({4}, DType::f32)}), Error);
}

// A chain of n elementwise ops over N floats keeps at most two intermediates alive.
TEST(Executor, FreesBuffersAfterLastUse) {
  const int64_t n = 1 << 16;
  Builder b;
  Value x = b.input({n}, DType::f32);
  Value y = x;
  for (int i = 0; i < 10; ++i) y = sin(y);
  Program p = b.build({y});
  Tensor in = Tensor::zeros({n}, DType::f32);
  Allocator& a = Allocator::instance();
  int64_t base = a.stats(Device::cpu()).live_bytes;
  a.reset_peak(Device::cpu());
  Executor().run(p, {in});
  int64_t peak = a.stats(Device::cpu()).peak_bytes - base;
  EXPECT_LE(peak, 2 * n * 4) << "intermediates were not freed";
  EXPECT_GE(peak, n * 4);
}

Program cumsum_body() {
  return trace({AType{{}, DType::f32}, AType{{}, DType::f32}},
               [](Builder&, const std::vector<Value>& a) {
                 Value c = a[0] + a[1];
                 return std::vector<Value>{c, c};
               });
}

TEST(Executor, ScanForwardAndReverse) {
  for (bool reverse : {false, true}) {
    Builder b;
    Value init = b.input({}, DType::f32);
    Value xs = b.input({4}, DType::f32);
    Program p = b.build(scan(cumsum_body(), {}, {init}, {xs}, 4, reverse));
    auto out = Executor().run(p, {Tensor::scalar(10, DType::f32), Tensor::from_f64({1, 2, 3, 4}, {4}, DType::f32)});
    EXPECT_EQ(out[0].to_f64()[0], 20.0);
    if (!reverse) EXPECT_EQ(out[1].to_f64(), (std::vector<double>{11, 13, 16, 20}));
    else EXPECT_EQ(out[1].to_f64(), (std::vector<double>{20, 19, 17, 14}));
  }
}

TEST(Executor, ScanWithConstsAndZeroLength) {
  Program body = trace({AType{{2}, DType::f32}, AType{{2}, DType::f32}, AType{{2}, DType::f32}},
                       [](Builder&, const std::vector<Value>& a) {
                         Value c = a[1] * a[0] + a[2];
                         return std::vector<Value>{c, sin(c)};
                       });
  Builder b;
  Value w = b.input({2}, DType::f32), c0 = b.input({2}, DType::f32), xs = b.input({0, 2}, DType::f32);
  Program p = b.build(scan(body, {w}, {c0}, {xs}, 0));
  auto out = Executor().run(p, {Tensor::zeros({2}, DType::f32), Tensor::from_f64({1, 2}, {2}, DType::f32),
                                Tensor::zeros({0, 2}, DType::f32)});
  EXPECT_EQ(out[0].to_f64(), (std::vector<double>{1, 2}));
  EXPECT_EQ(out[1].shape(), (Shape{0, 2}));
}

// Collectives look their axis up in the executor's axis environment: unbound is bad input
// naming the axis, with a hint; bound (here a world of one member) they run over it.
TEST(Executor, CollectivesRunOverTheAxisEnvironment) {
  Builder b;
  Value x = b.input({3}, DType::f32);
  Program p = b.build({psum(x, "i") + convert_element_type(axis_index(b, "i"), DType::f32)});
  Tensor in = Tensor::from_f64({1, 2, 3}, {3}, DType::f32);
  try {
    Executor().run(p, {in});
    FAIL() << "expected bad input";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("axis 'i': the axis is not bound"), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
  Executor ex;
  ex.set_axis_env({{"i", single_member_axis("i")}});
  EXPECT_EQ(ex.run(p, {in})[0].to_f64(), (std::vector<double>{1, 2, 3}));
}

TEST(Executor, UnsupportedBackendIsReported) {
  Builder b;
  Value x = b.input({3}, DType::f32);
  Program p = b.build({sin(x)});
  try {
    Executor(Device::cuda(0)).run(p, {Tensor::zeros({3}, DType::f32)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported) << e.what();
  }
}

}  // namespace
}  // namespace tandem
