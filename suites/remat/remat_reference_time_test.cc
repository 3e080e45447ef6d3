// Wall time of the reference's reverse mode (reference_vjp: the f64 store-everything tape) on the remat suite's
// nightly-size models, the oracle their nightly cases are checked against (lab/README.md "Reference reverse mode at
// nightly size"). A measurement, disabled by default; run with
//   remat_reference_time_test --gtest_also_run_disabled_tests
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "bridge/reference_vjp.h"
#include "engine/core/error.h"
#include "harness/program_case.h"
#include "suites/remat/remat_models.h"

namespace tandem {
namespace {

// Min over reps of one reference_vjp of the model traced in f64 (inputs in [-0.8, 0.8], the LSTM's lengths all full).
double reference_seconds(const remat::Model& m, int reps) {
  Program p = m.build(DType::f64, "everything_saveable");
  std::vector<ref::Array> in;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    const AType& t = p.in_vars[i]->type;
    std::vector<int64_t> shape(t.shape.begin(), t.shape.end());
    if (t.dtype == DType::i32)
      in.push_back(ref::Array{shape, t.dtype, std::vector<double>(size_t(num_elements(t.shape)), double(m.seq))});
    else in.push_back(ref::Array{shape, DType::f64, seeded_uniform(t.shape, DType::f64, cat(i), -0.8, 0.8).to_f64()});
  }
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<ref::Array> g = reference_vjp(p, in, {ref::scalar(DType::f64, 1)});
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_FALSE(g.empty());
  }
  std::printf("| %s | %.3f s |\n", m.label().c_str(), best);
  return best;
}

TEST(RematReferenceTime, DISABLED_Mlp8x512) { reference_seconds(remat::Model{"mlp", 8, 512, 512, 1, {"pre", "act"}}, 3); }
TEST(RematReferenceTime, DISABLED_LstmH128) { reference_seconds(remat::Model{"lstm", 1, 32, 128, 32, {"", ""}}, 3); }
TEST(RematReferenceTime, DISABLED_LstmH512) { reference_seconds(remat::Model{"lstm", 1, 16, 512, 25, {"", ""}}, 3); }

}  // namespace
}  // namespace tandem
