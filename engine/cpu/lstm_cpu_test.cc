// The gate loop against libm in f64 over [-20, 20]; and the CPU LSTM's threading: the recurrence split by batch rows gives bit-identical outputs
// and gradients for every thread count (1, 2, 3, 7 threads on 7 ragged rows, bidirectional,
// two layers) and from run to run. Correctness against lstm_ref is the LSTM suite's job
// (suites/lstm), which runs with the default thread count; engine tests stay off reference/.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/cpu/lstm_cpu.h"

namespace tandem::cpu {
namespace {

struct Result {
  std::vector<float> y, hn, cn, dx, dh0, dc0, dw;
};

Result run(const LstmConfig& c, const std::vector<int32_t>& lens, int threads) {
  set_lstm_threads(threads);
  const int64_t S = c.pseudo_layers(), state = S * c.batch * c.hidden;
  const int64_t ny = c.batch * c.seq * c.dirs() * c.hidden;
  const int64_t nw = get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional);
  std::mt19937 g(42);
  std::uniform_real_distribution<float> u(-1, 1);
  auto fill = [&](int64_t n) { std::vector<float> v(static_cast<size_t>(n)); for (float& x : v) x = u(g); return v; };
  std::vector<float> x = fill(c.batch * c.seq * c.input), h0 = fill(state), c0 = fill(state),
                     w = fill(nw), dy = fill(ny), dhn = fill(state), dcn = fill(state);
  Result r{std::vector<float>(size_t(ny)), std::vector<float>(size_t(state)), std::vector<float>(size_t(state)),
           std::vector<float>(x.size()), std::vector<float>(size_t(state)), std::vector<float>(size_t(state)),
           std::vector<float>(size_t(nw))};
  std::vector<float> reserve(size_t(lstm_reserve_layout(c).total));
  LstmSaved saved = lstm_saved_views(c, reserve.data(), x.data());
  lstm_forward(c, x.data(), h0.data(), c0.data(), w.data(), lens.data(), r.y.data(), r.hn.data(),
               r.cn.data(), &saved);
  lstm_backward(c, w.data(), lens.data(), saved, dy.data(), dhn.data(), dcn.data(), r.dx.data(),
                r.dh0.data(), r.dc0.data(), r.dw.data());
  return r;
}

TEST(LstmCpuThreads, BitIdenticalForEveryThreadCount) {
  const int before = lstm_threads();
  set_lstm_always_split_rows(true);  // split even where BLAS has threads, so chunking is exercised
  LstmConfig c{7, 6, 3, 5, 2, true};
  std::vector<int32_t> lens{6, 2, 1, 5, 6, 3, 4};
  Result one = run(c, lens, 1);
  for (int n : {1, 2, 3, 7, 16}) {
    Result r = run(c, lens, n);
    EXPECT_EQ(r.y, one.y) << n << " threads";
    EXPECT_EQ(r.hn, one.hn) << n << " threads";
    EXPECT_EQ(r.cn, one.cn) << n << " threads";
    EXPECT_EQ(r.dx, one.dx) << n << " threads";
    EXPECT_EQ(r.dh0, one.dh0) << n << " threads";
    EXPECT_EQ(r.dc0, one.dc0) << n << " threads";
    EXPECT_EQ(r.dw, one.dw) << n << " threads";
  }
  set_lstm_always_split_rows(false);
  set_lstm_threads(before);
}

// The gate functions (vector_math_exp.h, tested alone in vector_math_exp_test) through the step
// loop as dispatched on this machine (the widest clone the CPU has, with FMA contraction where it
// has it), within the 4u absolute that suites/lstm/lstm_bound.cc assumes per activation:
// pre-activations x in every gate, zero recurrent part and cell.
TEST(LstmGates, StepLoopMatchesLibm) {
  const int64_t H = 4001;
  const size_t G = static_cast<size_t>(4 * H), n = static_cast<size_t>(H);
  std::vector<float> pr(G), rr(G, 0.0f), bias(G, 0.0f), c0(n, 0.0f), a(G),
      c(n), h(n), y(n);
  for (int64_t j = 0; j < H; ++j)
    for (int k = 0; k < 4; ++k) pr[size_t(k * H + j)] = float(j - 2000) * 0.01f;  // [-20, 20]
  detail::cell_forward_row(H, pr.data(), rr.data(), bias.data(), c0.data(), a.data(), c.data(), h.data(), y.data());
  for (int64_t j = 0; j < H; ++j) {
    const double x = pr[size_t(j)], sig = 1.0 / (1.0 + std::exp(-x)), th = std::tanh(x);
    ASSERT_NEAR(a[size_t(j)], sig, 4 * 0x1p-24) << "i gate at x = " << x;
    ASSERT_NEAR(a[size_t(H + j)], sig, 4 * 0x1p-24) << "f gate at x = " << x;
    ASSERT_NEAR(a[size_t(2 * H + j)], th, 4 * 0x1p-24) << "g gate at x = " << x;
    ASSERT_NEAR(a[size_t(3 * H + j)], sig, 4 * 0x1p-24) << "o gate at x = " << x;
    const double cv = sig * th;
    ASSERT_NEAR(c[size_t(j)], cv, 8 * 0x1p-24) << "c at x = " << x;
    ASSERT_NEAR(h[size_t(j)], sig * std::tanh(cv), 16 * 0x1p-24) << "h at x = " << x;
    ASSERT_EQ(h[size_t(j)], y[size_t(j)]);
  }
}

}  // namespace
}  // namespace tandem::cpu
