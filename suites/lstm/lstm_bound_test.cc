// The LSTM's data-derived bound can fail: an LSTM that rounds its weights to TF32 (10 mantissa bits: a precision bug
// the f32 path must not have) is caught on every output, while the flat tolerance it replaced passed that bug's weight
// gradient; and the bound is zero exactly where the output is exact (padded steps of y).
#include "suites/lstm/lstm_bound.h"

#include <cmath>

#include <gtest/gtest.h>

#include "reference/lstm_ref.h"
#include "suites/lstm/lstm_check.h"

namespace tandem {
namespace {

// Round to 11 significant bits (TF32's 10 stored mantissa bits), to nearest.
double tf32(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  int e;
  double m = std::frexp(v, &e);
  return std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11);
}

struct RefRun {
  ref::LstmOutputs f;
  ref::LstmGrads g;
};

RefRun reference(const LstmConfig& c, const std::vector<Tensor>& host, bool round_w) {
  std::vector<double> v[8];
  for (int i = 0; i < 8; ++i) v[i] = host[size_t(i)].to_f64();
  if (round_w)
    for (double& w : v[3]) w = tf32(w);
  std::vector<int64_t> lens = lens_of(host[4]);
  return {ref::lstm_forward(ref_shape(c), v[0], v[1], v[2], v[3], lens),
          ref::lstm_backward(ref_shape(c), v[0], v[1], v[2], v[3], lens, v[5], v[6], v[7])};
}

std::vector<Tensor> as_f64(const RefRun& r) {
  std::vector<Tensor> t;
  for (const std::vector<double>* a : {&r.f.y, &r.f.h_n, &r.f.c_n, &r.g.dx, &r.g.dh0, &r.g.dc0, &r.g.dw})
    t.push_back(Tensor::from_f64(*a, {int64_t(a->size())}, DType::f64));
  return t;
}

const LstmConfig kConfig{4, 5, 3, 6, 2, true};

TEST(LstmBound, CatchesTf32WeightsOnEveryOutput) {
  std::vector<Tensor> host = make_lstm_inputs(kConfig, lengths_pattern("ragged", 4, 5, "bound"), "bound");
  RefRun exact = reference(kConfig, host, false), buggy = reference(kConfig, host, true);
  std::vector<NamedOutput> outs = bounded_outputs(
      kConfig, host, {exact.f.y, exact.f.h_n, exact.f.c_n, exact.g.dx, exact.g.dh0, exact.g.dc0, exact.g.dw});
  std::vector<Tensor> got = as_f64(buggy);
  for (size_t i = 0; i < outs.size(); ++i) {
    CompareReport rep = compare(outs[i].want, got[i].to_f64(), outs[i].spec, &outs[i].scale);
    EXPECT_FALSE(rep.pass) << outs[i].name << ": " << rep.text();
  }
  // The flat tolerance this bound replaced let the same bug through on dw.
  LstmSpecs flat = lstm_specs(kConfig, false);
  EXPECT_TRUE(compare(exact.g.dw, buggy.g.dw, flat.dw).pass);
  // The exact reference itself passes with room to spare (every bound is positive where the
  // value is not exactly 0 by construction).
  for (size_t i = 0; i < outs.size(); ++i)
    EXPECT_TRUE(compare(outs[i].want, outs[i].want, outs[i].spec, &outs[i].scale).pass) << outs[i].name;
}

TEST(LstmBound, ZeroExactlyAtPaddedSteps) {
  std::vector<int32_t> lens = lengths_pattern("unsorted", 4, 5, "pad");
  std::vector<Tensor> host = make_lstm_inputs(kConfig, lens, "pad");
  LstmBounds b = lstm_error_bounds(kConfig, host, false);
  const int64_t DH = kConfig.dirs() * kConfig.hidden;
  for (int64_t r = 0; r < kConfig.batch; ++r)
    for (int64_t t = 0; t < kConfig.seq; ++t)
      for (int64_t j = 0; j < DH; ++j) {
        double e = b.y[size_t((r * kConfig.seq + t) * DH + j)];
        if (t < lens[size_t(r)]) EXPECT_GT(e, 0) << r << "," << t;
        else EXPECT_EQ(e, 0) << r << "," << t;
      }
  ASSERT_EQ(int64_t(b.dw.size()), host[3].numel());
}

}  // namespace
}  // namespace tandem
