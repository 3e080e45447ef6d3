// Elementwise fusion in the CPU executor. An elementwise primitive registers a block kernel
// (register_elementwise): its CPU impl runs it once over the whole array, and a run of
// consecutive equations with one, all over one shape (rank-0 operands broadcast), runs as one
// loop over blocks of elements on the engine's threads at one fork/join. A value the run makes
// and only the run reads lives in a block of per-thread scratch, never in full; the others are
// written out. Each element goes through the kernels the per-equation impls run, so the
// results are the unfused walk's, bit for bit (suites/program_fuzz/fusion_test.cc).
#pragma once
#include <functional>
#include <unordered_map>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"
#include "engine/ir/primitive.h"

namespace tandem {

// One block of an elementwise primitive's CPU work: out[i], i in [0, n), from in[k][i] (in[k][0]
// where scalar[k]: a rank-0 operand); types: the operands' dtypes.
struct ElementBlock {
  const void* in[3] = {};
  bool scalar[3] = {};
  DType types[3] = {};
  void* out = nullptr;
  int64_t n = 0;
};
using BlockKernel = std::function<void(const ElementBlock&, const Params&)>;

// The kernel over the whole array, the CPU impl (unless p has one) of a primitive of one output.
Impl whole_array_impl(ShapeRule shape, BlockKernel kernel);
void register_elementwise(Primitive p, BlockKernel kernel);

// For each equation, the end of the fused run that starts there (0: none): at least two
// equations over at least max(min_elements, 1) elements.
std::vector<size_t> plan_fusion(const Program& p, int64_t min_elements);

// Runs equations [begin, end) of p as one loop: operands come from value_of, and each output
// `written` asks for is put in env under its var's id.
void run_fused(const Program& p, size_t begin, size_t end, const std::function<Tensor(const Atom&)>& value_of,
               const std::function<bool(const Var&)>& written, std::unordered_map<int64_t, Tensor>& env);

}  // namespace tandem
