// What a Program case hands an oracle outside tandem (`tandem dump-programs DIR`, then
// tools/oracles/program_vs_jax.py): the Program as the case builds it, its host inputs and tandem's
// own results on the CPU. A differentiating case gives its FORWARD program and the output
// cotangents, so the oracle differentiates with its own autodiff (jax.vjp), not tandem's
// VJP program; a vmap case gives its per-example program and the axes, so the oracle
// batches with jax.vmap, not with tandem's vmap pass.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/ir.h"
#include "engine/passes/vjp.h"

namespace tandem {

struct OracleVmap {
  // One per argument, (inputs..., output_cts...); nullopt: not mapped.
  std::vector<std::optional<int64_t>> in_axes, out_axes;
  int64_t size = 0;
};

struct OracleProgram {
  std::string label;               // which of the case's programs: "program", "hoisted", ...
  Program program;                 // what the oracle evaluates (per example under vmap)
  std::vector<Tensor> inputs;      // host, as tandem ran them (batched under vmap)
  std::vector<Tensor> output_cts;  // empty: evaluated only; else one per output (jax.vjp)
  std::vector<bool> wrt;           // inputs differentiated (empty: every floating input)
  std::optional<OracleVmap> vmap;  // set: the oracle runs jax.vmap(program)
  // tandem's results, host: the outputs, then (differentiated) the wrt inputs' cotangents.
  std::vector<Tensor> engine;
  std::string note;                // what tandem ran to get `engine`, for the reader
  // What tandem's vjp saved (a remat item), for jax.ad_checkpoint.saved_residuals to judge
  // (tools/oracles/saved_residuals_vs_jax.py); unset: not compared.
  std::optional<std::vector<Residual>> residuals;
  // What its backward recomputes (a remat item), for JAX's counts to judge
  // (tools/oracles/recompute_vs_jax.py); unset: not compared.
  std::optional<RecomputeStats> recompute;
};

// Runs `program` on the CPU executor: an evaluated-only oracle item.
OracleProgram oracle_eval(const std::string& label, const Program& program, std::vector<Tensor> inputs,
                          const std::string& note = "Executor on the program");

}  // namespace tandem
