// The axis rules (Primitive::axis_batch): a collective over the vmapped axis becomes array ops on the batch dimension,
// as JAX's batchers for named axes do. The examples of the vmap are the members of the axis: psum is a reduce_sum over
// the batch dimension (its result is the same for every example, so it leaves unmapped; an unmapped operand is size *
// x), all_gather is the batched value itself with its batch dimension moved to the gathered axis, psum_scatter keeps
// example i's chunk of the sum mapped, all_to_all exchanges the batch dimension with the split axis, ppermute gathers
// along the batch (one slice per example: the IR has no gather primitive), and axis_index is an iota. A reduction over
// a tuple that also names other axes reduces over the vmapped one here and stays a collective over the rest.
#include "engine/core/error.h"
#include "engine/prims/batch_rules.h"
#include "engine/prims/collective_prims.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;
using Axes = std::vector<BatchAxis>;

void set(const char* n, AxisBatchRule r) { mutable_primitive(n).axis_batch = std::move(r); }

std::string joined_except(const std::string& joined, const std::string& drop) {
  std::string r;
  for (const std::string& n : split_axis_names(joined))
    if (n != drop) r += (r.empty() ? "" : ",") + n;
  return r;
}

void single_axis_sized(const Params& p, const char* op, int64_t size) {
  if (split_axis_names(p.get_string("axis_name", "")).size() != 1)
    throw_bad_input(cat(op, " over (", p.get_string("axis_name", ""), "): only the reductions take a tuple of axis names"),
                    "apply it over one axis at a time");
  if (p.has("axis_size") && p.get_int("axis_size") != size)
    throw_bad_input(cat(op, " was built for axis_size ", p.get_int("axis_size"), " but the vmapped axis '",
                        p.get_string("axis_name", ""), "' has ", size, " examples"),
                    "build it with axis_size equal to the vmap's size");
}

Value merge_axes(Value x, int a) {  // axes a and a+1 become one (a major)
  Shape s = x.shape();
  s[size_t(a)] *= s[size_t(a) + 1];
  s.erase(s.begin() + a + 1);
  return reshape(x, s);
}
Value split_axis(Value x, int a, int64_t major) {  // axis a becomes (major, rest)
  Shape s = x.shape();
  int64_t n = s[size_t(a)];
  s[size_t(a)] = n / major;
  s.insert(s.begin() + a, major);
  return reshape(x, s);
}

void reduction(const char* n) {
  std::string name = n;
  set(n, [name](Builder& b, const std::vector<Value>& in, const Axes& axes, const Params& p,
                const std::string& axis, int64_t size) {
    Value x = in[0];
    if (name == "pmean" && !is_floating(x.dtype())) x = convert_element_type(x, DType::f32);  // JAX: true division
    Value r = x;
    if (axes[0]) {
      int bd = *axes[0];
      if (name == "psum") r = reduce_sum(x, {bd});
      else if (name == "pmean") r = reduce_sum(x, {bd}) / b.literal(double(size), x.dtype());
      else if (name == "pmax") r = reduce_max(x, {bd});
      else r = neg(reduce_max(neg(x), {bd}));
    } else if (name == "psum") {
      r = x * b.literal(double(size), x.dtype());  // every example holds x
    }
    std::string rest = joined_except(p.get_string("axis_name", ""), axis);
    if (!rest.empty()) {
      Params q = p;
      q.set("axis_name", rest);
      r = b.bind1(name, {r}, q);
    }
    return Result{{r}, {std::nullopt}};
  });
}

// x[j, ...] → y[i, ...]: the untiled all_to_all over the examples, x's batch at the front,
// per-example rank r, split axis s, concat axis c (in the output's rank r).
Value exchange(Value xb, int r, int s, int c) {
  std::vector<int64_t> rest;
  for (int k = 0; k < r; ++k)
    if (k != s) rest.push_back(k + 1);
  rest.insert(rest.begin() + c, 0);
  rest.insert(rest.begin(), s + 1);
  return transpose(xb, rest);
}
}  // namespace

