// The Allocator's counters are exact: live bytes follow every allocate/deallocate, peak is
// the most live bytes since the last reset_peak, and devices are counted apart. The remat
// and scan_hoist suites' peak-memory claims are differences of these counters.
#include <gtest/gtest.h>

#include "engine/core/allocator.h"
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

}  // namespace
}  // namespace tandem
