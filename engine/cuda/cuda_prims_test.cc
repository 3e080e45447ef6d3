// GPU tests of the primitive impls and of the timing rules (label gpu; each skips with the
// reason when no device is visible). Bit-exact where the CPU and GPU compute the same
// function (conversions, max, layout), and the timed-region rule: after a warm-up run and
// with inputs already on the device, running a program makes no host<->device copy, asks
// the driver for no memory, and leaves the Allocator's live bytes where they were.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/cuda_memory.h"
#include "engine/cuda/cuda_timing.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"

namespace tandem {
namespace {
using V = std::vector<Value>;

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible"

std::vector<Tensor> run_on(Device d, const Program& p, const std::vector<Tensor>& in) {
  std::vector<Tensor> out = Executor(d).run(p, in);
  for (Tensor& t : out) t = t.to(Device::cpu());
  return out;
}

// Values that exercise every rounding path: NaN, ±Inf, ±0, f16/bf16 subnormals, ties,
// overflow to Inf and to INT_MAX.
std::vector<double> special_values() {
  const double inf = std::numeric_limits<double>::infinity();
  return {std::nan(""), inf, -inf, 0.0, -0.0, 1.0, -2.5, 65504.0, 65520.0, 1e6, 3e9, -3e9,
          0x1p-24, 0x1p-25, 0x1.8p-24, 0x1p-14, 0x1p-133, 1.00390625, 1.01171875,
          0.1, 3.14159265358979, -1e-30, 2147483647.0, -2147483648.0};
}

void expect_same_bits(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.type(), b.type()) << what;
  EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0) << what << ": CPU and CUDA bits differ";
}

TEST(CudaPrims, ConvertBitsMatchCpu) {
  SKIP_WITHOUT_GPU();
  const DType all[] = {DType::f64, DType::f32, DType::bf16, DType::f16, DType::i32, DType::pred};
  std::vector<double> v = special_values();
  for (DType from : all) {
    for (DType to : all) {
      Program p = trace({AType{{int64_t(v.size())}, from}},
                        [to](Builder&, const V& a) { return V{convert_element_type(a[0], to)}; });
      std::vector<double> vals = v;
      if (from == DType::i32 || from == DType::pred)
        for (double& x : vals) x = std::isfinite(x) && std::fabs(x) < 1e9 ? std::trunc(x) : 7;
      Tensor x = Tensor::from_f64(vals, {int64_t(vals.size())}, from);
      expect_same_bits(run_on(Device::cpu(), p, {x})[0], run_on(Device::cuda(), p, {x})[0],
                       cat("convert ", dtype_name(from), "->", dtype_name(to)));
    }
  }
}

TEST(CudaPrims, MaxAndLayoutBitsMatchCpu) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::f32, DType::bf16, DType::f64}) {
    Program p = trace({AType{{4, 6, 5}, t}, AType{{4, 6, 5}, t}}, [](Builder&, const V& a) {
      return V{reduce_max(a[0], {1}), reduce_max(a[0], {0, 2}), max(a[0], a[1]),
               min(a[0], a[1]), transpose(a[0], {2, 0, 1}), slice(a[0], {1, 0, 1}, {4, 6, 5}, {2, 3, 2}),
               concatenate({a[0], a[1]}, 1), broadcast_in_dim(reduce_max(a[0], {2}), {4, 6, 3}, {0, 1})};
    });
    std::vector<double> xs(120), ys(120);
    for (int i = 0; i < 120; ++i) {
      xs[size_t(i)] = i % 17 == 3 ? std::nan("") : std::sin(i * 0.7) * 10;
      ys[size_t(i)] = std::cos(i * 0.3) * 10;
    }
    std::vector<Tensor> in = {Tensor::from_f64(xs, {4, 6, 5}, t), Tensor::from_f64(ys, {4, 6, 5}, t)};
    auto cpu = run_on(Device::cpu(), p, in), gpu = run_on(Device::cuda(), p, in);
    for (size_t i = 0; i < cpu.size(); ++i)
      expect_same_bits(cpu[i], gpu[i], cat(dtype_name(t), " output ", i));
  }
}

TEST(CudaPrims, IntegerDivisionByZeroIsBadInput) {
  SKIP_WITHOUT_GPU();
  Program p = trace({AType{{3}, DType::i32}, AType{{3}, DType::i32}},
                    [](Builder& b, const V& a) { return V{b.bind1("div", {a[0], a[1]})}; });
  std::vector<Tensor> in = {Tensor::from_f64({1, 2, 3}, {3}, DType::i32),
                            Tensor::from_f64({1, 0, 1}, {3}, DType::i32)};
  try {
    Executor(Device::cuda()).run(p, in);
    FAIL() << "division by zero was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input) << e.what();
  }
}

TEST(CudaPrims, TimedRunMakesNoHostCopyAndNoDriverAllocation) {
  SKIP_WITHOUT_GPU();
  // A scan (host loop, device body with a literal), reductions and layout ops.
  Program body = trace({AType{{64}, DType::f32}, AType{{64}, DType::f32}}, [](Builder&, const V& a) {
    Value h = tanh(a[0] * 0.5 + a[1]);
    return V{h, reduce_sum(h, {0})};
  });
  Program p = trace({AType{{64}, DType::f32}, AType{{32, 64}, DType::f32}}, [&](Builder&, const V& a) {
    V s = scan(body, {}, {a[0]}, {a[1]}, 32, false);
    return V{s[0], reduce_max(s[1], {0}), transpose(a[1], {1, 0})};
  });
  Device d = Device::cuda();
  std::vector<Tensor> in;
  for (const AType& t : p.in_types()) {
    std::vector<double> vals(size_t(num_elements(t.shape)));
    for (size_t i = 0; i < vals.size(); ++i) vals[i] = std::sin(double(i));
    in.push_back(Tensor::from_f64(vals, t.shape, t.dtype).to(d));
  }
  Executor(d).run(p, in);  // warm-up: fills the pool, uploads the literals once
  cuda_synchronize(d.index);
  Allocator& a = Allocator::instance();
  int64_t live = a.stats(d).live_bytes, copies = cuda_host_transfer_count();
  CudaPoolStats pool = cuda_pool_stats(d.index);
  double s = cuda_event_seconds(d.index, [&] { Executor(d).run(p, in); });
  EXPECT_GT(s, 0.0);
  EXPECT_EQ(cuda_host_transfer_count(), copies) << "the timed run copied between host and device";
  EXPECT_EQ(cuda_pool_stats(d.index).reserved_high_bytes, pool.reserved_high_bytes)
      << "the timed run asked the driver for memory";
  EXPECT_EQ(a.stats(d).live_bytes, live) << "the timed run leaked device memory";
}

}  // namespace
}  // namespace tandem
