// The collective primitives (collective_prims.h): shape rules, the impl that runs them over
// the Executor's axis environment, and the builder functions. The impl is device-agnostic
// (the bound NamedAxis moves data to its transport's device: host for MPI, the GPU for
// NCCL), so the same function is the CPU and the CUDA impl.
#include "engine/prims/collective_prims.h"

#include "engine/core/axis_env.h"
#include "engine/core/error.h"
#include "engine/prims/register_all.h"
#include "engine/prims/primitive_of.h"

namespace tandem {
namespace {

std::vector<std::string> names_of(const Params& p, const std::string& op, bool tuple_ok) {
  std::string joined = p.get_string("axis_name", "");
  if (joined.empty()) throw_bad_input(cat(op, " has no axis_name"), "name the axis it runs over, e.g. \"i\"");
  std::vector<std::string> names = split_axis_names(joined);
  if (!tuple_ok && names.size() != 1)
    throw_bad_input(cat(op, " over the axes (", joined, "): only psum / pmean / pmax / pmin take a tuple of axis names"),
                    "apply it over one axis at a time");
  return names;
}

NamedAxis& bound(EvalContext& ctx, const std::string& name, const std::string& op) {
  if (ctx.axes) {
    auto it = ctx.axes->find(name);
    if (it != ctx.axes->end() && it->second) return *it->second;
  }
  std::string have;
  if (ctx.axes)
    for (const auto& [n, a] : *ctx.axes) have += cat(have.empty() ? "" : ", ", "'", n, "'");
  throw_bad_input(cat(op, " over axis '", name, "': the axis is not bound (bound axes: ", have.empty() ? "none" : have, ")"),
                  cat("run it under vmap with axis_name '", name, "', or bind the axis in the executor's axis "
                      "environment (Executor::set_axis_env; the MPI / NCCL world: engine/comm/comm_axis.h)"));
}

NamedAxis& bound_sized(EvalContext& ctx, const Params& p, const std::string& op) {
  NamedAxis& a = bound(ctx, names_of(p, op, false)[0], op);
  if (a.size() != p.get_int("axis_size"))
    throw_bad_input(cat(op, " was built for axis_size ", p.get_int("axis_size"), " but ", a.describe(), " has ", a.size()),
                    "build the program with the bound axis's size");
  return a;
}

AType one(const std::vector<AType>& in, const std::string& op) {
  if (in.size() != 1) throw_bad_input(cat(op, " takes 1 operand, got ", in.size()));
  if (in[0].dtype == DType::pred) throw_bad_input(cat(op, " of bool is not supported"), "convert to i32 first");
  return in[0];
}

int64_t group_size(const Params& p, const std::string& op) {
  int64_t g = p.get_int("axis_size");
  if (g < 1) throw_bad_input(cat(op, ": axis_size ", g, " is not positive"));
  return g;
}

// JAX canonicalizes a negative axis only for all_gather (lax/parallel.py: all_gather's bind
// calls canonicalize_axis); psum_scatter and all_to_all bind theirs as given, and a negative
// one then fails in their batchers and in lowering. So tandem refuses it, as bad input.
void refuse_negative(const Params& p, const char* key, const std::string& op) {
  const int64_t a = p.get_int(key);
  if (a < 0)
    throw_bad_input(cat(op, ": ", key, " ", a, " is negative"),
                    cat("JAX's ", op, " takes only non-negative axes (only all_gather canonicalizes a negative one): "
                        "pass the axis plus the operand's rank"));
}

// Every collective names its axes (axis_name) and may state their size (axis_size); `extra`
// are its own params.
void reg(const std::string& name, ShapeRule shape, Impl impl, std::vector<std::string> extra = {}) {
  Primitive p = primitive_of(name, kCollective, {"axis_name", "axis_size"}, std::move(shape), impl);
  p.params.insert(p.params.end(), extra.begin(), extra.end());
#if TANDEM_HAVE_CUDA
  p.cuda = std::move(impl);  // device-agnostic: the NamedAxis stages through its transport's device
#endif
  register_primitive(std::move(p));
}

void reduction(const std::string& name, AxisReduce op) {
  reg(name,
      [name, op](const std::vector<AType>& in, const Params& p) {
        AType t = one(in, name);
        names_of(p, name, true);
        if (op == AxisReduce::mean && !is_floating(t.dtype)) t.dtype = DType::f32;  // JAX: true division
        return std::vector<AType>{t};
      },
      [name, op](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
        Tensor x = in[0];
        for (const std::string& n : names_of(p, name, true)) x = bound(ctx, n, name).reduce(x, op);
        return std::vector<Tensor>{x};
      });
}

// all_gather's result: the axis grows by the group size (tiled) or a new axis of that size.
std::vector<AType> all_gather_type(const std::vector<AType>& in, const Params& p) {
  AType t = one(in, "all_gather");
  names_of(p, "all_gather", false);
  int64_t g = group_size(p, "all_gather");
  if (p.get_bool("tiled", false)) {
    t.shape[size_t(normalize_axis(p.get_int("axis"), t.rank(), "all_gather"))] *= g;
  } else {
    int a = normalize_axis(p.get_int("axis"), t.rank() + 1, "all_gather");
    t.shape.insert(t.shape.begin() + a, g);
  }
  return std::vector<AType>{t};
}

// The dimension `what` (axis d, size n) a group of g members splits: tiled, n divides evenly
// among them; untiled, n is g (one slice each).
void check_split(const char* what, const char* noun, int d, int64_t n, int64_t g, bool tiled) {
  if (tiled ? n % g == 0 : n == g) return;
  throw_bad_input(cat(what, " ", d, " has size ", n, ", the axis has ", g, " members"),
                  tiled ? cat("tiled: ", noun, " must divide evenly among the members")
                        : cat("untiled: ", noun, "'s size must equal the axis size"));
}

// psum_scatter's result: the scatter dimension divided among the members (tiled) or dropped.
std::vector<AType> psum_scatter_type(const std::vector<AType>& in, const Params& p) {
  AType t = one(in, "psum_scatter");
  names_of(p, "psum_scatter", false);
  int64_t g = group_size(p, "psum_scatter");
  refuse_negative(p, "scatter_dimension", "psum_scatter");
  int d = normalize_axis(p.get_int("scatter_dimension"), t.rank(), "psum_scatter");
  int64_t n = t.shape[size_t(d)];
  bool tiled = p.get_bool("tiled", false);
  check_split("psum_scatter: scatter_dimension", "the dimension", d, n, g, tiled);
  if (tiled) t.shape[size_t(d)] = n / g;
  else t.shape.erase(t.shape.begin() + d);
  return std::vector<AType>{t};
}

// all_to_all's result: the split axis divided among the members, the concat axis grown by
// them (tiled); untiled, the split axis (its size the group's) moves to the concat position.
std::vector<AType> all_to_all_type(const std::vector<AType>& in, const Params& p) {
  AType t = one(in, "all_to_all");
  names_of(p, "all_to_all", false);
  int64_t g = group_size(p, "all_to_all");
  refuse_negative(p, "split_axis", "all_to_all");
  refuse_negative(p, "concat_axis", "all_to_all");
  int s = normalize_axis(p.get_int("split_axis"), t.rank(), "all_to_all");
  int64_t n = t.shape[size_t(s)];
  bool tiled = p.get_bool("tiled", false);
  check_split("all_to_all: split_axis", "the split axis", s, n, g, tiled);
  if (tiled) {
    t.shape[size_t(s)] = n / g;
    t.shape[size_t(normalize_axis(p.get_int("concat_axis"), t.rank(), "all_to_all"))] *= g;
  } else {
    t.shape.erase(t.shape.begin() + s);
    t.shape.insert(t.shape.begin() + normalize_axis(p.get_int("concat_axis"), t.rank() + 1, "all_to_all"), g);
  }
  return std::vector<AType>{t};
}

}  // namespace

std::vector<std::pair<int, int>> perm_pairs(const Params& p) {
  std::vector<int64_t> flat = p.get_ints("perm");
  if (flat.size() % 2) throw_bad_input("ppermute: perm holds an odd number of entries", "give (source, destination) pairs");
  std::vector<std::pair<int, int>> r;
  for (size_t i = 0; i < flat.size(); i += 2) r.push_back({int(flat[i]), int(flat[i + 1])});
  return r;
}

void register_collective_primitives() {
  reduction("psum", AxisReduce::sum);
  reduction("pmean", AxisReduce::mean);
  reduction("pmax", AxisReduce::max);
  reduction("pmin", AxisReduce::min);
  reg("all_gather", all_gather_type,
      [](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
        return std::vector<Tensor>{bound_sized(ctx, p, "all_gather").all_gather(in[0], p.get_int("axis"), p.get_bool("tiled", false))};
      },
      {"axis", "tiled"});
  reg("psum_scatter", psum_scatter_type,
      [](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
        return std::vector<Tensor>{bound_sized(ctx, p, "psum_scatter").psum_scatter(in[0], p.get_int("scatter_dimension"), p.get_bool("tiled", false))};
      },
      {"scatter_dimension", "tiled"});
  reg("all_to_all", all_to_all_type,
      [](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
        return std::vector<Tensor>{bound_sized(ctx, p, "all_to_all").all_to_all(in[0], p.get_int("split_axis"), p.get_int("concat_axis"), p.get_bool("tiled", false))};
      },
      {"split_axis", "concat_axis", "tiled"});
  reg("ppermute",
      [](const std::vector<AType>& in, const Params& p) {
        AType t = one(in, "ppermute");
        names_of(p, "ppermute", false);
        perm_pairs(p);
        return std::vector<AType>{t};
      },
      [](const std::vector<Tensor>& in, const Params& p, EvalContext& ctx) {
        return std::vector<Tensor>{bound(ctx, names_of(p, "ppermute", false)[0], "ppermute").ppermute(in[0], perm_pairs(p))};
      },
      {"perm"});
  reg("axis_index",
      [](const std::vector<AType>& in, const Params& p) {
        if (!in.empty()) throw_bad_input("axis_index takes no operands");
        names_of(p, "axis_index", false);
        return std::vector<AType>{AType{{}, DType::i32}};
      },
      [](const std::vector<Tensor>&, const Params& p, EvalContext& ctx) {
        return std::vector<Tensor>{Tensor::scalar(bound(ctx, names_of(p, "axis_index", false)[0], "axis_index").index(), DType::i32).to(ctx.device)};
      });
}

Value psum(Value x, const std::string& n) { return x.builder()->bind1("psum", {x}, {{"axis_name", n}}); }
Value pmean(Value x, const std::string& n) { return x.builder()->bind1("pmean", {x}, {{"axis_name", n}}); }
Value pmax(Value x, const std::string& n) { return x.builder()->bind1("pmax", {x}, {{"axis_name", n}}); }
Value pmin(Value x, const std::string& n) { return x.builder()->bind1("pmin", {x}, {{"axis_name", n}}); }
Value all_gather(Value x, const std::string& n, int64_t size, int64_t axis, bool tiled) {
  return x.builder()->bind1("all_gather", {x}, {{"axis_name", n}, {"axis_size", size}, {"axis", axis}, {"tiled", tiled}});
}
Value psum_scatter(Value x, const std::string& n, int64_t size, int64_t dim, bool tiled) {
  return x.builder()->bind1("psum_scatter", {x}, {{"axis_name", n}, {"axis_size", size}, {"scatter_dimension", dim}, {"tiled", tiled}});
}
Value all_to_all(Value x, const std::string& n, int64_t size, int64_t split_axis, int64_t concat_axis, bool tiled) {
  return x.builder()->bind1("all_to_all", {x}, {{"axis_name", n}, {"axis_size", size}, {"split_axis", split_axis},
                                               {"concat_axis", concat_axis}, {"tiled", tiled}});
}
Value ppermute(Value x, const std::string& n, const std::vector<std::pair<int, int>>& perm) {
  std::vector<int64_t> flat;
  for (auto [s, d] : perm) {
    flat.push_back(s);
    flat.push_back(d);
  }
  return x.builder()->bind1("ppermute", {x}, {{"axis_name", n}, {"perm", flat}});
}
Value axis_index(Builder& b, const std::string& n) { return b.bind1("axis_index", {}, {{"axis_name", n}}); }

}  // namespace tandem
