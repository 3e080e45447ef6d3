// Test helpers shared by the vmap tests that check a batched program against a per-example
// loop on the engine: random f64 values, and the exact comparison (NaN matching NaN).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/ir/executor.h"
#include "engine/passes/vmap.h"

namespace tandem::vmap_test {

using Axes = std::vector<VmapAxis>;

inline Tensor values(const Shape& s, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(size_t(num_elements(s)));
  for (double& x : v) x = u(g);
  return Tensor::from_f64(v, s, DType::f64);
}

// vmap(p) over args equals p run on each example and stacked, element for element.
inline void expect_vmap_is_loop(const Program& p, const Axes& in_axes, const std::vector<Tensor>& args) {
  std::vector<AType> types;
  for (const Tensor& t : args) types.push_back(t.type());
  const int64_t n = vmap_axis_size(p, in_axes, types);
  std::vector<Tensor> got = run_vmap(p, in_axes, Axes(p.out_vars.size(), 0), args);
  std::vector<std::vector<Tensor>> per(p.out_vars.size()), ex(args.size());
  for (size_t k = 0; k < args.size(); ++k)
    if (in_axes[k]) ex[k] = unstack(args[k], *in_axes[k]);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<Tensor> xi;
    for (size_t k = 0; k < args.size(); ++k) xi.push_back(ex[k].empty() ? args[k] : ex[k][size_t(i)]);
    std::vector<Tensor> out = Executor().run(p, xi);
    for (size_t j = 0; j < out.size(); ++j) per[j].push_back(out[j]);
  }
  for (size_t j = 0; j < got.size(); ++j) {
    std::vector<double> g = got[j].to_f64(), w = stack(per[j], 0).to_f64();
    ASSERT_EQ(g.size(), w.size()) << "output " << j;
    for (size_t e = 0; e < g.size(); ++e)
      ASSERT_TRUE(g[e] == w[e] || (std::isnan(g[e]) && std::isnan(w[e]))) << "output " << j << " element " << e;
  }
}

}  // namespace tandem::vmap_test
