// Shared pieces of the LSTM suite: seeded inputs, the call into lstm_ref, tolerances derived
// from the precision and the reduction lengths, and the per-output comparison.
#pragma once
#include <string>
#include <vector>

#include "bridge/error_spec.h"
#include "engine/core/tensor.h"
#include "engine/prims/lstm.h"
#include "harness/case.h"
#include "reference/lstm_ref.h"

namespace tandem {

// x, h0, c0, w, seq_lengths, dy, dh_n, dc_n as host tensors (f32, lengths i32).
std::vector<Tensor> make_lstm_inputs(const LstmConfig& c, const std::vector<int32_t>& lens, const std::string& seed);
ref::LstmShape ref_shape(const LstmConfig& c);
std::vector<int64_t> lens_of(const Tensor& lens);

// Per-output specs. One f32 (or TF32) rounding per term of each gate's dot of length
// In+H+2, compounded over the T steps and L layers it flows through; dw also sums B·T terms.
struct LstmSpecs {
  ErrorSpec fwd, bwd, dw;
};
LstmSpecs lstm_specs(const LstmConfig& c, bool tf32);

struct NamedOutput {
  std::string name;
  std::vector<double> want;
  ErrorSpec spec;
  std::vector<double> scale = {};  // per-element bound for spec.scaled (lstm_bound.h), or empty
  std::string headroom_reason = {};  // recorded when the headroom is above 10^4
};
// The outputs y, h_n, c_n[, dx, dh0, dc0, dw] (`want` in that order, 3 or 7 of them), each
// checked against its per-element running error bound from the case's data (lstm_bound.h).
// `host` as make_lstm_inputs returns it (5 entries for a forward-only check).
std::vector<NamedOutput> bounded_outputs(const LstmConfig& c, const std::vector<Tensor>& host,
                                         std::vector<std::vector<double>> want, bool tf32 = false);

// Compares got[i] with outs[i], each on its own, into a CaseResult (pass unless any fails).
CaseResult compare_outputs(const std::vector<NamedOutput>& outs, const std::vector<Tensor>& got);

// The length patterns of the suite: "ragged" (seeded, in [1,T]), "full", "ones", "equal",
// "unsorted", "zero" (row 0 has length 0: the rejected case).
std::vector<int32_t> lengths_pattern(const std::string& tag, int64_t B, int64_t T, const std::string& seed);

}  // namespace tandem
