// Test helpers for hoist_scan_reductions: seeded inputs, running a program on the CPU, the
// largest intermediate a level allocates, and a close-enough comparison of outputs.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/ir/printer.h"
#include "engine/ir/typecheck.h"
#include "engine/passes/hoist_scan_reductions.h"

namespace tandem::hoist_test {

inline std::vector<Tensor> inputs_for(const Program& p, uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Tensor> r;
  for (const AType& t : p.in_types()) {
    std::vector<double> v(size_t(num_elements(t.shape)));
    for (double& x : v) x = u(rng);
    r.push_back(Tensor::from_f64(v, t.shape, t.dtype));
  }
  return r;
}

inline std::vector<std::vector<double>> run(const Program& p, const std::vector<Tensor>& in) {
  std::vector<std::vector<double>> r;
  for (const Tensor& t : Executor().run(p, in)) r.push_back(t.to_f64());
  return r;
}

// Most elements of any value one level of `p` defines (scan bodies are not entered).
inline int64_t largest_value(const Program& p) {
  int64_t m = 0;
  for (const Eqn& e : p.eqns)
    for (const Var& v : e.out) m = std::max(m, num_elements(v->type.shape));
  return m;
}

inline const Eqn* find_eqn(const Program& p, const std::string& prim) {
  for (const Eqn& e : p.eqns)
    if (e.prim->name == prim) return &e;
  return nullptr;
}
inline const Program& body_of(const Eqn& scan) { return *scan.params.get_program("body"); }

// Hoists, typechecks, runs both programs on the same inputs and compares every output. The
// programs are small, so the cost estimate is off by default: these tests check the rewrite.
inline HoistResult hoist_and_compare(const Program& p, const HoistOptions& o = {.min_step_elements = 0},
                                     double rel = 1e-5) {
  HoistResult h = hoist_scan_reductions(p, o);
  typecheck(h.program);
  EXPECT_EQ(h.program.out_types(), p.out_types());
  std::vector<Tensor> in = inputs_for(p);
  auto want = run(p, in), got = run(h.program, in);
  for (size_t i = 0; i < want.size(); ++i)
    for (size_t k = 0; k < want[i].size(); ++k)
      EXPECT_NEAR(got[i][k], want[i][k], rel * (1 + std::abs(want[i][k])))
          << "output " << i << " element " << k << "\n" << to_string(h.program);
  return h;
}

inline bool log_has(const HoistResult& h, const std::string& reason, const std::string& where = "") {
  for (const PassNote& n : h.notes)
    if (!n.rewritten && n.reason == reason && n.where.find(where) != std::string::npos) return true;
  return false;
}

}  // namespace tandem::hoist_test
