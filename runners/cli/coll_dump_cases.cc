// The oracle's cases (see coll_dump_cases.h). Inputs are seeded per (case, rank): "random"
// floats are normal × 2^k (k in -2..2, so float sums round), i32 spans the whole range (so
// psum wraps), bool is a coin; "special" floats draw from NaN, ±0, ±inf and two finite
// values (the rules of docs/COLLECTIVES.md); "ties" are small integers (pargmax's lowest-index
// rule). Each case names its op table entry, so the group layouts an op takes are the table's.
#include "runners/cli/coll_dump_cases.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <tuple>

#include "engine/core/error.h"
#include "suites/collectives/collectives_cases.h"

namespace tandem::coll {
namespace {

using nlohmann::json;
using Run = std::function<Tensor(comm::Collectives&, const Tensor&, const comm::Groups&, int G)>;

struct DumpCase {
  std::string op;       // op table name (layout rules); JAX's name is op without "_tiled"
  std::string variant;  // parameters in the stem, e.g. axis1-tiled
  json params;          // what JAX is called with besides the axis name
  std::string values;   // random | special | ties
  bool per_group_shape; // x is [G, G, 2G] (data movement) or [8, 16] (reductions)
  std::vector<DType> dtypes;
  Run run;
};

const std::vector<DType> kAll = {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i32, DType::pred};
const std::vector<DType> kNumeric = {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i32};
const std::vector<DType> kFloat = {DType::f64, DType::f32, DType::f16, DType::bf16};

using Perm = std::vector<std::pair<int, int>>;
Perm shift_perm(int n) {  // r → r+1; rank 0 is no destination (zeros)
  Perm p;
  for (int r = 0; r + 1 < n; ++r) p.push_back({r, r + 1});
  return p;
}
Perm ring_perm(int n) {  // r → (r+1) mod n, and rank 0 keeps its own when n == 1
  Perm p;
  for (int r = 0; r < n; ++r) p.push_back({r, (r + 1) % n});
  return p;
}
json perm_json(const Perm& p) {
  json j = json::array();
  for (auto [s, d] : p) j.push_back({s, d});
  return j;
}

std::vector<DumpCase> make_cases(int n) {
  std::vector<DumpCase> v;
  auto red = [&](const char* op, auto f) {
    Run run = [f](comm::Collectives& c, const Tensor& x, const comm::Groups& g, int) { return f(c, x, g); };
    v.push_back({op, "random", json::object(), "random", false, kAll, run});
    v.push_back({op, "special", json::object(), "special", false, kFloat, run});
  };
  red("psum", [](auto& c, auto& x, auto& g) { return comm::psum(c, x, g); });
  red("pmax", [](auto& c, auto& x, auto& g) { return comm::pmax(c, x, g); });
  red("pmin", [](auto& c, auto& x, auto& g) { return comm::pmin(c, x, g); });
  red("pmean", [](auto& c, auto& x, auto& g) { return comm::pmean(c, x, g); });
  for (const char* op : {"pargmax", "pargmin"}) {
    const bool mx = std::string(op) == "pargmax";
    Run run = [mx](comm::Collectives& c, const Tensor& x, const comm::Groups& g, int) {
      return mx ? comm::pargmax(c, x, g) : comm::pargmin(c, x, g);
    };
    v.push_back({op, "ties", json::object(), "ties", false, kNumeric, run});
    v.push_back({op, "special", json::object(), "special", false, kFloat, run});
  }
  v.push_back({"axis_index", "", json::object(), "random", false, {DType::f32},
               [](comm::Collectives& c, const Tensor&, const comm::Groups& g, int) { return comm::axis_index(c, g); }});
  // Init-captures: clang before 16 cannot capture a structured binding by name.
  // The axis grid: every axis x [G, G, 2G] allows, all_gather's in both forms (JAX canonicalizes
  // them), psum_scatter's and all_to_all's non-negative (JAX binds those as given); the
  // points listed before the grid in every dtype, the rest in f32.
  auto grid_dtypes = [](bool listed, const std::vector<DType>& all) { return listed ? all : std::vector<DType>{DType::f32}; };
  const std::vector<std::pair<int, bool>> ag_listed = {{0, false}, {1, false}, {3, false}, {-1, false}, {0, true}, {2, true}, {-1, true}};
  std::vector<std::pair<int, bool>> ag = ag_listed;
  for (int a = -4; a <= 3; ++a) ag.push_back({a, false});
  for (int a = -3; a <= 2; ++a) ag.push_back({a, true});
  for (size_t i = 0; i < ag.size(); ++i) {
    auto [axis, tiled] = ag[i];
    if (i >= ag_listed.size() && std::find(ag_listed.begin(), ag_listed.end(), ag[i]) != ag_listed.end()) continue;
    v.push_back({tiled ? "all_gather_tiled" : "all_gather", cat("axis", axis, tiled ? "-tiled" : ""), {{"axis", axis}, {"tiled", tiled}}, "random",
                 true, grid_dtypes(i < ag_listed.size(), kAll), [axis = axis, tiled = tiled](comm::Collectives& c, const Tensor& x, const comm::Groups& g, int) {
                   return comm::all_gather(c, x, axis, tiled, g);
                 }});
  }
  for (auto [dim, tiled] : std::vector<std::pair<int, bool>>{{0, false}, {1, false}, {0, true}, {2, true}, {1, true}})
    v.push_back({tiled ? "psum_scatter_tiled" : "psum_scatter", cat("dim", dim, tiled ? "-tiled" : ""), {{"scatter_dimension", dim}, {"tiled", tiled}},
                 "random", true, grid_dtypes(!(dim == 1 && tiled), kNumeric), [dim = dim, tiled = tiled](comm::Collectives& c, const Tensor& x, const comm::Groups& g, int) {
                   return comm::psum_scatter(c, x, dim, tiled, g);
                 }});
  using Split = std::tuple<int, int, bool>;
  const std::vector<Split> a2a_listed = {{0, 1, false}, {1, 0, false}, {0, 2, false}, {2, 0, true}, {0, 0, true}, {1, 2, true}};
  std::vector<Split> a2a = a2a_listed;
  for (bool tiled : {false, true})
    for (int s = 0; s <= (tiled ? 2 : 1); ++s)
      for (int k = 0; k <= 2; ++k)
        if (std::find(a2a_listed.begin(), a2a_listed.end(), Split{s, k, tiled}) == a2a_listed.end()) a2a.push_back({s, k, tiled});
  for (size_t i = 0; i < a2a.size(); ++i) {
    auto [s, k, tiled] = a2a[i];
    v.push_back({tiled ? "all_to_all_tiled" : "all_to_all", cat("split", s, "-concat", k, tiled ? "-tiled" : ""),
                 {{"split_axis", s}, {"concat_axis", k}, {"tiled", tiled}}, "random", true, grid_dtypes(i < a2a_listed.size(), kAll),
                 [s = s, k = k, tiled = tiled](comm::Collectives& c, const Tensor& x, const comm::Groups& g, int) {
                   return comm::all_to_all(c, x, s, k, tiled, g);
                 }});
  }
  v.push_back({"pswapaxes", "axis1", {{"axis", 1}}, "random", true, kAll,
               [](comm::Collectives& c, const Tensor& x, const comm::Groups& g, int) { return comm::pswapaxes(c, x, 1, g); }});
  for (auto [name, perm] : std::vector<std::pair<std::string, Perm>>{{"shift", shift_perm(n)}, {"ring", ring_perm(n)}})
    v.push_back({"ppermute", name, {{"perm", perm_json(perm)}}, "random", true, kAll,
                 [perm = perm](comm::Collectives& c, const Tensor& x, const comm::Groups&, int) { return comm::ppermute(c, x, perm); }});
  std::vector<int> rev;
  for (int i = n - 1; i >= 0; --i) rev.push_back(i);
  v.push_back({"pshuffle", "reversed", {{"perm", rev}}, "random", true, kAll,
               [rev](comm::Collectives& c, const Tensor& x, const comm::Groups&, int) { return comm::pshuffle(c, x, rev); }});
  v.push_back({"pbroadcast", "last", {{"source", "last"}}, "random", true, kAll,
               [](comm::Collectives& c, const Tensor& x, const comm::Groups& g, int G) { return comm::pbroadcast(c, x, G - 1, g); }});
  return v;
}

// Element value of a set; `r` draws from the case's and rank's own stream.
double draw(const std::string& values, DType t, bool reduction, std::mt19937_64& r) {
  std::uniform_real_distribution<double> u(0, 1);
  if (t == DType::pred) return u(r) < 0.5 ? 1 : 0;
  if (values == "ties") return double(int(u(r) * 7) - 3);
  if (t == DType::i32) {
    if (!reduction) return double(int64_t(u(r) * 2000) - 1000);
    return std::floor(u(r) * 4294967296.0) - 2147483648.0;
  }
  if (values == "special") {
    const double inf = std::numeric_limits<double>::infinity();
    const double set[] = {std::nan(""), 0.0, -0.0, -0.0, 0.0, inf, -inf, 1.5, -2.0, 1.5};
    return set[size_t(u(r) * 10) % 10];
  }
  std::normal_distribution<double> nd(0, 1);
  return nd(r) * std::ldexp(1.0, int(u(r) * 5) - 2);
}

uint64_t mix(uint64_t seed, const std::string& stem, int rank) {
  return seed ^ (std::hash<std::string>{}(stem) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(rank + 1) << 40);
}

json groups_json(const comm::Groups& g, int n) {
  if (!g.empty()) return g;
  std::vector<int> all;
  for (int r = 0; r < n; ++r) all.push_back(r);
  return json::array({all});
}

// Ragged: position p sends rows(p, q) rows to position q from input offset 1 + (rows before
// it) + q (one unused row between slices), landing at the receiver after one spare row and
// the rows of the positions before p; the output starts at −1 so kept rows are checked.
void ragged_run(comm::Collectives& c, const comm::Groups& g, int G, int pos, DType t, DumpRun& d, uint64_t seed) {
  auto rows = [](int a, int b) { return int64_t((a + 2 * b) % 3 + (a == b)); };
  comm::RaggedOffsets o;
  int64_t in = 1;
  for (int q = 0; q < G; ++q) {
    o.input_offsets.push_back(in);
    o.send_sizes.push_back(rows(pos, q));
    int64_t at = 1;
    for (int s = 0; s < pos; ++s) at += rows(s, q);
    o.output_offsets.push_back(at);
    o.recv_sizes.push_back(rows(q, pos));
    in += rows(pos, q) + 1;
  }
  std::mt19937_64 r(mix(seed, d.stem, c.world().rank()));
  std::vector<double> xv(size_t(in * 3));
  for (double& e : xv) e = draw("random", t, false, r);
  const Tensor operand = Tensor::from_f64(xv, {in, 3}, t);
  const Tensor output = Tensor::from_f64(std::vector<double>(size_t((4 * G + 2) * 3), -1), {4 * G + 2, 3}, t);
  auto i32 = [](const std::vector<int64_t>& v) {
    return Tensor::from_f64(std::vector<double>(v.begin(), v.end()), {int64_t(v.size())}, DType::i32);
  };
  d.inputs = {{"operand", operand}, {"output", output}, {"input_offsets", i32(o.input_offsets)},
              {"send_sizes", i32(o.send_sizes)}, {"output_offsets", i32(o.output_offsets)}, {"recv_sizes", i32(o.recv_sizes)}};
  d.out = comm::ragged_all_to_all(c, operand, output, o, g);
}

}  // namespace

std::vector<DumpRun> run_dump_cases(comm::Collectives& c, const std::vector<std::string>& only, uint64_t seed) {
  const int n = c.world().size(), me = c.world().rank();
  auto wanted = [&](const std::string& op) {
    if (only.empty()) return true;
    for (const auto& o : only) if (o == op) return true;
    return false;
  };
  std::vector<DumpCase> cases = make_cases(n);
  // ragged_all_to_all has its own inputs (ragged_run); one entry so the loop below sees it.
  cases.push_back({"ragged_all_to_all", "gaps", json::object(), "random", true, kAll, nullptr});
  std::vector<DumpRun> out;
  for (const DumpCase& k : cases) {
    if (!wanted(k.op)) continue;
    for (DType t : k.dtypes)
      for (const std::string& layout : kLayouts) {
        DumpRun d;
        d.stem = cat(k.op, k.variant.empty() ? "" : "-" + k.variant, "-", dtype_name(t), "-", layout);
        std::string why;
        const comm::Groups g = layout_groups(layout, n, k.op, &why);
        const std::string jax_op = k.op.substr(0, k.op.find("_tiled"));
        d.meta = {{"op", k.op}, {"jax", jax_op}, {"variant", k.variant}, {"params", k.params}, {"dtype", dtype_name(t)},
                  {"layout", layout}, {"groups", groups_json(g, n)}, {"world", n}, {"values", k.values}, {"seed", seed}};
        if (!why.empty()) {
          d.skipped = why;
          d.meta["skipped"] = why;
          out.push_back(std::move(d));
          continue;
        }
        int G = n, pos = me;
        for (const auto& grp : g)
          for (size_t p = 0; p < grp.size(); ++p)
            if (grp[p] == me) G = int(grp.size()), pos = int(p);
        try {
          if (!k.run) ragged_run(c, g, G, pos, t, d, seed);
        } catch (const Error& e) {  // bad input is agreed on every rank first (validate): no hang
          d.meta["error"] = e.message();
        }
        if (!k.run) {
          out.push_back(std::move(d));
          continue;
        }
        const Shape shape = k.per_group_shape ? Shape{G, G, 2 * G} : Shape{8, 16};
        std::mt19937_64 r(mix(seed, d.stem, me));
        std::vector<double> xv(size_t(num_elements(shape)));
        for (double& e : xv) e = draw(k.values, t, !k.per_group_shape, r);
        const Tensor x = Tensor::from_f64(xv, shape, t);
        d.inputs = {{"x", x}};
        try {
          d.out = k.run(c, x, g, G).to(Device::cpu());
        } catch (const Error& e) {
          d.meta["error"] = e.message();
        }
        out.push_back(std::move(d));
      }
  }
  return out;
}

}  // namespace tandem::coll
