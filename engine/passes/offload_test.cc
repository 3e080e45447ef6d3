// Offload (offload.h, device_put.h): where the vjp pass puts the transfers, that running them on the CPU really moves
// the residuals into the separately counted pinned_host memory (Allocator transfers and stats, not the prediction),
// that the device's measured peak drops by what was offloaded while the gradients stay bitwise those of the saving
// policy, and device_put's own rules (impl, VJP = the reverse transfer, batching, bad input).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/passes/offload_test_util.h"
#include "engine/passes/saved_residuals.h"
#include "engine/passes/vmap.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/device_put.h"

namespace tandem {
namespace {
using V = std::vector<Value>;

using offload_test::inputs;
using offload_test::layers;

struct Measured {
  VjpProgram v;
  SavedResiduals s;
  std::vector<double> grads;
  int64_t device_peak = 0, host_peak = 0;
  TransferStats moved;
  std::vector<Device> residual_devices;
};

Measured measure(const Program& p, const std::vector<Tensor>& in) {
  Measured m{vjp(p), {}, {}, 0, 0, {}, {}};
  m.s = saved_residuals(m.v);
  Allocator& A = Allocator::instance();
  const Device dev = Device::cpu(), host = dev.with_memory(MemoryKind::pinned_host);
  const std::vector<Tensor> ct{Tensor::scalar(1, DType::f32)};  // held by the caller, as the inputs
  int64_t live0 = A.stats(dev).live_bytes, host0 = A.stats(host).live_bytes;
  A.reset_peak(dev);
  A.reset_peak(host);
  A.reset_transfers(DeviceKind::cpu);
  {
    VjpRun r = run_vjp(m.v, in, ct);
    for (const Tensor& t : r.cotangents)
      for (double g : t.to_f64()) m.grads.push_back(g);
    for (const Tensor& t : r.residuals) m.residual_devices.push_back(t.device());
  }
  m.device_peak = A.stats(dev).peak_bytes - live0;
  m.host_peak = A.stats(host).peak_bytes - host0;
  m.moved = A.transfers(DeviceKind::cpu);
  EXPECT_EQ(A.stats(host).live_bytes, host0) << "pinned host memory leaked";
  return m;
}

int count(const Program& p, const std::string& prim) {
  return int(std::count_if(p.eqns.begin(), p.eqns.end(), [&](const Eqn& e) { return e.prim->name == prim; }));
}

TEST(Offload, TransfersSitAtTheResidualBoundary) {
  VjpProgram v = vjp(layers(3, 4, "save_and_offload_only_these_names(act|pre)"));
  // One offload per offloaded residual (pre of each layer), each right after its producer
  // (pre's name), and one reload per residual, right before the first equation reading it.
  int offloaded = 0;
  for (const Residual& r : v.residuals) offloaded += r.offloaded;
  EXPECT_EQ(offloaded, 3);
  EXPECT_EQ(count(v.forward, "device_put"), 3);
  EXPECT_EQ(count(v.backward, "device_put"), 3);
  for (size_t k = 0; k < v.forward.eqns.size(); ++k) {
    const Eqn& e = v.forward.eqns[k];
    if (e.prim->name != "device_put") continue;
    EXPECT_TRUE(is_offload(e));
    ASSERT_GT(k, 0u);
    EXPECT_EQ(v.forward.eqns[k - 1].out.at(0)->id, e.in.at(0).var->id) << "offload not right after its producer";
  }
  for (size_t k = 0; k < v.backward.eqns.size(); ++k) {
    const Eqn& e = v.backward.eqns[k];
    if (e.prim->name != "device_put") continue;
    EXPECT_FALSE(is_offload(e));
    ASSERT_LT(k + 1, v.backward.eqns.size());
    bool next_reads = false;  // the reload's next equation reads it (the first use)
    for (size_t j = k + 1; j < v.backward.eqns.size() && !next_reads; ++j) {
      if (v.backward.eqns[j].prim->name == "device_put") continue;  // reloads placed together
      for (const Atom& a : v.backward.eqns[j].in) next_reads |= !a.is_literal() && a.var->id == e.out[0]->id;
      break;
    }
    EXPECT_TRUE(next_reads) << "reload at " << k << " is not just before its first use";
  }
}

TEST(Offload, MovesTheBytesAndLowersTheDevicePeak) {
  const int L = 6;
  const int64_t n = 32;
  std::vector<Tensor> in = inputs(L, n);
  for (const auto& [off_policy, save_policy] : offload_test::offload_vs_save()) {
    Measured off = measure(layers(L, n, off_policy), in), save = measure(layers(L, n, save_policy), in);
    const int64_t layer_bytes = n * n * 4;
    EXPECT_EQ(off.s.offloaded_bytes, L * layer_bytes) << off_policy;
    EXPECT_EQ(save.s.offloaded_bytes, 0) << save_policy;
    // Measured: every offloaded byte went to pinned host memory and came back once.
    EXPECT_EQ(off.moved.to_host_bytes, off.s.offloaded_bytes) << off_policy;
    EXPECT_EQ(off.moved.to_device_bytes, off.s.offloaded_bytes) << off_policy;
    EXPECT_EQ(off.moved.to_host_count, L) << off_policy;
    EXPECT_EQ(save.moved.to_host_bytes + save.moved.to_device_bytes, 0) << save_policy;
    EXPECT_EQ(off.host_peak, off.s.offloaded_bytes) << off_policy;  // all held between the passes
    for (size_t j = 0; j < off.v.residuals.size(); ++j)
      EXPECT_EQ(off.residual_devices[j].memory, off.v.residuals[j].offloaded ? MemoryKind::pinned_host : MemoryKind::device);
    // Same results as saving on the device, bit for bit.
    EXPECT_EQ(off.grads, save.grads) << off_policy;
    // The device peak drops by what was offloaded, less the one layer's reload the backward holds at its own peak.
    EXPECT_GE(save.device_peak - off.device_peak, off.s.offloaded_bytes - layer_bytes)
        << off_policy << ": device peak " << off.device_peak << " vs " << save.device_peak;
    // And the liveness model predicts it. It counts the caller's inputs too, and its 4-byte
    // cotangent where the backward is the peak.
    const int64_t in_bytes = (L + 1) * layer_bytes;
    for (const Measured* m : {&off, &save})
      EXPECT_LE(std::abs(predicted_vjp_peak_bytes(m->v) - (m->device_peak + in_bytes)), 4) << m->v.forward.eqns.size();
  }
}

TEST(Offload, DevicePutRules) {
  AType t{{3}, DType::f32};
  Tensor x = Tensor::from_f64({1, -2, 3}, {3}, DType::f32);
  // Impl: a move into the CPU's pinned_host memory and back, counted; a no-op into the same kind.
  Program round = trace({t}, [](Builder&, const V& v) {
    Value h = device_put(v[0] * 2.0, MemoryKind::pinned_host);
    return V{h, device_put(h, MemoryKind::device, MemoryKind::pinned_host), device_put(v[0], MemoryKind::device)};
  });
  Allocator::instance().reset_transfers(DeviceKind::cpu);
  std::vector<Tensor> out = Executor().run(round, {x});
  EXPECT_EQ(out[0].device(), Device::cpu().with_memory(MemoryKind::pinned_host));
  EXPECT_EQ(out[1].device(), Device::cpu());
  EXPECT_EQ(out[1].to_f64(), (std::vector<double>{2, -4, 6}));
  EXPECT_EQ(out[2].raw(), x.raw());
  TransferStats moved = Allocator::instance().transfers(DeviceKind::cpu);
  EXPECT_EQ(moved.to_host_bytes, 12);
  EXPECT_EQ(moved.to_device_bytes, 12);
  // VJP: the transpose is the reverse transfer (pinned_host -> device for the cotangent).
  Program f = trace({t}, [](Builder&, const V& v) {
    return V{reduce_sum(device_put(sin(v[0]), MemoryKind::pinned_host) * 3.0, {0})};
  });
  VjpProgram g = vjp(f);
  bool reverse = false;
  for (const Eqn& e : g.backward.eqns)
    reverse |= e.prim->name == "device_put" && e.params.get_string("memory_kind", "") == "device" &&
               e.params.get_string("src_memory_kind", "") == "pinned_host";
  EXPECT_TRUE(reverse);
  std::vector<double> dx = run_vjp(g, {x}, {Tensor::scalar(1, DType::f32)}).cotangents.at(0).to_f64();
  std::vector<double> xv = x.to_f64();
  for (size_t i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(float(dx[i]), float(3 * std::cos(xv[i])));
  // Batching: the batch axis passes through.
  Program b = vmap(trace({t}, [](Builder&, const V& v) { return V{device_put(v[0], MemoryKind::pinned_host)}; }),
                   {1}, {1}, 2);
  EXPECT_EQ(count(b, "device_put"), 1);
  EXPECT_EQ(b.out_types().at(0).shape, (Shape{3, 2}));
  // Bad input: an unknown memory kind is refused when the equation is built.
  EXPECT_THROW(trace({t}, [](Builder& bb, const V& v) {
                 return V{bb.bind1("device_put", {v[0]}, {{"memory_kind", std::string("disk")}})};
               }), Error);
}

}  // namespace
}  // namespace tandem
