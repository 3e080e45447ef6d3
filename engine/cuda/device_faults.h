// Bad input that only a kernel can see (i32 division by zero), reported without a host round trip per call. Each device
// has one small array of fault flags in mapped, pinned host memory: a kernel that meets the fault sets its slot through
// the device pointer (a store over the bus, only when the fault happens), and nothing is copied or synchronised when
// the kernel is launched. The host looks at the flags only at points where it has already waited for the device — when
// a result is downloaded (Tensor::to a host device), after cuda_synchronize, and after the stop event of a timed region
// — and throws bad_input there, clearing the flag. So a timed run holds no host<->device copy for the check, and bad
// input is still reported, at the latest when its result is read. The report names the fault, not the equation: the
// division ran on the device earlier in the same stream.
#pragma once

namespace tandem {

enum class DeviceFault : int { int_division_by_zero = 0, kCount };

// The device pointer a kernel writes 1 to when `f` happens on cuda:index (created on first
// use; a one-time allocation, so the first call belongs in a warm-up run).
int* device_fault_flag(int index, DeviceFault f);

// After the host has synchronised with cuda:index: throws ErrorKind::bad_input naming each
// raised fault (and clears them). A no-op, with no CUDA call, when no flag was ever created.
void check_device_faults(int index);

}  // namespace tandem
