// vmap of reduce_window_max / reduce_window_sum and of cond against a per-example loop on the engine (f64, the same ops
// per example, so the match is exact): the batch axis first, inside and last for the windows; cond with the index
// unmapped (each branch batched) and mapped (every branch run, a select per example, an out-of-range index taking the
// last branch), and the vjp of a vmapped cond.
#include <gtest/gtest.h>

#include <random>

#include "engine/ir/builder_window.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "engine/passes/vmap.h"
#include "engine/passes/vmap_loop_test_util.h"
#include "engine/prims/cond.h"

namespace tandem {
namespace {
using V = std::vector<Value>;
using vmap_test::Axes;
using vmap_test::expect_vmap_is_loop;
using vmap_test::values;

TEST(VmapWindow, PoolingAtEveryBatchAxis) {
  const WindowDims w = window_dims({2, 3}, {1, 2}, {{1, 0}, {1, 1}}, {1, 2}, {2, 1});
  Program p = trace({AType{{4, 5}, DType::f64}}, [w](Builder&, const V& a) {
    return V{reduce_window_max(a[0], w), reduce_window_sum(a[0], w)};
  });
  expect_vmap_is_loop(p, {0}, {values({3, 4, 5}, 1)});
  expect_vmap_is_loop(p, {1}, {values({4, 3, 5}, 2)});
  expect_vmap_is_loop(p, {2}, {values({4, 5, 3}, 3)});
}

// Three branches over (x[3], y[]): returning (f(x, y) [3], g(x) [], the branch's number i32 []).
std::vector<Program> three_branches() {
  const std::vector<AType> in{AType{{3}, DType::f64}, AType{{}, DType::f64}};
  return {trace(in, [](Builder& b, const V& a) {
            return V{sin(a[0]) * broadcast_in_dim(a[1], {3}, {}), reduce_sum(a[0], {0}), b.literal(0, DType::i32)};
          }),
          trace(in, [](Builder& b, const V& a) {
            return V{a[0] * a[0], cos(reduce_max(a[0], {0})), b.literal(1, DType::i32)};
          }),
          trace(in, [](Builder& b, const V& a) {
            return V{exp(a[0]), b.literal(2.5, DType::f64), b.literal(2, DType::i32)};
          })};
}

Tensor idx(std::vector<double> v) {
  const int64_t n = int64_t(v.size());
  return Tensor::from_f64(std::move(v), {n}, DType::i32);
}

TEST(VmapCond, IndexUnmappedOrMapped) {
  const std::vector<Program> br = three_branches();
  Program p = trace({AType{{}, DType::i32}, AType{{3}, DType::f64}, AType{{}, DType::f64}},
                    [&br](Builder&, const V& a) { return cond(a[0], br, {a[1], a[2]}); });
  for (double i : {0.0, 1.0, 2.0, 7.0}) {
    Tensor index = Tensor::from_f64({i}, {}, DType::i32);
    expect_vmap_is_loop(p, {std::nullopt, 1, std::nullopt}, {index, values({3, 4}, 4), values({}, 5)});
    expect_vmap_is_loop(p, {std::nullopt, std::nullopt, 0}, {index, values({3}, 6), values({4}, 7)});
  }
  expect_vmap_is_loop(p, {0, 0, std::nullopt}, {idx({0, 1, 2, -1, 5}), values({5, 3}, 8), values({}, 9)});
  expect_vmap_is_loop(p, {0, std::nullopt, 0}, {idx({2, 0, 1}), values({3}, 10), values({3}, 11)});
}

TEST(VmapCond, GradientOfVmappedCond) {
  // The joint vjp of a cond, vmapped over the index and x: each example's cotangent is its own branch's.
  const std::vector<Program> br = three_branches();
  Program f = trace({AType{{}, DType::i32}, AType{{3}, DType::f64}, AType{{}, DType::f64}},
                    [&br](Builder&, const V& a) { return cond(a[0], br, {a[1], a[2]}); });
  Program g = vjp_joint(f);
  // (index, x, y, then the cotangents of the three outputs: f [3], g [], the i32 count)
  expect_vmap_is_loop(g, {0, 0, std::nullopt, 0, 0, std::nullopt},
                      {idx({1, 0, 2, 0}), values({4, 3}, 12), values({}, 13), values({4, 3}, 14), values({4}, 15),
                       Tensor::from_f64({0}, {}, DType::i32)});
}

}  // namespace
}  // namespace tandem
