// What the remat scan tests share (remat_scan_test.cc, remat_scan_residuals_test.cc): static
// counts of a primitive, fixed ramp inputs and cotangents, and the check that the reported
// recompute counts are what the backward really runs beyond everything_saveable's.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/passes/saved_residuals.h"

namespace tandem::remat_scan_test {
using V = std::vector<Value>;
using Counts = std::map<std::string, int64_t>;

// Equations of `prim` in a program, sub-programs included, each counted once (static).
inline int64_t static_count(const Program& p, const std::string& prim) {
  int64_t n = 0;
  for (const Eqn& e : p.eqns) {
    n += e.prim->name == prim;
    for (auto& [k, v] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&v)) n += static_count(**sub, prim);
  }
  return n;
}

inline std::vector<Tensor> ramp_inputs(const std::vector<AType>& types) {
  std::vector<Tensor> in;
  for (size_t i = 0; i < types.size(); ++i) {
    std::vector<double> v(size_t(num_elements(types[i].shape)));
    for (size_t k = 0; k < v.size(); ++k) v[k] = 0.1 + 0.05 * double((k * 7 + i * 3) % 11) - 0.2;
    in.push_back(Tensor::from_f64(v, types[i].shape, types[i].dtype));
  }
  return in;
}

inline std::vector<Tensor> ramp_cts(const VjpProgram& v) {
  std::vector<Tensor> cts;
  for (size_t i = 0; i < v.num_outputs; ++i) cts.push_back(ramp_inputs({v.forward.out_vars[i].type()})[0]);
  return cts;
}

// What the policy makes the backward re-run, measured (the backward's applications beyond
// everything_saveable's), must be the reported recompute count, per primitive and in total.
inline void expect_honest_counts(const std::function<Program(const std::string&)>& build, const std::string& policy) {
  Program p = build(policy);
  std::vector<Tensor> in = ramp_inputs(p.in_types());
  VjpProgram vb = vjp(build("everything_saveable")), vp = vjp(p);
  ASSERT_EQ(vb.recompute.eqns, 0) << "everything_saveable recomputes";
  Counts measured = executed_recompute(vp, vb, in, ramp_cts(vp));
  Counts reported(vp.recompute.by_prim.begin(), vp.recompute.by_prim.end());
  EXPECT_EQ(measured, reported) << policy;
  int64_t total = 0;
  for (auto& [k, n] : measured) total += n;
  EXPECT_EQ(total, vp.recompute.eqns) << policy;
}

}  // namespace tandem::remat_scan_test
