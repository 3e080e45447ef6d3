// Reverse mode over the IR, split in two programs so residuals and peak memory are visible:
//   forward : (inputs...)                      -> (outputs..., residuals...)
//   backward: (residuals..., output cts...)    -> (cotangents of the `wrt` inputs...)
// Each equation's VjpRule (Primitive::vjp) emits its input cotangents into the backward
// builder. Primal values a rule reads are either residuals (saved by the forward) or are
// recomputed in the backward. Outside any checkpoint everything is saveable (the policy
// argument changes that for the top level); inside checkpoint(body, policy) the policy
// decides per equation (remat_policies.h). A checkpoint is linearized on its own (its body
// gets a forward and a backward), its forward is inlined, and the enclosing level saves or
// recomputes the inner residuals under its own policy: nesting gives recursive remat.
// Recomputation is lazy (only what the cotangents read, as JAX's DCE'd remat); VjpOptions
// can ask for every checkpointed body to be re-run whole instead.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/builder.h"
#include "engine/passes/remat_policies.h"

namespace tandem {

// What a VjpRule sees: lazily materialized primals, cotangents, and the builder to emit into.
struct VjpArgs {
  Builder* builder = nullptr;
  std::vector<AType> in_types, out_types;
  std::function<Value(size_t)> primal_in;   // may save a residual or recompute
  std::function<Value(size_t)> primal_out;
  std::vector<std::optional<Value>> cts;    // per output; nullopt: zero
  std::vector<bool> in_literal;             // literal operands need no cotangent
  bool wants(size_t i) const { return !in_literal.at(i) && is_floating(in_types.at(i).dtype); }
  Value ct(size_t i) const;                 // the cotangent, zeros when absent
};

// Zeros of a type in `b` (a literal for rank 0).
Value zeros(Builder& b, const AType& t);

struct Residual {
  AType type;
  std::string source;      // "from the argument 0", "output of sin", "named 'y'" ...
  bool is_argument = false;
  bool offloaded = false;  // saved into the offload pool (host memory on CUDA)
  int alias_of = -1;       // the earlier residual holding the same buffer (checkpoint_name)
  int64_t bytes() const { return num_elements(type.shape) * int64_t(dtype_size(type.dtype)); }
};

struct RecomputeStats {
  int64_t eqns = 0;      // primitive applications recomputed in the backward
  double flops = 0;      // their estimated FLOPs (2·M·N·K for dots, 1 per element otherwise)
  std::map<std::string, int64_t> by_prim;
  void add(const RecomputeStats& o);
};

struct VjpProgram {
  Program forward;
  Program backward;
  std::vector<Residual> residuals;  // in the order they follow the outputs
  RecomputeStats recompute;
  std::vector<bool> wrt;
  size_t num_outputs = 0;
};

// How a checkpoint's body is recomputed in the backward.
struct VjpOptions {
  // false (default, as JAX): the backward re-runs only the body's primal equations that its
  // cotangent computation reads; an equation whose output only feeds the body's primal
  // outputs (say the last sin of a sin chain) is dead there and is not re-run. JAX's
  // remat_partial_eval DCEs its staged body the same way (jax test_remat_basic: a
  // checkpointed sin(sin(x)) evaluates sin once in the backward).
  // true: the backward re-runs every recomputable primal equation of each checkpointed
  // body (nested checkpoints' forwards included), dead or not: the B(n) = 2·B(n/2) + n/2
  // model (2, 8, 24 sins for n = 4, 8, 16 recursive sin chains).
  bool rerun_whole_checkpoint_body = false;
};

// wrt: one flag per input (empty: all floating inputs). Every output must be floating.
VjpProgram vjp(const Program& p, std::vector<bool> wrt = {},
               const Policy& top_policy = everything_saveable(), const VjpOptions& options = {});

// The joint program (inputs..., output cts...) -> (outputs..., cts of wrt inputs...).
Program vjp_joint(const Program& p, std::vector<bool> wrt = {});

// Inlines `p` into `b` over the given operands; returns its outputs.
std::vector<Value> inline_program(Builder& b, const Program& p, const std::vector<Value>& in);

// Runs forward then backward on one backend; the caller holds everything it returns.
struct VjpRun {
  std::vector<Tensor> outputs, residuals, cotangents;
};
VjpRun run_vjp(const VjpProgram& v, const std::vector<Tensor>& inputs,
               const std::vector<Tensor>& output_cts, Device device = Device::cpu());

// FLOP estimate of one equation (used by the recompute counts).
double eqn_flops(const Eqn& e);

}  // namespace tandem
