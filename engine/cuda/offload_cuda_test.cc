// GPU tests of offloading (label gpu; each skips with the reason when no device is visible): device_put between a
// device's memory and its pinned host pool (values, memory kinds, the Allocator's per-kind counters and transfer
// counts, the pool reusing its blocks once warm), and a vjp under an offloading policy on the GPU: same gradients as
// the policy that saves the same values on the device, every offloaded byte moved and counted, and the device's
// measured peak lower by the offloaded bytes less one layer's reload.
#include <gtest/gtest.h>

#include "engine/core/allocator.h"
#include "engine/cuda/cuda_info.h"
#include "engine/cuda/pinned_pool.h"
#include "engine/ir/executor.h"
#include "engine/passes/offload_test_util.h"
#include "engine/passes/saved_residuals.h"
#include "engine/prims/device_put.h"

namespace tandem {
namespace {
using V = std::vector<Value>;

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible"

TEST(OffloadCuda, DevicePutRoundTripThroughThePinnedPool) {
  SKIP_WITHOUT_GPU();
  const Device dev = Device::cuda(0), host = dev.with_memory(MemoryKind::pinned_host);
  AType t{{1000}, DType::f32};
  Program p = trace({t}, [](Builder&, const V& v) {
    Value h = device_put(v[0] * 2.0, MemoryKind::pinned_host);
    return V{h, device_put(h, MemoryKind::device, MemoryKind::pinned_host) + 1.0};
  });
  std::vector<double> xs(1000);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = double(i) * 0.5 - 100;
  Tensor x = Tensor::from_f64(xs, {1000}, DType::f32).to(dev);
  Allocator& A = Allocator::instance();
  Executor(dev).run(p, {x});  // warm: the pool's first block comes from cudaHostAlloc
  const int64_t host_live0 = A.stats(host).live_bytes, driver0 = pinned_pool_stats().driver_allocations;
  A.reset_peak(host);
  A.reset_transfers(DeviceKind::cuda, 0);
  std::vector<Tensor> out = Executor(dev).run(p, {x});
  EXPECT_EQ(out[0].device(), host);
  EXPECT_EQ(out[1].device(), dev);
  std::vector<double> h = out[0].to_f64(), back = out[1].to_f64();
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_EQ(h[i], 2 * xs[i]);
    EXPECT_EQ(back[i], 2 * xs[i] + 1);
  }
  EXPECT_EQ(A.stats(host).peak_bytes - host_live0, 4000);
  TransferStats moved = A.transfers(DeviceKind::cuda, 0);
  EXPECT_EQ(moved.to_host_bytes, 4000);
  EXPECT_EQ(moved.to_device_bytes, 4000);
  EXPECT_EQ(pinned_pool_stats().driver_allocations, driver0) << "a warm run asked the driver for pinned memory";
  out.clear();
  EXPECT_EQ(A.stats(host).live_bytes, host_live0);
}

TEST(OffloadCuda, OffloadLowersTheDevicePeak) {
  SKIP_WITHOUT_GPU();
  const int L = 6;
  const int64_t n = 256, layer_bytes = n * n * 4;
  const Device dev = Device::cuda(0);
  std::vector<Tensor> in = offload_test::inputs(L, n, dev);
  std::vector<Tensor> ct{Tensor::scalar(1, DType::f32).to(dev)};
  Allocator& A = Allocator::instance();
  struct Run {
    std::vector<double> grads;
    int64_t peak;
    TransferStats moved;
    int64_t offloaded;
  };
  auto run = [&](const std::string& policy) {
    VjpProgram v = vjp(offload_test::layers(L, n, policy));
    run_vjp(v, in, ct, dev);  // warm the pools
    cuda_synchronize(0);
    const int64_t live0 = A.stats(dev).live_bytes;
    A.reset_peak(dev);
    A.reset_transfers(DeviceKind::cuda, 0);
    Run r{{}, 0, {}, saved_residuals(v).offloaded_bytes};
    {
      VjpRun out = run_vjp(v, in, ct, dev);
      for (const Tensor& g : out.cotangents)
        for (double x : g.to_f64()) r.grads.push_back(x);
    }
    r.peak = A.stats(dev).peak_bytes - live0;
    r.moved = A.transfers(DeviceKind::cuda, 0);
    return r;
  };
  for (const auto& [off_policy, save_policy] : offload_test::offload_vs_save()) {
    Run off = run(off_policy), save = run(save_policy);
    EXPECT_EQ(off.offloaded, L * layer_bytes) << off_policy;
    EXPECT_EQ(off.moved.to_host_bytes, off.offloaded) << off_policy;
    EXPECT_EQ(off.moved.to_device_bytes, off.offloaded) << off_policy;
    EXPECT_EQ(off.grads, save.grads) << off_policy << ": the same kernels on the same values";
    EXPECT_GE(save.peak - off.peak, off.offloaded - layer_bytes) << off_policy;
  }
}

}  // namespace
}  // namespace tandem
