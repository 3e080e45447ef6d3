// The common shape of a case: an engine Program, seeded host inputs, and per-output checks
// against reference_eval of the same Program. Suites build these in a few lines.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bridge/error_spec.h"
#include "bridge/seeded_inputs.h"  // seeded_uniform: the inputs the cases build
#include "engine/core/tensor.h"
#include "engine/ir/ir.h"
#include "harness/case.h"
#include "reference/reference.h"

namespace tandem {

struct OutputCheck {
  std::string name;            // "y", "h_n", ...
  ErrorSpec spec;
  std::vector<double> scale;   // optional per-element scale for spec.scaled
  // A second bound reported beside the check, not enforced (e.g. the worst case next to a
  // probabilistic check): its headroom goes to the record's "worst_case".
  std::optional<ErrorSpec> reported = std::nullopt;
  // Why a headroom above 10^4 is expected here; recorded as "headroom_reason" only then.
  std::string headroom_reason = {};
};

// Given the inputs and the reference's outputs, the check for each program output.
using ChecksFn = std::function<std::vector<OutputCheck>(const std::vector<Tensor>& inputs,
                                                        const std::vector<ref::Array>& want)>;

CaseInstance program_instance(const Program& program, const std::vector<Tensor>& host_inputs,
                              Device device, ChecksFn checks);

}  // namespace tandem
