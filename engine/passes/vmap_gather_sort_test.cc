// vmap of gather, scatter_add, scatter and sort against a per-example loop on the engine (f64; the
// values are moved, not summed differently, so the match is exact): every combination of a
// mapped and unmapped operand / indices / updates, batch axes in front, inside and last, and
// the vjp of a vmapped embedding lookup, which runs the batched scatter_add.
#include <gtest/gtest.h>

#include <random>

#include "engine/ir/builder_indexing.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "engine/passes/vmap.h"
#include "engine/passes/vmap_loop_test_util.h"

namespace tandem {
namespace {
using V = std::vector<Value>;
using vmap_test::Axes;
using vmap_test::expect_vmap_is_loop;
using vmap_test::values;

// Indices in [-1, hi]: some wrap below zero and some run past the end, so modes matter.
Tensor indices(const Shape& s, int hi, uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<double> v(size_t(num_elements(s)));
  for (double& x : v) x = double(int(g() % uint32_t(hi + 2)) - 1);
  return Tensor::from_f64(v, s, DType::i32);
}

const GatherDims kRows{{1}, {0}, {0}, {}, {}};
const ScatterDims kAddRows{{1}, {0}, {0}, {}, {}};

TEST(VmapGatherSort, GatherEveryMappingAndMode) {
  for (const char* mode : {"PROMISE_IN_BOUNDS", "CLIP", "FILL_OR_DROP"}) {
    Program p = trace({AType{{5, 3}, DType::f64}, AType{{4, 1}, DType::i32}},
                      [mode](Builder&, const V& a) { return V{gather(a[0], a[1], kRows, {1, 3}, mode)}; });
    expect_vmap_is_loop(p, {1, std::nullopt}, {values({5, 2, 3}, 1), indices({4, 1}, 5, 2)});
    expect_vmap_is_loop(p, {std::nullopt, 2}, {values({5, 3}, 3), indices({4, 1, 3}, 5, 4)});
    expect_vmap_is_loop(p, {0, 1}, {values({2, 5, 3}, 5), indices({4, 2, 1}, 5, 6)});
  }
  // take_along_axis: the per-example program already has batching dims.
  Program t = trace({AType{{3, 4}, DType::f64}, AType{{3, 1, 1}, DType::i32}}, [](Builder&, const V& a) {
    return V{gather(a[0], a[1], GatherDims{{}, {1}, {1}, {0}, {0}}, {1, 1}, "FILL_OR_DROP")};
  });
  expect_vmap_is_loop(t, {2, 0}, {values({3, 4, 2}, 7), indices({2, 3, 1, 1}, 4, 8)});
  expect_vmap_is_loop(t, {0, std::nullopt}, {values({2, 3, 4}, 9), indices({3, 1, 1}, 4, 10)});
}

TEST(VmapGatherSort, ScatterAddEveryMapping) {
  Program p = trace({AType{{5, 3}, DType::f64}, AType{{4, 1}, DType::i32}, AType{{4, 3}, DType::f64}},
                    [](Builder&, const V& a) { return V{scatter_add(a[0], a[1], a[2], kAddRows, "CLIP")}; });
  Tensor x = values({5, 3}, 11), u = values({4, 3}, 12), i = indices({4, 1}, 5, 13);
  expect_vmap_is_loop(p, {0, std::nullopt, std::nullopt}, {values({2, 5, 3}, 14), i, u});
  expect_vmap_is_loop(p, {std::nullopt, 1, std::nullopt}, {x, indices({4, 2, 1}, 5, 15), u});
  expect_vmap_is_loop(p, {std::nullopt, std::nullopt, 2}, {x, i, values({4, 3, 2}, 16)});
  expect_vmap_is_loop(p, {1, 0, 0}, {values({5, 2, 3}, 17), indices({2, 4, 1}, 5, 18), values({2, 4, 3}, 19)});
}

TEST(VmapGatherSort, ScatterEveryMapping) {
  // Repeated indices included: the batched scatter keeps the same (last) update per example.
  Program p = trace({AType{{5, 3}, DType::f64}, AType{{4, 1}, DType::i32}, AType{{4, 3}, DType::f64}},
                    [](Builder&, const V& a) { return V{scatter(a[0], a[1], a[2], kAddRows, "FILL_OR_DROP")}; });
  Tensor x = values({5, 3}, 31), u = values({4, 3}, 32), i = indices({4, 1}, 5, 33);
  expect_vmap_is_loop(p, {0, std::nullopt, std::nullopt}, {values({2, 5, 3}, 34), i, u});
  expect_vmap_is_loop(p, {std::nullopt, 1, std::nullopt}, {x, indices({4, 2, 1}, 5, 35), u});
  expect_vmap_is_loop(p, {std::nullopt, std::nullopt, 2}, {x, i, values({4, 3, 2}, 36)});
  expect_vmap_is_loop(p, {1, 0, 0}, {values({5, 2, 3}, 37), indices({2, 4, 1}, 5, 38), values({2, 4, 3}, 39)});
}

TEST(VmapGatherSort, SortShiftsItsDimension) {
  Program p = trace({AType{{4, 5}, DType::f64}, AType{{4, 5}, DType::f64}},
                    [](Builder& b, const V& a) {
                      V s = sort({a[0], a[1], iota(b, DType::i32, {4, 5}, 1)}, 1);
                      return V{s[0], s[1], s[2]};
                    });
  expect_vmap_is_loop(p, {2, std::nullopt}, {values({4, 5, 3}, 20), values({4, 5}, 21)});
  expect_vmap_is_loop(p, {0, 1}, {values({3, 4, 5}, 22), values({4, 3, 5}, 23)});
}

TEST(VmapGatherSort, GradientOfVmappedLookup) {
  // d/dE of sum(E[tokens] * w) per example, vmapped over tokens and w: the batched gather's
  // transpose is a scatter_add with batching dims.
  Program f = trace({AType{{6, 2}, DType::f64}, AType{{3, 1}, DType::i32}, AType{{3, 2}, DType::f64}},
                    [](Builder&, const V& a) { return V{reduce_sum(gather(a[0], a[1], kRows, {1, 2}) * a[2], {0, 1})}; });
  Program g = vjp_joint(f);
  Tensor e = values({6, 2}, 24), ct = values({2}, 25);
  Tensor tok = indices({2, 3, 1}, 6, 26), w = values({2, 3, 2}, 27);
  expect_vmap_is_loop(g, {std::nullopt, 0, 0, 0}, {e, tok, w, ct});
}

}  // namespace
}  // namespace tandem
