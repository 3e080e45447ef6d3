// CUDA impl of device_put (engine/prims/device_put.h): copies between a device's memory and its pinned host pool run on
// the offload stream (pinned_pool.h), asynchronously to the host and to the kernels on the default stream:
//   to pinned_host: the copy waits for the default stream's work so far (the producer), and
//     the source's device buffer, once dropped, is freed on the offload stream after it;
//   to device: the new device buffer's allocation is ordered before the copy, and the
//     default stream waits for the copy before the first kernel that reads it.
// Every other move (unpinned host, across devices) is Tensor::to's synchronous copy.
// Each copy between memory kinds of one device is counted by Allocator::count_transfer.
#include "engine/core/check_cuda.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_prims.h"
#include "engine/cuda/pinned_pool.h"

namespace tandem {
namespace {
using namespace cuda_impl;

// Makes `waiter` wait for the work queued on `on` so far.
void order_after(cudaStream_t waiter, cudaStream_t on) {
  cudaEvent_t e;
  CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventRecord(e, on));
  CUDA_CHECK(cudaStreamWaitEvent(waiter, e, 0));
  CUDA_CHECK(cudaEventDestroy(e));  // released once the wait has been satisfied
}

std::vector<Tensor> device_put_cuda(const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
  checked_out_types("device_put", in, p);
  const Tensor& x = in.at(0);
  Device d = current_device(ctx);
  Device to = d.with_memory(memory_kind_from_string(p.get_string("memory_kind", "device")));
  if (x.device() == to) return {x};
  const bool same = x.device().same_device(to);
  const bool pinned_pair = same && ((x.device().memory == MemoryKind::device && to.memory == MemoryKind::pinned_host) ||
                                    (x.device().memory == MemoryKind::pinned_host && to.memory == MemoryKind::device));
  if (!pinned_pair) {
    Tensor y = x.to(to);
    if (same) Allocator::instance().count_transfer(x.device(), to, x.nbytes());
    return {y};
  }
  Tensor y = Tensor::empty(x.shape(), x.dtype(), to);
  if (x.nbytes() > 0) {
    cudaStream_t s = offload_stream(d.index);
    order_after(s, 0);  // the producer of x (and, to the device, y's allocation)
    bool down = to.memory == MemoryKind::pinned_host;
    CUDA_CHECK(cudaMemcpyAsync(y.raw(), x.raw(), x.nbytes(), down ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, s));
    if (down) read_by_offload(x.raw());  // its free waits for this copy, not the default stream
    else order_after(0, s);              // kernels reading y wait for it
  }
  Allocator::instance().count_transfer(x.device(), to, x.nbytes());
  return {y};
}

}  // namespace

void register_offload_cuda_impls() { attach_cuda_impl("device_put", device_put_cuda); }

}  // namespace tandem