void register_collective_axis_rules() {
  for (const char* n : {"psum", "pmean", "pmax", "pmin"}) reduction(n);
  set("all_gather", [](Builder&, const std::vector<Value>& in, const Axes& axes, const Params& p, const std::string&,
                       int64_t size) {
    single_axis_sized(p, "all_gather", size);
    Value xb = batch_at_front(in[0], axes[0], size);
    int r = xb.rank() - 1;
    if (!p.get_bool("tiled", false))
      return Result{{move_axis(xb, 0, normalize_axis(p.get_int("axis"), r + 1, "all_gather"))}, {std::nullopt}};
    int a = normalize_axis(p.get_int("axis"), r, "all_gather");
    return Result{{merge_axes(move_axis(xb, 0, a), a)}, {std::nullopt}};
  });
  set("psum_scatter", [](Builder& b, const std::vector<Value>& in, const Axes& axes, const Params& p,
                         const std::string&, int64_t size) {
    single_axis_sized(p, "psum_scatter", size);
    Value s = axes[0] ? reduce_sum(in[0], {*axes[0]}) : in[0] * b.literal(double(size), in[0].dtype());
    int d = normalize_axis(p.get_int("scatter_dimension"), s.rank(), "psum_scatter");
    // Example i keeps chunk i of dimension d: d itself becomes the batch dimension.
    if (p.get_bool("tiled", false)) s = split_axis(s, d, size);
    return Result{{s}, {d}};
  });
  set("all_to_all", [](Builder&, const std::vector<Value>& in, const Axes& axes, const Params& p, const std::string&,
                       int64_t size) {
    single_axis_sized(p, "all_to_all", size);
    Value xb = batch_at_front(in[0], axes[0], size);
    int r = xb.rank() - 1;
    int s = normalize_axis(p.get_int("split_axis"), r, "all_to_all");
    int c = normalize_axis(p.get_int("concat_axis"), r, "all_to_all");
    if (!p.get_bool("tiled", false)) return Result{{exchange(xb, r, s, c)}, {0}};
    // Tiled: split axis s into (members, rest), exchange untiled, merge the members into c.
    Value y = exchange(split_axis(xb, s + 1, size), r + 1, s, c);
    return Result{{merge_axes(y, c + 1)}, {0}};
  });
  set("ppermute", [](Builder& b, const std::vector<Value>& in, const Axes& axes, const Params& p, const std::string&,
                     int64_t size) {
    single_axis_sized(p, "ppermute", size);
    Value xb = batch_at_front(in[0], axes[0], size);
    std::vector<int64_t> src(size_t(size), -1);
    for (auto [s, d] : perm_pairs(p)) {
      if (s < 0 || s >= size || d < 0 || d >= size || src[size_t(d)] >= 0)
        throw_bad_input(cat("ppermute: pair (", s, ", ", d, ") is out of range or repeats a destination for an axis of ", size),
                        "each destination once, every index in [0, axis size)");
      src[size_t(d)] = s;
    }
    Shape one = xb.shape();
    one[0] = 1;
    std::vector<Value> pieces;  // example i's value: example src[i]'s, or zeros
    for (int64_t i = 0; i < size; ++i) {
      if (src[size_t(i)] < 0) {
        pieces.push_back(broadcast_in_dim(b.literal(0, xb.dtype()), one, {}));
        continue;
      }
      std::vector<int64_t> lo(size_t(xb.rank()), 0), hi = xb.shape();
      lo[0] = src[size_t(i)];
      hi[0] = lo[0] + 1;
      pieces.push_back(slice(xb, lo, hi));
    }
    return Result{{concatenate(pieces, 0)}, {0}};
  });
  set("axis_index", [](Builder& b, const std::vector<Value>&, const Axes&, const Params& p, const std::string&,
                       int64_t size) {
    single_axis_sized(p, "axis_index", size);
    return Result{{iota(b, DType::i32, {size}, 0)}, {0}};
  });
}

}  // namespace tandem
