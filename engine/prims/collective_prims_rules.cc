// The collectives' rules: reverse mode (JAX's transposes: psum ↔ psum, all_gather ↔
// psum_scatter, all_to_all with its axes swapped, ppermute with its pairs inverted; pmax and
// pmin have none in JAX, so theirs refuses), the batching rule for a collective over
// another axis (the vmapped axis rides along as an ordinary dimension), and the axis rules
// for a collective over the vmapped axis itself, which become array ops on the batch
// dimension (JAX's _batched_reduction_collective, _all_gather_batched_collective, …).
#include <algorithm>

#include "engine/core/error.h"
#include "engine/ir/vjp_args.h"
#include "engine/prims/batch_rules.h"
#include "engine/prims/collective_prims.h"

namespace tandem {
namespace {
using Cts = std::vector<std::optional<Value>>;
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;
Primitive& prim(const char* n) { return mutable_primitive(n); }

void vjp_rules() {
  auto linear = [](const char* name, std::function<Value(Value, const Params&)> transpose) {
    prim(name).vjp = [transpose](const VjpArgs& a, const Params& p) {
      return Cts{a.wants(0) ? std::optional<Value>(transpose(a.ct(0), p)) : std::nullopt};
    };
  };
  linear("psum", [](Value g, const Params& p) { return psum(g, p.get_string("axis_name", "")); });
  linear("pmean", [](Value g, const Params& p) { return pmean(g, p.get_string("axis_name", "")); });
  linear("all_gather", [](Value g, const Params& p) {
    int64_t axis = p.get_int("axis");
    if (axis < 0) axis += g.rank();  // g has the gathered axis: psum_scatter takes no negative one
    return psum_scatter(g, p.get_string("axis_name", ""), p.get_int("axis_size"), axis, p.get_bool("tiled", false));
  });
  linear("psum_scatter", [](Value g, const Params& p) {
    int64_t d = p.get_int("scatter_dimension");
    if (!p.get_bool("tiled", false) && d < 0) d += g.rank() + 1;  // the scattered axis, in x's rank
    return all_gather(g, p.get_string("axis_name", ""), p.get_int("axis_size"), d, p.get_bool("tiled", false));
  });
  linear("all_to_all", [](Value g, const Params& p) {
    return all_to_all(g, p.get_string("axis_name", ""), p.get_int("axis_size"), p.get_int("concat_axis"),
                      p.get_int("split_axis"), p.get_bool("tiled", false));
  });
  linear("ppermute", [](Value g, const Params& p) {
    std::vector<std::pair<int, int>> inv;
    for (auto [s, d] : perm_pairs(p)) inv.push_back({d, s});
    return ppermute(g, p.get_string("axis_name", ""), inv);
  });
  for (const char* n : {"pmax", "pmin"})
    prim(n).vjp = [n](const VjpArgs&, const Params&) -> Cts {
      throw_unsupported(cat(n, " has no derivative: JAX defines no differentiation rule for it (lax/parallel.py)"),
                        "differentiate a psum-based formulation instead");
    };
  prim("axis_index").vjp = [](const VjpArgs&, const Params&) { return Cts{}; };  // no operands
}

// ---- a collective over another axis: the batch dimension is carried through ----------
void carried_rules() {
  for (const char* n : {"psum", "pmean", "pmax", "pmin", "ppermute"}) {
    std::string name = n;
    prim(n).batch = [name](const std::vector<Value>& in, const std::vector<BatchAxis>& axes, const Params& p) {
      return Result{{in[0].builder()->bind1(name, in, p)}, {axes[0]}};
    };
  }
  // The rest move the batch dimension to the front and shift their axis params past it.
  auto front = [](const char* n, std::vector<const char*> keys) {
    std::string name = n;
    prim(n).batch = [name, keys](const std::vector<Value>& in, const std::vector<BatchAxis>& axes, const Params& p) {
      Value x = move_axis(in[0], *axes[0], 0);
      int r = in[0].rank() - 1;  // the per-example rank; an untiled all_gather's axis counts the new one
      int range = name == "all_gather" && !p.get_bool("tiled", false) ? r + 1 : r;
      Params q = p;
      for (const char* k : keys) q.set(k, int64_t(normalize_axis(p.get_int(k), range, name.c_str()) + 1));
      return Result{{in[0].builder()->bind1(name, {x}, q)}, {0}};
    };
  };
  front("all_gather", {"axis"});
  front("psum_scatter", {"scatter_dimension"});
  front("all_to_all", {"split_axis", "concat_axis"});
  // Never called with a mapped operand (it has none); present so the table stays complete.
  prim("axis_index").batch = [](const std::vector<Value>&, const std::vector<BatchAxis>&, const Params&) -> Result {
    throw Error(ErrorKind::invariant, "axis_index has no operands to be mapped");
  };
}
}  // namespace

void register_collective_axis_rules();  // collective_prims_axis_rules.cc

void register_collective_rules() {
  vjp_rules();
  carried_rules();
  register_collective_axis_rules();
}

}  // namespace tandem
