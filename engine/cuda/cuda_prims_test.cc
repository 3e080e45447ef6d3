// GPU tests of the primitive impls and of the timing rules (label gpu; each skips with the reason when no device is
// visible). Bit-exact where the CPU and GPU compute the same function (conversions, max, layout), i32 division by zero
// reported without a per-call sync, and the timed-region rule: after a warm-up run and with inputs already on the
// device, running a program — scan, reductions, i32 div, a k = 0 dot, the cuDNN LSTM — makes no host<->device copy,
// asks the driver for no memory, and leaves the Allocator's live bytes where they were.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/cuda_memory.h"
#include "engine/cuda/cuda_timing.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/prims/lstm.h"

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

// Values that exercise every rounding path: NaN, ±Inf, ±0, f16/bf16 subnormals, ties, overflow to Inf and to INT_MAX.
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
    for (size_t i = 0; i < cpu.size(); ++i) expect_same_bits(cpu[i], gpu[i], cat(dtype_name(t), " output ", i));
  }
}

// The kernel raises a device flag; the host reports it when it next waits for the device
// (device_faults.h): on the download of the result, and on cuda_synchronize.
TEST(CudaPrims, IntegerDivisionByZeroIsBadInput) {
  SKIP_WITHOUT_GPU();
  Program p = trace({AType{{3}, DType::i32}, AType{{3}, DType::i32}},
                    [](Builder& b, const V& a) { return V{b.bind1("div", {a[0], a[1]})}; });
  Tensor x = Tensor::from_f64({1, 2, 3}, {3}, DType::i32);
  Tensor bad = Tensor::from_f64({1, 0, 1}, {3}, DType::i32), good = Tensor::from_f64({1, 2, 3}, {3}, DType::i32);
  auto expect_bad_input = [](const std::function<void()>& f, const char* when) {
    try {
      f();
      ADD_FAILURE() << "division by zero was not reported " << when;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input) << e.what();
    }
  };
  std::vector<Tensor> out = Executor(Device::cuda()).run(p, {x, bad});
  expect_bad_input([&] { out[0].to(Device::cpu()); }, "on download");
  EXPECT_EQ(run_on(Device::cuda(), p, {x, good})[0].to_f64(), (std::vector<double>{1, 1, 1}))
      << "a reported fault must be cleared";
  Executor(Device::cuda()).run(p, {x, bad});
  expect_bad_input([] { cuda_synchronize(0); }, "on cuda_synchronize");
}

// After a warm-up run, with inputs already on the device: the run makes no host<->device
// copy, asks the driver for no memory and leaves the Allocator's live bytes where they were.
void expect_timed_run_is_clean(const Program& p, const std::vector<Tensor>& host_in, const char* what) {
  Device d = Device::cuda();
  std::vector<Tensor> in;
  for (const Tensor& t : host_in) in.push_back(t.to(d));
  Executor(d).run(p, in);  // warm-up: fills the pool, uploads the literals once
  cuda_synchronize(d.index);
  Allocator& a = Allocator::instance();
  int64_t live = a.stats(d).live_bytes, copies = cuda_host_transfer_count();
  CudaPoolStats pool = cuda_pool_stats(d.index);
  double s = cuda_event_seconds(d.index, [&] { Executor(d).run(p, in); });
  EXPECT_GT(s, 0.0) << what;
  EXPECT_EQ(cuda_host_transfer_count(), copies) << what << ": the timed run copied between host and device";
  EXPECT_EQ(cuda_pool_stats(d.index).reserved_high_bytes, pool.reserved_high_bytes)
      << what << ": the timed run asked the driver for memory";
  EXPECT_EQ(a.stats(d).live_bytes, live) << what << ": the timed run leaked device memory";
}

std::vector<Tensor> sine_inputs(const Program& p) {
  std::vector<Tensor> in;
  for (const AType& t : p.in_types()) {
    std::vector<double> vals(size_t(num_elements(t.shape)));
    for (size_t i = 0; i < vals.size(); ++i) vals[i] = std::sin(double(i));
    in.push_back(Tensor::from_f64(vals, t.shape, t.dtype));
  }
  return in;
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
  expect_timed_run_is_clean(p, sine_inputs(p), "scan program");
  // i32 division (its zero-divisor check) and a dot_general with an empty contraction.
  Program q = trace({AType{{8}, DType::i32}, AType{{8}, DType::i32}, AType{{4, 0}, DType::f32},
                     AType{{0, 5}, DType::f32}},
                    [](Builder&, const V& a) { return V{div(a[0], a[1]), dot(a[2], a[3], "HIGHEST")}; });
  std::vector<Tensor> qin = {Tensor::from_f64({7, -7, 9, 100, 3, 5, 1, 0}, {8}, DType::i32),
                             Tensor::from_f64({2, 3, -4, 7, 1, 5, 9, 6}, {8}, DType::i32),
                             Tensor::empty({4, 0}, DType::f32), Tensor::empty({0, 5}, DType::f32)};
  expect_timed_run_is_clean(q, qin, "i32 div and k = 0 dot");
  EXPECT_EQ(run_on(Device::cuda(), q, qin)[1].to_f64(), std::vector<double>(20, 0.0))
      << "a k = 0 dot_general is all zeros";
}

// set_timing on CUDA times each equation with events: one record per equation, each a
// device time no longer than the event-timed whole run it belongs to.
TEST(CudaPrims, EquationTimesAreDeviceTimes) {
  SKIP_WITHOUT_GPU();
  Program p = trace({AType{{1 << 22}, DType::f32}}, [](Builder&, const V& a) {
    return V{reduce_sum(tanh(a[0]) * 2.0, {0})};
  });
  std::vector<Tensor> in = {sine_inputs(p)[0].to(Device::cuda())};
  Executor warm(Device::cuda());
  warm.run(p, in);
  Executor e(Device::cuda());
  e.set_timing(true);
  double whole = cuda_event_seconds(0, [&] { e.run(p, in); });
  ASSERT_EQ(e.timings().size(), p.eqns.size());
  double sum = 0;
  for (const EqnTiming& t : e.timings()) {
    EXPECT_GT(t.seconds, 0.0) << t.prim;
    sum += t.seconds;
  }
  EXPECT_LE(sum, whole * 1.001) << "equation events lie inside the run's events";
}

TEST(CudaPrims, TimedLstmMakesNoHostCopyAndNoDriverAllocation) {
  SKIP_WITHOUT_GPU();
#if !TANDEM_HAVE_CUDNN
  GTEST_SKIP() << "built without cuDNN";
#endif
  // The sequence lengths are read on the host once per buffer (cuda_host_mirror), not per call.
  const LstmConfig c{3, 4, 2, 5, 2, true};
  const Shape state{c.pseudo_layers(), c.batch, c.hidden};
  const int64_t nw = get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional);
  Builder b;
  std::vector<Value> in = {b.input({c.batch, c.seq, c.input}, DType::f32), b.input(state, DType::f32),
                           b.input(state, DType::f32), b.input({nw}, DType::f32), b.input({c.batch}, DType::i32)};
  Program p = b.build(b.bind("lstm_fwd", in, lstm_params(c, "HIGHEST")));
  std::vector<Tensor> host = sine_inputs(p);
  host[4] = Tensor::from_f64({4, 1, 3}, {c.batch}, DType::i32);
  expect_timed_run_is_clean(p, host, "lstm_fwd");
}

}  // namespace
}  // namespace tandem
