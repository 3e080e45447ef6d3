// Seconds per primitive of a Program on the CPU, for the perf tools' --profile tables
// (lstm_program_bench, program_bench): each equation of the program timed by the executor's
// clock (Executor::set_timing), the minimum over `reps` runs; a scan's time includes its
// body, whose equations are then timed on one step's inputs (ones for integers and bools —
// indices stay in range — seeded uniform otherwise: a step's work does not depend on the
// values) and counted × length under "PHASE scan body", so a table shows which per-step
// equations a loop spends its time in. `label` names an equation's row.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bridge/seeded_inputs.h"
#include "engine/core/error.h"
#include "engine/ir/executor.h"

namespace tandem {

using EqnLabel = std::function<std::string(const Eqn&)>;

inline void profile_program(const std::string& phase, const Program& p, const std::vector<Tensor>& in, int reps,
                            std::map<std::string, double>& by, const EqnLabel& label) {
  Executor ex;
  ex.set_timing(true);
  std::map<std::string, double> best;
  for (int r = 0; r < reps; ++r) {
    ex.run(p, in);
    std::map<std::string, double> t;
    for (size_t i = 0; i < ex.timings().size(); ++i)  // one timing per eqn of this level, in order
      t[cat(phase, ": ", label(p.eqns[i]))] += ex.timings()[i].seconds;
    for (const auto& [k, s] : t) best[k] = r == 0 ? s : std::min(best[k], s);
  }
  for (const auto& [k, s] : best) by[k] += s;
  for (const Eqn& e : p.eqns) {
    if (e.prim->name != "scan") continue;
    const Program& body = *e.params.get_program("body");
    std::vector<Tensor> step;
    for (const AType& t : body.in_types())
      step.push_back(t.dtype == DType::pred || t.dtype == DType::i32
                         ? Tensor::from_f64(std::vector<double>(size_t(num_elements(t.shape)), 1), t.shape, t.dtype)
                         : seeded_uniform(t.shape, t.dtype, "program_profile/step"));
    std::map<std::string, double> inner;
    profile_program(phase + " scan body", body, step, reps, inner, label);
    for (const auto& [k, s] : inner) by[k] += s * double(e.params.get_int("length"));
  }
}

}  // namespace tandem
