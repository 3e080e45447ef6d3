// cuDNN LSTM backward: cudnnRNNBackwardWeights_v8 has ADD semantics, so (1) the lstm_bwd primitive must zero dw itself
// — two calls give the same dw, equal to the CPU engine's — and (2) lstm_bwd_cudnn_accumulate, run twice into a
// non-zero buffer R, leaves R + 2·dw while dx, dh0, dc0 stay those of a plain backward. Both backwards read one
// training forward's reserve, so (2) also checks that lstm_bwd leaves its reserve operand as it found it. Skips without
// a GPU or without cuDNN.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/test_values.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/lstm_cudnn.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/prims/lstm.h"

namespace tandem {
namespace {

// The backward's own operands: dy, dh_n, dc_n, x, h0, c0, w, seq_lengths (host); y and the
// reserve come from a training forward on the device.
std::vector<Tensor> bwd_operands(const LstmConfig& c, const std::vector<double>& lens) {
  const Shape state{c.pseudo_layers(), c.batch, c.hidden};
  const int64_t nw = get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional);
  auto rnd = [](const Shape& s, unsigned seed, double scale = 1.0) {
    std::vector<double> v = random_values(num_elements(s), seed);
    for (double& x : v) x *= scale;
    return Tensor::from_f64(v, s, DType::f32);
  };
  return {rnd({c.batch, c.seq, c.dirs() * c.hidden}, 1), rnd(state, 2), rnd(state, 3),
          rnd({c.batch, c.seq, c.input}, 4), rnd(state, 5), rnd(state, 6),
          rnd({nw}, 7, 1.0 / std::sqrt(double(c.hidden))),
          Tensor::from_f64(lens, {c.batch}, DType::i32)};
}

std::vector<Tensor> run_bwd(const LstmConfig& c, const std::vector<Tensor>& host, Device d) {
  Builder b;
  std::vector<Value> in;
  for (const Tensor& t : host) in.push_back(b.input(t.shape(), t.dtype()));
  const Params tp = lstm_params(c, "HIGHEST", /*training=*/true);
  std::vector<Value> f = b.bind("lstm_fwd", {in[3], in[4], in[5], in[6], in[7]}, tp);
  in.push_back(f[0]);
  in.push_back(f[3]);
  Program p = b.build(b.bind("lstm_bwd", in, tp));
  std::vector<Tensor> dev;
  for (const Tensor& t : host) dev.push_back(t.to(d));
  return Executor(d).run(p, dev);
}

// |got - want| <= tol · (1 + |want|), elementwise.
void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_LE(std::abs(got[i] - want[i]), tol * (1 + std::abs(want[i])))
        << what << ": first bad index " << i << " expected " << want[i] << " got " << got[i];
}

const LstmConfig kConfig{3, 4, 2, 5, 2, true};
const std::vector<double> kLens{4, 1, 3};

TEST(LstmCudnn, BackwardZeroesWeightGradient) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
#if !TANDEM_HAVE_CUDNN
  GTEST_SKIP() << "built without cuDNN";
#endif
  std::vector<Tensor> host = bwd_operands(kConfig, kLens);
  std::vector<Tensor> cpu = run_bwd(kConfig, host, Device::cpu());
  std::vector<Tensor> a = run_bwd(kConfig, host, Device::cuda(0));
  std::vector<Tensor> b = run_bwd(kConfig, host, Device::cuda(0));
  expect_close(a[3].to_f64(), cpu[3].to_f64(), 1e-4, "dw (cuDNN vs CPU)");
  expect_close(b[3].to_f64(), a[3].to_f64(), 1e-5, "dw (second call vs first)");
}

TEST(LstmCudnn, WeightGradientAccumulatesIntoNonZeroBuffer) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible";
#if !TANDEM_HAVE_CUDNN
  GTEST_SKIP() << "built without cuDNN";
#else
  std::vector<Tensor> host = bwd_operands(kConfig, kLens);
  std::vector<Tensor> plain = run_bwd(kConfig, host, Device::cuda(0));
  std::vector<Tensor> dev;
  for (const Tensor& t : host) dev.push_back(t.to(Device::cuda(0)));
  const int64_t nw = host[6].numel();
  std::vector<double> r = random_values(nw, 11);
  Tensor dw = Tensor::from_f64(r, {nw}, DType::f32).to(Device::cuda(0));
  const Params p = lstm_params(kConfig, "HIGHEST", /*training=*/true);
  std::vector<Tensor> fwd = cuda_impl::lstm_fwd_cudnn({dev[3], dev[4], dev[5], dev[6], dev[7]}, p);
  dev.push_back(fwd[0]);
  dev.push_back(fwd[3]);
  std::vector<Tensor> g1 = cuda_impl::lstm_bwd_cudnn_accumulate(dev, p, dw);
  std::vector<Tensor> g2 = cuda_impl::lstm_bwd_cudnn_accumulate(dev, p, dw);
  std::vector<double> want = Tensor::from_f64(r, {nw}, DType::f32).to_f64(), one = plain[3].to_f64();
  for (int64_t i = 0; i < nw; ++i) want[size_t(i)] += 2 * one[size_t(i)];
  expect_close(dw.to_f64(), want, 1e-5, "dw after two accumulating backwards (R + 2 dw)");
  const char* names[] = {"dx", "dh0", "dc0"};
  for (int i = 0; i < 3; ++i) {
    expect_close(g1[size_t(i)].to_f64(), plain[size_t(i)].to_f64(), 1e-6, names[i]);
    expect_close(g2[size_t(i)].to_f64(), plain[size_t(i)].to_f64(), 1e-6, names[i]);
  }
#endif
}

}  // namespace
}  // namespace tandem
