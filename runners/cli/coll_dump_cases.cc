// The oracle's cases (see coll_dump_cases.h), read from the op table's rows (their `dump`).
// Inputs are seeded per (case, rank): "random" floats are normal × 2^k (k in -2..2, so float
// sums round), i32 spans the whole range (so psum wraps), bool is a coin; "special" floats
// draw from NaN, ±0, ±inf and two finite values (the rules of docs/COLLECTIVES.md); "ties" are
// small integers (pargmax's lowest-index rule). Each case names its op table row, so the group
// layouts an op takes are the table's.
#include "runners/cli/coll_dump_cases.h"

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "engine/core/error.h"
#include "suites/collectives/collectives_cases.h"
#include "suites/collectives/op_table.h"

namespace tandem::coll {
namespace {

using nlohmann::json;

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
  std::vector<std::pair<std::string, DumpCase>> cases;  // JAX's op (the row's name), the case
  for (const CollOp& row : coll_ops())
    if (row.dump)
      for (DumpCase& k : row.dump(row, n)) {
        TANDEM_CHECK(find_op(k.op), row.name, "'s dump case names no op table row: ", k.op);
        cases.push_back({row.name, std::move(k)});
      }
  std::vector<DumpRun> out;
  for (const auto& [jax_op, k] : cases) {
    if (!wanted(k.op)) continue;
    for (DType t : k.dtypes)
      for (const std::string& layout : kLayouts) {
        DumpRun d;
        d.stem = cat(k.op, k.variant.empty() ? "" : "-" + k.variant, "-", dtype_name(t), "-", layout);
        std::string why;
        const comm::Groups g = layout_groups(layout, n, k.op, &why);
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
          CaseInputs in;
          in.groups = g, in.G = G, in.pos = pos, in.n = n;
          d.out = k.run(c, x, in).to(Device::cpu());
        } catch (const Error& e) {
          d.meta["error"] = e.message();
        }
        out.push_back(std::move(d));
      }
  }
  return out;
}

}  // namespace tandem::coll
