// lstm_ref checks: the packed layout's counts, a hand-worked one-step cell, the ragged and
// reverse semantics, and the hand-written backward against central finite differences.
#include "reference/lstm_ref.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "reference/finite_difference.h"

namespace tandem::ref {
namespace {

std::vector<double> rnd(size_t n, uint64_t seed, double k = 1.0) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-k, k);
  std::vector<double> v(n);
  for (double& x : v) x = u(g);
  return v;
}

TEST(LstmRef, LayoutMatchesJaxCounts) {
  // get_num_params_in_lstm(I, H, L, bidi) from the JAX shapes, written out by hand.
  auto count = [](int64_t I, int64_t H, int64_t L, bool bi) {
    int64_t D = bi ? 2 : 1, n = 0;
    for (int64_t p = 0; p < L * D; ++p) n += 4 * H * ((p < D ? I : D * H) + H) + 8 * H;
    return n;
  };
  for (bool bi : {false, true})
    for (int64_t L : {1, 2, 4}) {
      LstmShape s{2, 3, 5, 7, L, bi};
      EXPECT_EQ(lstm_layout(s).total, count(5, 7, L, bi));
    }
  LstmLayout l = lstm_layout({1, 1, 2, 3, 2, true});
  EXPECT_EQ(l.w_ih[1].offset, 4 * 3 * 2 + 4 * 3 * 3);  // rev0 follows fwd0's W_ih, W_hh
  EXPECT_EQ(l.w_ih[2].cols, 6);                        // layer 1 reads concat(fwd, bwd)
  EXPECT_EQ(l.b_ih[0].offset, l.w_hh[3].offset + 12 * 3);  // biases after all matrices
}

TEST(LstmRef, OneStepCellByHand) {
  // H = 1, I = 1: gates from w = [W_ih(4), W_hh(4), b_ih(4), b_hh(4)].
  LstmShape s{1, 1, 1, 1, 1, false};
  std::vector<double> w = {0.5, -0.25, 1.0, 0.75, 0.1, 0.2, -0.3, 0.4, 0.0, 0.1, 0.0, -0.1, 0.05, 0.0, 0.2, 0.0};
  double x = 0.8, h = -0.5, c = 0.3;
  auto sg = [](double v) { return 1 / (1 + std::exp(-v)); };
  double i = sg(0.5 * x + 0.1 * h + 0.05), f = sg(-0.25 * x + 0.2 * h + 0.1);
  double gg = std::tanh(1.0 * x - 0.3 * h + 0.2), o = sg(0.75 * x + 0.4 * h - 0.1);
  double c1 = f * c + i * gg, h1 = o * std::tanh(c1);
  LstmOutputs r = lstm_forward(s, {x}, {h}, {c}, w, {1});
  EXPECT_NEAR(r.y[0], h1, 1e-15);
  EXPECT_NEAR(r.h_n[0], h1, 1e-15);
  EXPECT_NEAR(r.c_n[0], c1, 1e-15);
}

TEST(LstmRef, RaggedAndReverseSemantics) {
  // A reverse layer on row b equals a forward layer on that row's prefix flipped.
  LstmShape bi{2, 4, 2, 3, 1, true}, fw{1, 4, 2, 3, 1, false};
  LstmLayout lb = lstm_layout(bi);
  std::vector<double> w = rnd(size_t(lb.total), 1), x = rnd(16, 2), h0 = rnd(12, 3), c0 = rnd(12, 4);
  std::vector<int64_t> lens = {2, 4};
  LstmOutputs r = lstm_forward(bi, x, h0, c0, w, lens);
  // Row 0 (length 2): y is zero at t = 2, 3 in both directions.
  for (int64_t t = 2; t < 4; ++t)
    for (int64_t j = 0; j < 6; ++j) EXPECT_EQ(r.y[(0 * 4 + t) * 6 + j], 0.0);
  // Reverse pseudo-layer weights, copied into a 1-direction model.
  std::vector<double> wr;
  auto take = [&](const LstmSlot& sl) {
    wr.insert(wr.end(), w.begin() + sl.offset, w.begin() + sl.offset + sl.rows * sl.cols);
  };
  take(lb.w_ih[1]); take(lb.w_hh[1]); take(lb.b_ih[1]); take(lb.b_hh[1]);
  std::vector<double> xf(8, 0.0);  // row 0 flipped within length 2, then padding
  for (int64_t t = 0; t < 2; ++t)
    for (int64_t j = 0; j < 2; ++j) xf[t * 2 + j] = x[(1 - t) * 2 + j];
  std::vector<double> h0r(h0.begin() + 6, h0.begin() + 9), c0r(c0.begin() + 6, c0.begin() + 9);
  LstmOutputs f = lstm_forward(fw, xf, h0r, c0r, wr, {2});
  for (int64_t t = 0; t < 2; ++t)
    for (int64_t j = 0; j < 3; ++j) EXPECT_NEAR(r.y[((1 - t)) * 6 + 3 + j], f.y[t * 3 + j], 1e-14);
  for (int64_t j = 0; j < 3; ++j) EXPECT_NEAR(r.h_n[(1 * 2 + 0) * 3 + j], f.h_n[j], 1e-14);
}

