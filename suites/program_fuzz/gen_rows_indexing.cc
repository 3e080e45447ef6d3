// Generator rows of gather, scatter_add, scatter and sort. Indices are literal constants drawn from
// [-2, size + 2), so windows fall in range, clamp and fill / drop; the modes are CLIP and
// FILL_OR_DROP, under which JAX's transposes are the true derivatives (PROMISE_IN_BOUNDS
// promises in-range indices, which random draws do not keep). Two layouts, as jnp writes
// them: rows of an axis (x[i], jnp.take) and take_along_axis through batching dims. scatter
// (x.at[i].set(u)) draws distinct indices, and under CLIP only in-range ones, so no two
// updates meet at one element: which one XLA keeps there is unspecified, so a check must not
// depend on it (as JAX's own scatter tests draw unique indices).
#include "engine/ir/builder_indexing.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {

// An i32 constant of `shape` with entries drawn from [-2, size + 2).
Value random_indices(GenState& s, const Shape& shape, int64_t size) {
  std::vector<Value> pieces;
  for (int64_t i = 0; i < num_elements(shape); ++i)
    pieces.push_back(broadcast_in_dim(s.b.literal(double(s.rng.in(-2, size + 2)), DType::i32), {1}, {}));
  if (pieces.empty()) return broadcast_in_dim(s.b.literal(0, DType::i32), shape, {});
  return reshape(concatenate(pieces, 0), shape);
}

// A gather layout over operand type x along axis a: its indices' shape, dims and window.
struct Layout {
  Shape indices;
  GatherDims dims;
  Shape slice;
};

// A layout over an axis of x with at least one element (a window of 1 must fit), if x has one.
std::optional<Layout> random_layout(GenState& s, const AType& x) {
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (x.shape[size_t(d)] > 0) axes.push_back(d);
  if (axes.empty()) return std::nullopt;
  const int64_t r = x.rank(), a = axes[size_t(s.rng.in(0, int64_t(axes.size()) - 1))], k = s.rng.in(0, 3);
  Layout l;
  l.slice = x.shape;
  l.slice[size_t(a)] = 1;
  l.dims.collapsed_slice_dims = {a};
  l.dims.start_index_map = {a};
  if (s.rng.chance(0.5)) {  // rows: k windows of everything but axis a, the batch dim at p
    const int64_t p = s.rng.in(0, r - 1);
    l.indices = {k, 1};
    for (int64_t d = 0; d < r; ++d)
      if (d != p) l.dims.offset_dims.push_back(d);
  } else {  // take_along_axis: every other dim is a batching dim
    l.indices = x.shape;
    l.indices[size_t(a)] = k;
    l.indices.push_back(1);
    for (int64_t d = 0; d < r; ++d)
      if (d != a) {
        l.dims.operand_batching_dims.push_back(d);
        l.dims.start_indices_batching_dims.push_back(d);
      }
    l.slice.assign(size_t(r), 1);
  }
  return l;
}

const char* random_mode(GenState& s) { return s.rng.chance(0.5) ? "CLIP" : "FILL_OR_DROP"; }

bool emit_gather(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  std::optional<Layout> layout = x ? random_layout(s, x->type()) : std::nullopt;
  if (!layout) return false;
  const Layout& l = *layout;
  Value idx = random_indices(s, l.indices, x->shape()[size_t(l.dims.start_index_map[0])]);
  return try_emit([&] { s.keep(gather(*x, idx, l.dims, l.slice, random_mode(s))); });
}

bool emit_scatter_add(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0 && v.dtype() != DType::pred; });
  std::optional<Layout> layout = x ? random_layout(s, x->type()) : std::nullopt;
  if (!layout) return false;
  const Layout& l = *layout;
  Value idx = random_indices(s, l.indices, x->shape()[size_t(l.dims.start_index_map[0])]);
  ScatterDims d{l.dims.offset_dims, l.dims.collapsed_slice_dims, l.dims.start_index_map, l.dims.operand_batching_dims,
                l.dims.start_indices_batching_dims};
  // The updates' type is the gather's of this layout, which the shape rule may refuse (a
  // window past a zero-size dimension): inside the try, as the gather row's own choice is.
  return try_emit([&] {
    AType ut = primitive("gather").shape({x->type(), idx.type()}, gather_params(l.dims, l.slice, "CLIP"))[0];
    Value u = s.operand(ut);
    s.keep(scatter_add(*x, idx, u, d, random_mode(s)));
  });
}

