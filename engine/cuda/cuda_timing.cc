// CUDA-event timing of a region (see cuda_timing.h).
#include "engine/cuda/cuda_timing.h"

#include <map>
#include <mutex>

#include "engine/core/check_cuda.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/device_faults.h"

namespace tandem {
namespace {

// Two events per device, created once (creating events is not free; the region must not pay).
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
};

EventPair& events(int index) {
  static std::map<int, EventPair> pairs;
  static std::mutex mu;
  std::lock_guard<std::mutex> g(mu);
  EventPair& e = pairs[index];
  if (!e.start) {
    CUDA_CHECK(cudaEventCreate(&e.start));
    CUDA_CHECK(cudaEventCreate(&e.stop));
  }
  return e;
}

}  // namespace

double cuda_event_seconds(int index, const std::function<void()>& body) {
  use_cuda_device(index);
  EventPair& e = events(index);
  CUDA_CHECK(cudaEventRecord(e.start, 0));
  body();
  use_cuda_device(index);
  CUDA_CHECK(cudaEventRecord(e.stop, 0));
  CUDA_CHECK(cudaEventSynchronize(e.stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, e.start, e.stop));
  check_device_faults(index);  // after the stop event: costs the timed region nothing
  return double(ms) * 1e-3;
}

}  // namespace tandem
