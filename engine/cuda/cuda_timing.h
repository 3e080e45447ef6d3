// GPU time of a region: CUDA events recorded on the device's default stream before and
// after `body`, so the figure is the device's elapsed time for the work the region queued
// (plus any gap the host leaves), not the host's enqueue time. Throws unsupported when the
// CUDA backend is not built or no device is usable.
#pragma once
#include <functional>

namespace tandem {

double cuda_event_seconds(int index, const std::function<void()>& body);

// Makes Executor::set_timing on CUDA devices time each equation with events (eqn_clock.h);
// called with the CUDA impls' registration.
void register_cuda_eqn_clock();

}  // namespace tandem
