// The CUDA impls of the primitive families, one registration function per file (elementwise_cuda.cc, structure_cuda.cc,
// reductions_cuda.cc, control_cuda.cc), and the few helpers they share. Shape and parameter validation is the
// primitive's own shape rule, called through the registry, so the CPU and CUDA impls cannot disagree on what is valid.
#pragma once
#include <string>
#include <vector>

#include "engine/ir/primitive.h"

namespace tandem {

void register_elementwise_cuda_impls();
void register_structure_cuda_impls();
void register_reduction_cuda_impls();
void register_pad_rev_cumsum_cuda_impls();  // pad_rev_cumsum_cuda.cc
void register_control_cuda_impls();
void register_offload_cuda_impls();  // offload_cuda.cc: device_put
void register_conv_cuda_impls();     // conv_cuda.cc: conv_general_dilated
void register_gather_sort_cuda_impls();  // gather_sort_cuda.cc: gather, scatter_add, scatter, sort
void register_window_cuda_impls();       // window_cuda.cc: reduce_window_max, reduce_window_sum

namespace cuda_impl {

// The output types the primitive's shape rule gives for these operands (validates them).
std::vector<AType> checked_out_types(const std::string& prim, const std::vector<Tensor>& in, const Params& p);
// Makes the context's device current and returns it.
Device current_device(const EvalContext& ctx);
// Attaches a CUDA impl to a registered primitive. Runs inside register_all_primitives() (register_cuda_impls comes
// last), so it must not call primitive_names(), which would re-enter the registry's initialisation. The coverage test
// (cuda_coverage_test.cc) insists every registered primitive has a CUDA impl.
void attach_cuda_impl(const std::string& prim, Impl impl);

}  // namespace cuda_impl
}  // namespace tandem