// Indices of `shape` whose entries along dim `along` are distinct draws from [lo, hi), the
// same for every other position (so each scatter row / batch writes distinct elements).
Value distinct_indices(GenState& s, const Shape& shape, int64_t along, int64_t lo, int64_t hi) {
  std::vector<int64_t> pool;
  for (int64_t v = lo; v < hi; ++v) pool.push_back(v);
  for (size_t i = pool.size(); i > 1; --i) std::swap(pool[i - 1], pool[size_t(s.rng.in(0, int64_t(i) - 1))]);
  Shape st = row_major_strides(shape);
  std::vector<Value> pieces;
  for (int64_t i = 0; i < num_elements(shape); ++i) {
    const int64_t k = (i / st[size_t(along)]) % shape[size_t(along)];
    pieces.push_back(broadcast_in_dim(s.b.literal(double(pool[size_t(k)]), DType::i32), {1}, {}));
  }
  if (pieces.empty()) return broadcast_in_dim(s.b.literal(0, DType::i32), shape, {});
  return reshape(concatenate(pieces, 0), shape);
}

bool emit_scatter(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  std::optional<Layout> layout = x ? random_layout(s, x->type()) : std::nullopt;
  if (!layout) return false;
  Layout l = *layout;
  const int64_t a = l.dims.start_index_map[0], size = x->shape()[size_t(a)];
  const bool clip = s.rng.chance(0.5);
  const bool rows = !l.dims.offset_dims.empty() || l.dims.operand_batching_dims.empty();
  const int64_t along = rows ? 0 : a, lo = clip ? 0 : -2, hi = clip ? size : size + 2;
  l.indices[size_t(along)] = std::min(l.indices[size_t(along)], hi - lo);  // room for distinct draws
  Value idx = distinct_indices(s, l.indices, along, lo, hi);
  ScatterDims d{l.dims.offset_dims, l.dims.collapsed_slice_dims, l.dims.start_index_map, l.dims.operand_batching_dims,
                l.dims.start_indices_batching_dims};
  // The updates' type may be refused (a window past a zero-size dimension): inside the try, as scatter_add's.
  return try_emit([&] {
    AType ut = primitive("gather").shape({x->type(), idx.type()}, gather_params(l.dims, l.slice, "CLIP"))[0];
    Value u = s.operand(ut);
    s.keep(scatter(*x, idx, u, d, clip ? "CLIP" : "FILL_OR_DROP"));
  });
}

bool emit_sort(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  if (!x) return false;
  const int64_t dim = s.rng.in(0, x->rank() - 1);
  std::vector<Value> in{*x};
  if (is_floating(x->dtype()) && s.rng.chance(0.4)) {
    // Keys with ties (floor of values mostly in [-2, 2)) carrying x itself: where keys tie,
    // which x lands where is the sort's order (stable, then the second key), and under a vjp
    // so is which x gets which cotangent; random keys almost never tie.
    in = {floor(*x), *x};
  } else if (s.rng.chance(0.5)) {  // argsort's form: positions carried along
    in.push_back(iota(s.b, DType::i32, x->shape(), dim));
  } else if (s.rng.chance(0.5)) {
    in.push_back(s.operand(AType{x->shape(), s.random_dtype()}));
  }
  const int64_t keys = in.size() > 1 && s.rng.chance(0.3) ? 2 : 1;
  // Stable: JAX's unstable sort may order ties (and what they carry) differently.
  return try_emit([&] { s.keep(sort(in, dim, true, keys)); });
}
}  // namespace

void add_indexing_rows(GenTable& t) {
  t.rows["gather"] = {emit_gather};
  t.rows["scatter_add"] = {emit_scatter_add, 0.5};
  t.rows["scatter"] = {emit_scatter, 0.5};
  t.rows["sort"] = {emit_sort, 0.5};
}

}  // namespace tandem::fuzz
