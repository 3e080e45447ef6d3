// What a vjp saves, in the spirit of jax.ad_checkpoint.print_saved_residuals: each residual
// with its type, where it comes from and its bytes, plus the totals (the offload pool counted
// apart), the recompute counts, and a liveness-based prediction of forward+backward peak bytes.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "engine/passes/vjp.h"

namespace tandem {

struct SavedResiduals {
  std::vector<Residual> residuals;
  int64_t bytes = 0;            // saved on the device (arguments included)
  int64_t offloaded_bytes = 0;  // moved to pinned host memory (offload.h), not on the device
  int64_t argument_bytes = 0;   // part of `bytes` that are the program's own inputs
  RecomputeStats recompute;
  int64_t count_non_arguments() const;
};

SavedResiduals saved_residuals(const VjpProgram& v);
SavedResiduals saved_residuals(const Program& p, const Policy& top = everything_saveable(), std::vector<bool> wrt = {});
// One line per residual ("f32[8,16]  512 B  named 'y'"), then the totals and recompute counts.
std::string format_saved_residuals(const SavedResiduals& s);

// Peak bytes the executor holds running `p` with its inputs held by the caller: inputs plus
// the most bytes of live intermediates at any point (sub-program temporaries not modelled).
int64_t predicted_peak_bytes(const Program& p);
// Forward then backward (run_vjp), the caller holding inputs, outputs, residuals and cts;
// device bytes only: offloaded residuals live in host memory between the two.
int64_t predicted_vjp_peak_bytes(const VjpProgram& v);

// Primitive applications the executor really runs in the backward of `v` (sub-programs
// included, scan bodies once per step), per primitive, device_put's reloads left out: what
// the recompute counts are checked against; the counter as run_vjp's on_eqn (changes nothing it runs).
std::function<void(const char*, const Eqn&)> backward_counter(std::map<std::string, int64_t>& into);
std::map<std::string, int64_t> executed_backward_applications(const VjpProgram& v, const std::vector<Tensor>& inputs,
                                                              const std::vector<Tensor>& output_cts);
// What the backward of `v` runs beyond the backward of `baseline`, the same program's vjp under
// everything_saveable (whose cotangent work is the same): the applications the policy makes it
// re-run, measured, per primitive (zero entries dropped), to compare with v.recompute.by_prim.
std::map<std::string, int64_t> executed_recompute(const VjpProgram& v, const VjpProgram& baseline, const std::vector<Tensor>& inputs,
                                                  const std::vector<Tensor>& output_cts);

}  // namespace tandem
