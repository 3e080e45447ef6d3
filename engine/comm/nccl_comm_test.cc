// The NCCL transport on device buffers, at any world size: skips (with the reason, the same on every rank) when NCCL is
// not built, no GPU is visible, or a node has more ranks than GPUs. Inputs are small integers, so every check is exact.
#include <gtest/gtest.h>

#include "engine/comm/mpi_communicator.h"
#include "engine/comm/nccl_communicator.h"
#include "engine/core/error.h"

#if defined(TANDEM_HAVE_NCCL)
#include <cuda_runtime.h>

#include <stdexcept>
#endif

namespace tandem::comm {
namespace {

TEST(Nccl, UnavailableIsASkipNotACrash) {
  std::string why;
  if (!nccl_available(&why)) {
    EXPECT_FALSE(why.empty());
  }
}

#if defined(TANDEM_HAVE_NCCL)
// The world's NCCL communicator, or null and why (no GPU or no NCCL at run time): a skip.
std::unique_ptr<Communicator> nccl_or_skip(std::string* why) {
  try {
    return make_nccl_communicator(mpi_world());
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::unsupported) throw;
    *why = e.what();
    return nullptr;
  }
}

// A failed CUDA call throws, which gtest reports as the test's failure with the call's error.
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Host vector → device, run, device → host.
struct Dev {
  float* p = nullptr;
  size_t n;
  explicit Dev(const std::vector<float>& h) : n(h.size()) {
    check(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  }
  explicit Dev(size_t count) : n(count) {
    check(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc");
    check(cudaMemset(p, 0, n * sizeof(float)), "cudaMemset");
  }
  ~Dev() { EXPECT_EQ(cudaFree(p), cudaSuccess); }
  std::vector<float> host() const {
    std::vector<float> h(n);
    check(cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
    return h;
  }
};

TEST(Nccl, TransportOpsOnDeviceBuffers) {
  std::string why;
  auto c = nccl_or_skip(&why);
  if (!c) GTEST_SKIP() << why;
  const int n = c->size(), r = c->rank();
  EXPECT_EQ(c->backend(), "nccl");
  // all_reduce sum / max
  Dev x(std::vector<float>{float(r), float(2 * r + 1)}), y(2);
  c->all_reduce(x.p, y.p, 2, DType::f32, ReduceOp::sum);
  EXPECT_EQ(y.host(), (std::vector<float>{n * (n - 1) / 2.0f, float(n * n)}));
  c->all_reduce(x.p, y.p, 2, DType::f32, ReduceOp::max);
  EXPECT_EQ(y.host(), (std::vector<float>{float(n - 1), float(2 * n - 1)}));
  // all_gather: rank order
  Dev g(static_cast<size_t>(2 * n));
  c->all_gather(x.p, g.p, 2, DType::f32);
  std::vector<float> want;
  for (int q = 0; q < n; ++q) want.insert(want.end(), {float(q), float(2 * q + 1)});
  EXPECT_EQ(g.host(), want);
  // reduce_scatter: block q of every rank is (q, r) → rank q keeps sum over r
  std::vector<float> blocks;
  for (int q = 0; q < n; ++q) blocks.push_back(float(q * 10 + r));
  Dev b(blocks), s(1);
  c->reduce_scatter(b.p, s.p, 1, DType::f32, ReduceOp::sum);
  EXPECT_EQ(s.host()[0], float(n * r * 10 + n * (n - 1) / 2));
  // all_to_all: rank r's block q is 10r + q; recv block q = 10q + r
  Dev t(static_cast<size_t>(n));
  c->all_to_all(b.p, t.p, 1, DType::f32);  // b's block q = 10q + r
  for (int q = 0; q < n; ++q) EXPECT_EQ(t.host()[size_t(q)], float(r * 10 + q));
  // broadcast from the last rank
  Dev z(std::vector<float>{float(r)});
  c->broadcast(z.p, 1, DType::f32, n - 1);
  EXPECT_EQ(z.host()[0], float(n - 1));
  // split: even / odd ranks
  auto sub = c->split(r % 2, r);
  Dev o(1);
  c->barrier();
  sub->all_reduce(x.p, o.p, 1, DType::f32, ReduceOp::sum);
  float even_odd = 0;
  for (int q = r % 2; q < n; q += 2) even_odd += float(q);
  EXPECT_EQ(o.host()[0], even_odd);
}

// Inputs produced on the default stream (here queued cudaMemsetAsync, as the engine's kernels and copies are) must be
// complete before NCCL reads them on its own stream, and the outputs complete before the default stream or the host
// reads them. Without the ordering NCCL overtakes the queued writes and sums stale bytes.
TEST(Nccl, WaitsForInputsQueuedOnTheDefaultStream) {
  std::string why;
  auto c = nccl_or_skip(&why);
  if (!c) GTEST_SKIP() << why;
  const size_t n = size_t(64) << 20;  // 256 MiB of i32: each memset takes a while
  int32_t *x = nullptr, *y = nullptr;
  ASSERT_EQ(cudaMalloc(&x, n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&y, n * 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(x, 0, n * 4), cudaSuccess);
  for (int k = 0; k < 8; ++k) ASSERT_EQ(cudaMemsetAsync(x, k % 2 ? 1 : 2, n * 4, 0), cudaSuccess);
  c->all_reduce(x, y, int64_t(n), DType::i32, ReduceOp::sum);
  std::vector<int32_t> h(n);
  ASSERT_EQ(cudaMemcpy(h.data(), y, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  const int32_t want = 0x01010101 * c->size();
  size_t wrong = 0;
  for (int32_t v : h) wrong += v != want;
  EXPECT_EQ(wrong, 0u) << "NCCL read inputs before the default stream had written them";
  EXPECT_EQ(cudaFree(x), cudaSuccess);
  EXPECT_EQ(cudaFree(y), cudaSuccess);
}
#endif

}  // namespace
}  // namespace tandem::comm
