// CUDA-event timing of a region (see cuda_timing.h).
#include "engine/cuda/cuda_timing.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/core/check_cuda.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/device_faults.h"
#include "engine/ir/eqn_clock.h"

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

// Events a clock borrows and hands back, so a timed run after the first creates none.
// Never destroyed (see cuda_memory.cc's pool_ready).
std::mutex& spare_mutex() {
  static std::mutex& mu = *new std::mutex;
  return mu;
}
std::vector<cudaEvent_t>& spare_events(int index) {
  static auto& spare = *new std::map<int, std::vector<cudaEvent_t>>;
  return spare[index];
}
void borrow_events(int index, size_t n, std::vector<cudaEvent_t>& mine) {
  std::lock_guard<std::mutex> g(spare_mutex());
  std::vector<cudaEvent_t>& spare = spare_events(index);
  while (mine.size() < n) {
    if (spare.empty()) {
      cudaEvent_t e;
      CUDA_CHECK(cudaEventCreate(&e));
      spare.push_back(e);
    }
    mine.push_back(spare.back());
    spare.pop_back();
  }
}
void return_events(int index, std::vector<cudaEvent_t>& mine) {
  std::lock_guard<std::mutex> g(spare_mutex());
  std::vector<cudaEvent_t>& spare = spare_events(index);
  spare.insert(spare.end(), mine.begin(), mine.end());
  mine.clear();
}

// Executor::set_timing on a GPU: an event before and after each equation on the default stream. An equation's time is
// the device's time between its two events — its kernels, plus any wait for the host to enqueue them (so launch-bound
// equations show their launch cost, as a profiler's timeline would) — never the host's enqueue time alone.
class CudaEqnClock final : public EqnClock {
 public:
  explicit CudaEqnClock(int index) : index_(index) {}
  ~CudaEqnClock() override { return_events(index_, events_); }
  void start() override { record(); }
  void stop() override { record(); }
  std::vector<double> seconds() override {
    std::vector<double> s;
    if (used_ == 0) return s;
    use_cuda_device(index_);
    CUDA_CHECK(cudaEventSynchronize(events_[used_ - 1]));
    for (size_t i = 0; i + 1 < used_; i += 2) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
      s.push_back(double(ms) * 1e-3);
    }
    return s;
  }

 private:
  void record() {
    if (used_ == events_.size()) borrow_events(index_, 2 * used_ + 16, events_);
    use_cuda_device(index_);  // an impl may have made another device current
    CUDA_CHECK(cudaEventRecord(events_[used_++], 0));
  }
  int index_;
  std::vector<cudaEvent_t> events_;
  size_t used_ = 0;
};

}  // namespace

void register_cuda_eqn_clock() {
  register_eqn_clock(DeviceKind::cuda, [](Device d) -> std::unique_ptr<EqnClock> {
    return std::make_unique<CudaEqnClock>(d.index);
  });
}

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
