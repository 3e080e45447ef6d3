// Fault flags in mapped pinned host memory (see device_faults.h).
#include "engine/cuda/device_faults.h"

#include <map>
#include <mutex>
#include <string>

#include "engine/core/check_cuda.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_device.h"

namespace tandem {
namespace {

constexpr int kFaults = int(DeviceFault::kCount);

// What each fault means to the user, by DeviceFault value.
const char* const kFaultMessage[kFaults] = {"div: integer division by zero"};
const char* const kFaultHint[kFaults] = {
    "an i32 divisor is 0 somewhere; the CPU backend names the equation"};

struct Flags {
  volatile int* host = nullptr;  // kFaults slots, pinned and mapped
  int* device = nullptr;         // the same slots as the device addresses them
};

// Never freed: the flags live as long as the process (the runtime's teardown order at exit is not ours to control).
std::mutex& flags_mutex() {
  static std::mutex& mu = *new std::mutex;
  return mu;
}
std::map<int, Flags>& all_flags() {
  static auto& m = *new std::map<int, Flags>;
  return m;
}

}  // namespace

int* device_fault_flag(int index, DeviceFault f) {
  std::lock_guard<std::mutex> g(flags_mutex());
  Flags& fl = all_flags()[index];
  if (!fl.host) {
    use_cuda_device(index);
    void* h = nullptr;
    CUDA_CHECK(cudaHostAlloc(&h, kFaults * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    void* d = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&d, h, 0));
    fl.host = static_cast<volatile int*>(h);
    for (int i = 0; i < kFaults; ++i) fl.host[i] = 0;
    fl.device = static_cast<int*>(d);
  }
  return fl.device + int(f);
}

void check_device_faults(int index) {
  std::string msg, hint;
  {
    std::lock_guard<std::mutex> g(flags_mutex());
    auto it = all_flags().find(index);
    if (it == all_flags().end() || !it->second.host) return;
    for (int i = 0; i < kFaults; ++i) {
      if (it->second.host[i] == 0) continue;
      it->second.host[i] = 0;
      msg += msg.empty() ? kFaultMessage[i] : cat("; ", kFaultMessage[i]);
      hint += hint.empty() ? kFaultHint[i] : cat("; ", kFaultHint[i]);
    }
  }
  if (!msg.empty())
    throw_bad_input(cat("cuda:", index, ": ", msg, " (found by a kernel, reported when the host "
                        "next waited for the device)"),
                    hint);
}

}  // namespace tandem
