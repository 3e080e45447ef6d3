// The pinned host pool and the offload copy stream of the CUDA backend: where device_put
// (engine/prims/device_put.h) puts the residuals a remat policy offloads.
//
// Pool: page-locked host memory from cudaHostAlloc (portable), cached by size: a freed block stays reserved, tagged
// with an event recorded on the offload stream at the free, and the next allocation of a size it fits (at most twice)
// waits for that event and reuses it, so after a warm-up run a timed region asks the driver for no pinned memory. The
// Allocator counts the requested bytes as Device{cuda, i, pinned_host} (live and peak, apart from the device's own
// memory). CUDA 12.6+ also offers stream-ordered host pools (cudaMemPoolCreate with cudaMemLocationTypeHost); that
// needs driver support this code could not be validated against, so it uses the long-supported cudaHostAlloc.
//
// Stream: one non-blocking stream per device carries every offload copy, so a copy to the host overlaps the kernels on
// the default stream (the stream every tandem kernel runs on). A device buffer read by a copy in flight is freed on the
// offload stream, after the copy and after the default stream's work already queued (free_after_offload), so dropping
// it never waits; a copy back to the device makes the default stream wait for it.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tandem {

void* pinned_pool_alloc(size_t bytes, int index);
void pinned_pool_free(void* p, int index);

struct PinnedPoolStats {
  int64_t reserved_bytes = 0;        // pinned memory held by the pool now (used or cached)
  int64_t reserved_high_bytes = 0;   // most it ever held
  int64_t driver_allocations = 0;    // cudaHostAlloc calls: stops growing once warm
};
PinnedPoolStats pinned_pool_stats();

cudaStream_t offload_stream(int index);
// Blocks until the offload copies queued on cuda:index are done (before the host reads or
// writes a pinned buffer itself).
void sync_offload_stream(int index);

// Records that a copy in flight on the offload stream reads this device buffer.
void read_by_offload(const void* device_ptr);
// Frees p on the offload stream (after the copy, and after the default stream's queued
// work) if a copy in flight reads it; false (nothing done) otherwise. cuda_pool_free asks.
bool free_after_offload(void* p, int index);

}  // namespace tandem
