// One entry point that registers every primitive family (called once by the registry).
#pragma once
namespace tandem {
void register_elementwise_primitives();
void register_structure_primitives();
void register_reduction_primitives();
void register_dot_general_primitive();
void register_scan_primitive();
// Backends add their impls to the registered primitives (no-op when not built).
void register_cuda_impls();
inline void register_all_primitives() {
  register_elementwise_primitives();
  register_structure_primitives();
  register_reduction_primitives();
  register_dot_general_primitive();
  register_scan_primitive();
  register_cuda_impls();
}
}  // namespace tandem
