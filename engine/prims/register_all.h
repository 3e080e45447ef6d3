// Registration of every primitive family. Called by the top layer — the CLI's main and the
// test mains (tandem_engine_test_main, tandem_suites_test_main) — never from the registry
// itself, so engine/ir does not depend on engine/prims. A binary that forgets it gets an
// internal error ("the primitive registry is empty") on its first lookup.
#pragma once
namespace tandem {
void register_elementwise_primitives();
void register_structure_primitives();
void register_reduction_primitives();
void register_pad_rev_cumsum_primitives();  // pad_rev_cumsum.cc
void register_dot_general_primitive();
void register_scan_primitive();
void register_while_primitive();       // while_loop.cc
void register_conv_primitive();        // conv.cc
void register_lstm_primitives();
void register_checkpoint_primitives();  // checkpoint.cc
void register_device_put_primitive();   // device_put.cc
void register_collective_primitives();  // collective_prims.cc
void register_gather_scatter_primitives();  // gather_scatter.cc
void register_reduce_window_primitives();  // reduce_window.cc
void register_cond_primitive();            // cond.cc
void register_cond_rules();                // cond_rules.cc: its batching rule (its vjp: engine/passes/vjp_cond.cc)
void register_sort_primitive();            // sort.cc
void register_elementwise_more_primitives();  // elementwise_more.cc: not, and, or, xor, round
void register_collective_rules();       // collective_prims_rules.cc: VJP, batch and axis rules
void register_vjp_rules();               // vjp_rules*.cc: after every family
void register_batch_rules();             // batch_rules*.cc: after every family
// Backends add their impls to the registered primitives (no-op when not built).
void register_cuda_impls();
// Every family, then the VJP and batching rules, then the backends' impls; a second call does nothing.
void register_all_primitives();
}  // namespace tandem
