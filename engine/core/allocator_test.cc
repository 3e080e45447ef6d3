// The Allocator's counters are exact: live bytes follow every allocate/deallocate, peak is
// the most live bytes since the last reset_peak, and devices and memory kinds are counted apart. The remat
// and scan_hoist suites' peak-memory claims are differences of these counters.
#include <gtest/gtest.h>

#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/core/tensor.h"

namespace tandem {
namespace {

TEST(Allocator, LiveAndPeakAreExact) {
  Allocator& a = Allocator::instance();
  const Device d = Device::cpu();
  a.reset_peak(d);
  const MemoryStats base = a.stats(d);
  void* p = a.allocate(d, 1000);
  void* q = a.allocate(d, 24);
  EXPECT_EQ(a.stats(d).live_bytes, base.live_bytes + 1024);
  EXPECT_EQ(a.stats(d).peak_bytes, base.live_bytes + 1024);
  EXPECT_EQ(a.stats(d).allocations, base.allocations + 2);
  a.deallocate(d, p, 1000);
  EXPECT_EQ(a.stats(d).live_bytes, base.live_bytes + 24);
  EXPECT_EQ(a.stats(d).peak_bytes, base.live_bytes + 1024);  // peak stays until reset
  a.reset_peak(d);
  EXPECT_EQ(a.stats(d).peak_bytes, base.live_bytes + 24);
  a.deallocate(d, q, 24);
  EXPECT_EQ(a.stats(d).live_bytes, base.live_bytes);
}

TEST(Allocator, TensorsCountTheirBytesAndDevicesAreApart) {
  Allocator& a = Allocator::instance();
  const int64_t cpu_live = a.stats(Device::cpu()).live_bytes;
  const MemoryStats gpu = a.stats(Device::cuda(0));
  {
    Tensor t = Tensor::empty({3, 5}, DType::f32);
    Tensor view = t.view({15});  // shares the buffer: no new bytes
    EXPECT_EQ(a.stats(Device::cpu()).live_bytes, cpu_live + 60);
  }
  EXPECT_EQ(a.stats(Device::cpu()).live_bytes, cpu_live);
  EXPECT_EQ(a.stats(Device::cuda(0)).live_bytes, gpu.live_bytes);  // CPU work leaves cuda:0 alone
  EXPECT_EQ(a.stats(Device::cuda(0)).allocations, gpu.allocations);
}

// Memory kinds of one device are counted apart (a device's peak excludes the host memory
// its offloaded values sit in), and so are the bytes moved between them.
TEST(Allocator, MemoryKindsAndTransfersAreCountedApart) {
  Allocator& a = Allocator::instance();
  const Device dev = Device::cpu(), pinned = dev.with_memory(MemoryKind::pinned_host);
  const int64_t dev_live = a.stats(dev).live_bytes, pinned_live = a.stats(pinned).live_bytes;
  a.reset_peak(dev);
  a.reset_transfers(DeviceKind::cpu);
  {
    Tensor x = Tensor::from_f64({1, 2, 3, 4}, {4}, DType::f32);
    Tensor h = x.to(pinned);
    EXPECT_EQ(h.device(), pinned);
    EXPECT_EQ(h.to_f64(), x.to_f64());
    EXPECT_EQ(a.stats(pinned).live_bytes, pinned_live + 16);
    EXPECT_EQ(a.stats(dev).live_bytes, dev_live + 16);  // x only
    a.count_transfer(dev, pinned, 16);
    a.count_transfer(pinned, dev, 16);
  }
  EXPECT_EQ(a.stats(pinned).live_bytes, pinned_live);
  EXPECT_EQ(a.stats(dev).peak_bytes, dev_live + 16);
  TransferStats t = a.transfers(DeviceKind::cpu);
  EXPECT_EQ(t.to_host_bytes, 16);
  EXPECT_EQ(t.to_device_bytes, 16);
  EXPECT_EQ(t.to_host_count + t.to_device_count, 2);
  EXPECT_EQ(pinned.str(), "cpu:pinned_host");
  EXPECT_EQ(memory_kind_from_string("unpinned_host"), MemoryKind::unpinned_host);
  EXPECT_THROW(memory_kind_from_string("disk"), Error);
  EXPECT_THROW(a.count_transfer(dev, Device::cuda(0), 4), Error);  // not between kinds of one device
}

}  // namespace
}  // namespace tandem
