// One entry point that registers every primitive family (called once by the registry).
#pragma once
namespace tandem {
void register_elementwise_primitives();
void register_structure_primitives();
void register_reduction_primitives();
void register_dot_general_primitive();
void register_scan_primitive();
void register_lstm_primitives();
void register_checkpoint_primitives();  // checkpoint.cc
void register_vjp_rules();               // vjp_rules*.cc: after every family
void register_batch_rules();             // batch_rules*.cc: after every family
// Backends add their impls to the registered primitives (no-op when not built).
void register_cuda_impls();
inline void register_all_primitives() {
  register_elementwise_primitives();
  register_structure_primitives();
  register_reduction_primitives();
  register_dot_general_primitive();
  register_scan_primitive();
  register_lstm_primitives();
  register_checkpoint_primitives();
  register_vjp_rules();
  register_batch_rules();
  register_cuda_impls();
}
}  // namespace tandem
