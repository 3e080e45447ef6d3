// The vmap suite's programs: small per-example workloads that together touch every
// primitive's batching rule, plus the MLP, attention, LSTM (the scan Program path) and the
// hoisted MSE; and the axis configurations they are batched under.
#include "suites/vmap/vmap_programs.h"

#include <cmath>
#include <functional>
#include <map>

#include "common/dtype.h"
#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/builder_indexing.h"
#include "engine/passes/hoist_scan_reductions.h"
#include "engine/prims/checkpoint.h"
#include "suites/common/lstm_program.h"

namespace tandem::vmap_suite {
namespace {
using V = std::vector<Value>;
const DType f32 = DType::f32;
AType t(const Shape& s, DType d = DType::f32) { return {s, d}; }
const std::pair<double, double> unit{-1, 1};

VmapProgram unary() {
  Program p = trace({t({6, 5})}, [](Builder&, const V& v) {
    Value x = v[0];
    return V{tanh(sin(x)) * exp(x * 0.5) + sqrt(x * x + 1.0) - logistic(cos(x)) + log(x * x + 1.0) +
             integer_pow(x, 3) - x};
  });
  return {"unary", p, {unit}, 8, 1};
}

VmapProgram binary() {
  Program p = trace({t({6, 5}), t({6, 5}), t({})}, [](Builder&, const V& v) {
    Value x = v[0], y = v[1], s = v[2];
    Value a = max(x * y, s) / (y * y + 1.0) - min(x, s);
    Value trunc = convert_element_type(convert_element_type(x * 4.0, DType::i32), f32);
    return V{a, select(compare(x, y, "lt"), x, y * s) + trunc};
  });
  return {"binary", p, {unit, unit, unit}, 5, 1};
}

VmapProgram reduce() {
  Program p = trace({t({4, 6, 5})}, [](Builder&, const V& v) {
    return V{reduce_sum(v[0], {0, 2}), reduce_max(v[0], {1})};
  });
  return {"reduce", p, {unit}, 1, 20};
}

VmapProgram dots() {
  Program p = trace({t({3, 8}), t({8, 5}), t({2, 4, 8}), t({2, 8, 3})}, [](Builder&, const V& v) {
    return V{dot(v[0], v[1], "HIGHEST"), dot_general(v[2], v[3], DotDims{{2}, {1}, {0}, {0}}, "HIGHEST")};
  });
  return {"dot_general", p, {unit, unit, unit, unit}, 1, 8};
}

VmapProgram layout() {
  Program p = trace({t({4, 6}), t({2, 6})}, [](Builder& b, const V& v) {
    Value x = v[0];
    Value bc = reduce_sum(broadcast_in_dim(x, {3, 4, 6}, {1, 2}), {0}) + iota(b, f32, {4, 6}, 1);
    return V{bc, reshape(transpose(x, {1, 0}), {3, 8}), slice(x, {1, 0}, {4, 6}, {2, 3}), concatenate({x, v[1]}, 0)};
  });
  return {"layout", p, {unit, unit}, 2, 3};
}

// Every axis-taking structural op at axis a of a rank-3 operand, a in [-3, 2]: reductions
// and concatenate take negative axes (as jnp.sum / jnp.concatenate do); iota only
// non-negative ones (JAX refuses others: the vmap/refuses/ cases), so its output is the
// iota along the same axis written non-negative. A batching rule that normalizes a negative
// axis against the batched rank instead of the example's fails exactly the a < 0 programs.
VmapProgram axis_ops(int a) {
  Program p = trace({t({2, 3, 4}), t({2, 3, 4})}, [a](Builder& b, const V& v) {
    const int other = (a + 4) % 3;  // a second axis, non-negative, different from a
    Value i = iota(b, f32, {2, 3, 4}, (a + 3) % 3);
    return V{reduce_sum(v[0], {a}), reduce_max(v[1], {a}), concatenate({v[0], v[1] * i}, a),
             reduce_sum(v[0] * v[1], {other, a}), reduce_max(concatenate({v[1], v[0]}, a), {a, other})};
  });
  return {cat("axis_ops/a:", a), p, {unit, unit}, 3, 12};
}

// Every permutation of rank 3 (JAX's transpose takes no negative entries) and every
// placement of a rank-2 operand in a rank-3 broadcast (broadcast_dimensions increasing).
VmapProgram permutations() {
  Program p = trace({t({2, 3, 4}), t({3, 4})}, [](Builder&, const V& v) {
    V out;
    for (std::vector<int64_t> perm : {std::vector<int64_t>{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}})
      out.push_back(transpose(v[0], perm));
    out.push_back(broadcast_in_dim(v[1], {3, 4, 5}, {0, 1}));
    out.push_back(broadcast_in_dim(v[1], {3, 5, 4}, {0, 2}));
    out.push_back(broadcast_in_dim(v[1], {5, 3, 4}, {1, 2}));
    return out;
  });
  return {"transpose_broadcast", p, {unit, unit}, 1, 1};
}

// Start indices from -2 to 8 on axes of 8 and 6: some windows clamp, as XLA's do.
VmapProgram dynamic() {
  Program p = trace({t({8, 6}), t({}, DType::i32), t({}, DType::i32), t({2, 3})}, [](Builder&, const V& v) {
    return V{dynamic_slice(v[0], {v[1], v[2]}, {3, 4}), dynamic_update_slice(v[0], v[3] * 2.0, {v[2], v[1]})};
  });
  return {"dynamic_slice", p, {unit, {-2, 9}, {-2, 9}, unit}, 1, 1};
}

VmapProgram scans() {
  Program body = trace({t({3}), t({3}), t({3})}, [](Builder&, const V& v) {
    Value c = tanh(v[1] * v[0] + v[2]);
    return V{c, c * 2.0};
  });
  Program p = trace({t({3}), t({3}), t({6, 3})}, [&](Builder&, const V& v) {
    return scan(body, {v[0]}, {v[1]}, {v[2]}, 6);
  });
  return {"scan", p, {unit, unit, unit}, 6 * 3, 1};
}

VmapProgram checkpointed() {
  Program body = trace({t({4}), t({4, 4})}, [](Builder&, const V& v) { return V{sin(dot(v[1], sin(v[0]), "HIGHEST"))}; });
  Program p = trace({t({4}), t({4, 4})}, [&](Builder&, const V& v) {
    Value named = checkpoint_name(v[0] * 2.0, "scaled");
    return checkpoint(body, {named, v[1]}, "dots_saveable");
  });
  return {"checkpoint", p, {unit, unit}, 4, 4};
}

VmapProgram mlp() {
  Program p = trace({t({16}), t({16, 32}), t({32}), t({32, 10}), t({10})}, [](Builder&, const V& v) {
    Value h = tanh(dot(v[0], v[1], "HIGHEST") + v[2]);
    return V{dot(h, v[3], "HIGHEST") + v[4]};
  });
  std::pair<double, double> w{-0.3, 0.3};
  return {"mlp", p, {unit, w, w, w, w}, 6, 32};
}

// softmax(q·kᵀ/√d)·v with the max subtracted, as every attention kernel does.
VmapProgram attention() {
  Program p = trace({t({6, 8}), t({6, 8}), t({6, 8})}, [](Builder&, const V& v) {
    Value s = dot_general(v[0], v[1], DotDims{{1}, {1}, {}, {}}, "HIGHEST") * (1.0 / std::sqrt(8.0));
    Value e = exp(s - broadcast_in_dim(reduce_max(s, {1}), {6, 6}, {0}));
    Value pr = e / broadcast_in_dim(reduce_sum(e, {1}), {6, 6}, {0});
    return V{dot(pr, v[2], "HIGHEST")};
  });
  return {"attention", p, {unit, unit, unit}, 10, 20};
}

// sort with tied keys (floor(2x) takes 4 values over 6 elements): which carried value lands
// where, and under the gradient which input gets which cotangent, is the sort's order —
// stable, then the second key — and nothing else shows it (random keys never tie).
VmapProgram sort_ties() {
  Program p = trace({t({5, 6}), t({5, 6})}, [](Builder&, const V& v) {
    Value k = floor(v[0] * 2.0);
    V by_two = sort({k, v[0], v[1]}, 1, true, 2);  // ties broken by x
    V stable = sort({k, v[1]}, 0, true, 1);        // ties kept in order
    return V{by_two[1] * by_two[2], stable[1] * 3.0};
  });
  return {"sort_ties", p, {unit, unit}, 2, 1};
}

// The LSTM Program (a scan over the cell) with ragged seq_lengths in [1, T].
VmapProgram lstm() {
  LstmConfig c{2, 5, 3, 4, 1, false};
  return {"lstm", lstm_program(c), {unit, unit, unit, {-0.5, 0.5}, {1, 6}}, 5 * 8, 5 * 8};
}

// The seed's MSE over a scan's ys, hoisted into the body (hoist_scan_reductions).
VmapProgram mse_hoisted() {
  Program body = trace({t({4}), t({4})}, [](Builder&, const V& v) { return V{v[0], sin(v[0] * v[1])}; });
  Program mse = trace({t({4}), t({7, 4}), t({7, 4})}, [&](Builder&, const V& v) {
    V o = scan(body, {}, {v[0]}, {v[1]}, 7);
    return V{reduce_sum(integer_pow(o[1] - v[2], 2), {0, 1})};
  });
  HoistResult h = hoist_scan_reductions(mse, {.min_step_elements = 0});
  TANDEM_CHECK(h.rewrites == 1, "the MSE's reduction must hoist");
  return {"mse_hoisted", h.program, {unit, unit, unit}, 4, 28};
}

const std::map<std::string, std::function<VmapProgram()>>& table() {
  static const std::map<std::string, std::function<VmapProgram()>> t = [] {
    std::map<std::string, std::function<VmapProgram()>> m = {
      {"unary", unary},   {"binary", binary},           {"reduce", reduce},   {"dot_general", dots},
      {"layout", layout}, {"dynamic_slice", dynamic},   {"scan", scans},      {"checkpoint", checkpointed},
      {"mlp", mlp},       {"attention", attention},     {"lstm", lstm},       {"mse_hoisted", mse_hoisted},
      {"transpose_broadcast", permutations}, {"sort_ties", sort_ties}};
    for (int a = -3; a <= 2; ++a) m[cat("axis_ops/a:", a)] = [a] { return axis_ops(a); };
    return m;
  }();
  return t;
}

// An axis of a value of per-example rank r, by configuration.
VmapAxis axis_for(const std::string& cfg, int r, size_t index, bool output) {
  if (cfg == "lead") return 0;
  if (cfg == "last") return -1;
  if (cfg == "middle") return r >= 1 ? 1 : 0;
  if (cfg == "negative") return r >= 1 ? -2 : -1;
  if (cfg == "neg_lead") return -(r + 1);                          // the leading axis, written negative
  if (cfg == "none_first") return output ? VmapAxis(-(r + 1)) : index == 0 ? std::nullopt : VmapAxis(-1);
  if (output) return index % 2 ? -1 : 0;                          // mixed outputs
  if (index == 0) return -1;                                      // mixed inputs: first mapped,
  return index % 2 ? std::nullopt : VmapAxis(r >= 1 ? 1 : 0);  // then unmapped / middle
}
// none_first: the first input unmapped (None), every other mapped at -1 (only where there is
// another input): the binary rules' branch where only the second operand carries the batch.
const char* const kConfigs[] = {"lead", "last", "middle", "negative", "mixed", "neg_lead", "none_first"};
}  // namespace

VmapProgram make_program(const std::string& name) {
  auto it = table().find(name);
  if (it == table().end()) throw_bad_input(cat("vmap suite: unknown program '", name, "'"));
  return it->second();
}

std::vector<std::string> program_names() {
  std::vector<std::string> r;
  for (auto& [k, v] : table()) r.push_back(k);
  return r;
}

ErrorSpec per_example_spec(const VmapProgram& p, double max_abs_want, bool gradient) {
  double u = unit_roundoff(DType::f32), chain = (gradient ? 2 : 1) * (2.0 * p.ops + double(p.terms));
  double rel = 4 * chain * u;
  return {rel * max_abs_want, rel, 0,
          cat("4 x (2u x ", p.ops, " ops + u x ", p.terms, " terms)", gradient ? " x 2 (gradient)" : "",
              " relative, absolute of max|want| = ", max_abs_want)};
}

AxisConfig axis_config(const Program& p, const std::string& name) {
  AxisConfig c{name, {}, {}};
  for (size_t i = 0; i < p.in_vars.size(); ++i) c.in.push_back(axis_for(name, p.in_vars[i]->type.rank(), i, false));
  for (size_t j = 0; j < p.out_vars.size(); ++j) c.out.push_back(axis_for(name, p.out_vars[j].type().rank(), j, true));
  return c;
}

std::vector<AxisConfig> axis_configs(const Program& p) {
  std::vector<AxisConfig> r;
  for (const char* n : kConfigs)
    if (std::string(n) != "none_first" || p.in_vars.size() > 1) r.push_back(axis_config(p, n));
  return r;
}

}  // namespace tandem::vmap_suite
