// The op table's JAX-oracle cases (see op_dump.h). The axis grids run every axis the
// [G, G, 2G] input allows: all_gather's in both forms (JAX canonicalizes them), psum_scatter's
// and all_to_all's non-negative (JAX binds those as given); the points listed before each grid
// in every dtype, the rest in f32. Init-captures below: clang before 16 cannot capture a
// structured binding by name.
#include "suites/collectives/op_dump.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "engine/core/error.h"

namespace tandem::coll {
namespace {

using nlohmann::json;
using C = comm::Collectives;
using I = CaseInputs;

const std::vector<DType> kAll = {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i32, DType::pred};
const std::vector<DType> kNumeric = {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i32};
const std::vector<DType> kFloat = {DType::f64, DType::f32, DType::f16, DType::bf16};

std::vector<DType> grid_dtypes(bool listed, const std::vector<DType>& all) {
  return listed ? all : std::vector<DType>{DType::f32};
}

// A case of the row's own engine on an [8, 16] input of value set `values`.
DumpCase plain(const CollOp& row, std::string variant, std::string values, std::vector<DType> dtypes) {
  return {row.name, std::move(variant), json::object(), std::move(values), std::move(dtypes), false, row.engine};
}

json perm_json(const Perm& p) {
  json j = json::array();
  for (auto [s, d] : p) j.push_back({s, d});
  return j;
}

}  // namespace

Perm shift_perm(int n) {
  Perm p;
  for (int r = 0; r + 1 < n; ++r) p.push_back({r, r + 1});
  return p;
}
Perm ring_perm(int n) {
  Perm p;
  for (int r = 0; r < n; ++r) p.push_back({r, (r + 1) % n});
  return p;
}
std::vector<int> rotated(int n) {
  std::vector<int> perm;
  for (int i = 0; i < n; ++i) perm.push_back((i + 1) % n);
  return perm;
}
std::vector<int> reversed(int n) {
  std::vector<int> perm;
  for (int i = n - 1; i >= 0; --i) perm.push_back(i);
  return perm;
}

DumpFn dump_reduction() {
  return [](const CollOp& row, int) {
    return std::vector<DumpCase>{plain(row, "random", "random", kAll), plain(row, "special", "special", kFloat)};
  };
}

DumpFn dump_arg_reduction() {
  return [](const CollOp& row, int) {
    return std::vector<DumpCase>{plain(row, "ties", "ties", kNumeric), plain(row, "special", "special", kFloat)};
  };
}

DumpFn dump_axis_index() {
  return [](const CollOp& row, int) { return std::vector<DumpCase>{plain(row, "", "random", {DType::f32})}; };
}

DumpFn dump_all_gather() {
  return [](const CollOp&, int) {
    const std::vector<std::pair<int, bool>> listed = {{0, false}, {1, false}, {3, false}, {-1, false}, {0, true}, {2, true}, {-1, true}};
    std::vector<std::pair<int, bool>> ag = listed;
    for (int a = -4; a <= 3; ++a) ag.push_back({a, false});
    for (int a = -3; a <= 2; ++a) ag.push_back({a, true});
    std::vector<DumpCase> v;
    for (size_t i = 0; i < ag.size(); ++i) {
      auto [axis, tiled] = ag[i];
      if (i >= listed.size() && std::find(listed.begin(), listed.end(), ag[i]) != listed.end()) continue;
      v.push_back({tiled ? "all_gather_tiled" : "all_gather", cat("axis", axis, tiled ? "-tiled" : ""), {{"axis", axis}, {"tiled", tiled}},
                   "random", grid_dtypes(i < listed.size(), kAll), true,
                   [axis = axis, tiled = tiled](C& c, const Tensor& x, const I& in) { return comm::all_gather(c, x, axis, tiled, in.groups); }});
    }
    return v;
  };
}

DumpFn dump_psum_scatter() {
  return [](const CollOp&, int) {
    std::vector<DumpCase> v;
    for (auto [dim, tiled] : std::vector<std::pair<int, bool>>{{0, false}, {1, false}, {0, true}, {2, true}, {1, true}})
      v.push_back({tiled ? "psum_scatter_tiled" : "psum_scatter", cat("dim", dim, tiled ? "-tiled" : ""),
                   {{"scatter_dimension", dim}, {"tiled", tiled}}, "random", grid_dtypes(!(dim == 1 && tiled), kNumeric), true,
                   [dim = dim, tiled = tiled](C& c, const Tensor& x, const I& in) { return comm::psum_scatter(c, x, dim, tiled, in.groups); }});
    return v;
  };
}

DumpFn dump_all_to_all() {
  return [](const CollOp&, int) {
    using Split = std::tuple<int, int, bool>;
    const std::vector<Split> listed = {{0, 1, false}, {1, 0, false}, {0, 2, false}, {2, 0, true}, {0, 0, true}, {1, 2, true}};
    std::vector<Split> a2a = listed;
    for (bool tiled : {false, true})
      for (int s = 0; s <= (tiled ? 2 : 1); ++s)
        for (int k = 0; k <= 2; ++k)
          if (std::find(listed.begin(), listed.end(), Split{s, k, tiled}) == listed.end()) a2a.push_back({s, k, tiled});
    std::vector<DumpCase> v;
    for (size_t i = 0; i < a2a.size(); ++i) {
      auto [s, k, tiled] = a2a[i];
      v.push_back({tiled ? "all_to_all_tiled" : "all_to_all", cat("split", s, "-concat", k, tiled ? "-tiled" : ""),
                   {{"split_axis", s}, {"concat_axis", k}, {"tiled", tiled}}, "random", grid_dtypes(i < listed.size(), kAll), true,
                   [s = s, k = k, tiled = tiled](C& c, const Tensor& x, const I& in) { return comm::all_to_all(c, x, s, k, tiled, in.groups); }});
    }
    return v;
  };
}

DumpFn dump_pswapaxes() {
  return [](const CollOp& row, int) {
    return std::vector<DumpCase>{{row.name, "axis1", {{"axis", 1}}, "random", kAll, true,
                                  [](C& c, const Tensor& x, const I& in) { return comm::pswapaxes(c, x, 1, in.groups); }}};
  };
}

DumpFn dump_ppermute() {
  return [](const CollOp& row, int n) {
    std::vector<DumpCase> v;
    for (auto [name, perm] : std::vector<std::pair<std::string, Perm>>{{"shift", shift_perm(n)}, {"ring", ring_perm(n)}})
      v.push_back({row.name, name, {{"perm", perm_json(perm)}}, "random", kAll, true,
                   [perm = perm](C& c, const Tensor& x, const I&) { return comm::ppermute(c, x, perm); }});
    return v;
  };
}

DumpFn dump_pshuffle() {
  return [](const CollOp& row, int n) {
    return std::vector<DumpCase>{{row.name, "rotated", {{"perm", rotated(n)}}, "random", kAll, true, row.engine}};
  };
}

DumpFn dump_pbroadcast() {
  return [](const CollOp& row, int) {
    return std::vector<DumpCase>{{row.name, "last", {{"source", "last"}}, "random", kAll, true, row.engine}};
  };
}

DumpFn dump_ragged() {
  return [](const CollOp& row, int) { return std::vector<DumpCase>{{row.name, "gaps", json::object(), "random", kAll, true, nullptr}}; };
}

}  // namespace tandem::coll