TEST(LstmRef, RejectsLengthZeroAndBadSizes) {
  LstmShape s{2, 3, 1, 1, 1, false};
  std::vector<double> w(size_t(lstm_layout(s).total)), x(6), h(2);
  EXPECT_THROW(lstm_forward(s, x, h, h, w, {0, 3}), std::invalid_argument);
  EXPECT_THROW(lstm_forward(s, x, h, h, w, {1, 4}), std::invalid_argument);
  EXPECT_THROW(lstm_forward(s, x, h, h, std::vector<double>(3), {1, 1}), std::invalid_argument);
}

// d(loss)/d(every input) against central differences, loss = <y,ry> + <h_n,rh> + <c_n,rc>.
void fd_check(const LstmShape& s, const std::vector<int64_t>& lens) {
  const int64_t n_state = s.pseudo_layers() * s.batch * s.hidden;
  const int64_t n_y = s.batch * s.seq * s.dirs() * s.hidden;
  std::vector<double> x = rnd(size_t(s.batch * s.seq * s.input), 11), h0 = rnd(size_t(n_state), 12),
                      c0 = rnd(size_t(n_state), 13), w = rnd(size_t(lstm_layout(s).total), 14, 0.6);
  std::vector<double> ry = rnd(size_t(n_y), 15), rh = rnd(size_t(n_state), 16), rc = rnd(size_t(n_state), 17);
  LstmGrads g = lstm_backward(s, x, h0, c0, w, lens, ry, rh, rc);
  // Padded dy must not matter: the gradient is computed with ry as given.
  auto loss = [&](const std::vector<double>& xx, const std::vector<double>& hh,
                  const std::vector<double>& cc, const std::vector<double>& ww) {
    LstmOutputs o = lstm_forward(s, xx, hh, cc, ww, lens);
    double L = 0;
    for (size_t i = 0; i < o.y.size(); ++i) L += o.y[i] * ry[i];
    for (size_t i = 0; i < o.h_n.size(); ++i) L += o.h_n[i] * rh[i] + o.c_n[i] * rc[i];
    return L;
  };
  auto check = [&](const char* what, const std::vector<double>& at, const std::vector<double>& grad, auto&& f) {
    for (size_t i = 0; i < at.size(); ++i) {
      double fd = finite_difference(f, at, i, 1e-5);
      EXPECT_NEAR(grad[i], fd, 1e-7 * (1 + std::abs(fd))) << what << "[" << i << "]";
    }
  };
  check("dx", x, g.dx, [&](const std::vector<double>& v) { return loss(v, h0, c0, w); });
  check("dh0", h0, g.dh0, [&](const std::vector<double>& v) { return loss(x, v, c0, w); });
  check("dc0", c0, g.dc0, [&](const std::vector<double>& v) { return loss(x, h0, v, w); });
  check("dw", w, g.dw, [&](const std::vector<double>& v) { return loss(x, h0, c0, v); });
}

TEST(LstmRef, BackwardMatchesFiniteDifferences) {
  fd_check({1, 1, 1, 1, 1, false}, {1});
  fd_check({2, 3, 2, 2, 1, false}, {3, 1});
  fd_check({3, 4, 2, 2, 2, true}, {2, 4, 1});  // ragged, unsorted, bidirectional, stacked
  fd_check({2, 3, 1, 3, 3, true}, {3, 3});
}

TEST(LstmRef, PaddedCotangentsAreIgnored) {
  LstmShape s{2, 3, 2, 2, 2, true};
  std::vector<int64_t> lens = {1, 3};
  const int64_t n = s.pseudo_layers() * 2 * 2;
  std::vector<double> x = rnd(12, 1), h0 = rnd(size_t(n), 2), c0 = rnd(size_t(n), 3),
                      w = rnd(size_t(lstm_layout(s).total), 4), dy = rnd(24, 5), z(size_t(n), 0.0);
  LstmGrads a = lstm_backward(s, x, h0, c0, w, lens, dy, z, z);
  for (int64_t t = 1; t < 3; ++t)
    for (int64_t j = 0; j < 4; ++j) dy[(0 * 3 + t) * 4 + j] = 1e3;  // row 0 is padded there
  LstmGrads b = lstm_backward(s, x, h0, c0, w, lens, dy, z, z);
  EXPECT_EQ(a.dx, b.dx);
  EXPECT_EQ(a.dw, b.dw);
  EXPECT_EQ(a.dh0, b.dh0);
  for (int64_t t = 1; t < 3; ++t)
    for (int64_t j = 0; j < 2; ++j) EXPECT_EQ(a.dx[(0 * 3 + t) * 2 + j], 0.0);
}

}  // namespace
}  // namespace tandem::ref
