// vmap suite case constructors (vmap_cases.cc): batched program vs per-example reference,
// per-example gradients, and refusals of bad axes.
#pragma once
#include <functional>
#include <string>

#include "harness/case.h"
#include "suites/vmap/vmap_programs.h"

namespace tandem::vmap_suite {

// A vmap-suite case named vmap/<name>, its instantiate left to the caller.
Case vmap_case(const std::string& name, const std::string& profile, nlohmann::json params);
// vmap(f) (gradient: vmap of f's joint vjp) over n examples under an axis configuration.
Case batch_case(const std::string& program, const std::string& config, int64_t n, bool gradient,
                const std::string& profile);
// Passes when `bad` throws a bad-input error with a hint whose message contains `needle`.
Case refusal_case(const std::string& what, std::function<void()> bad, const std::string& needle);

// Ragged batch axes (vmap_ragged_cases.cc): elementwise + segment_sum/max + pad_to_max,
// ragged dot, the LSTM over ragged sequences, each against a loop over the items.
void add_ragged_cases(Registry& r);
// Collectives naming the vmapped axis against the mesh reference, one virtual rank per
// example (vmap_collective_cases.cc).
void add_collective_cases(Registry& r);

}  // namespace tandem::vmap_suite
