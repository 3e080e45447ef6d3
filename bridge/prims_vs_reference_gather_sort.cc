// The engine-vs-reference rows of gather, scatter_add, scatter and sort (prims_vs_reference_rows.h):
// x[i] and jnp.take with in-range, negative and too-large indices under every mode, windows of more than one element,
// take_along_axis through batching dims, a scalar result and zero indices; x.at[i].add(u) with repeats and drops; sort
// along either dim, carrying values, with two keys, and JAX's order on -0.0, NaN and -inf. Indices are literals in the
// program, so the float rows also check the vjp against the reference's tape.
#include <limits>

#include "bridge/prims_vs_reference_rows.h"
#include "engine/core/error.h"
#include "engine/ir/builder_indexing.h"

namespace tandem {
namespace {
using V = std::vector<Value>;
using Rows = std::map<std::string, std::vector<Row>>;

// An i32 constant of `shape` built from literals (concatenated [1]-pieces, reshaped).
Value const_i32(Builder& b, const Shape& shape, const std::vector<int>& v) {
  std::vector<Value> pieces;
  for (int x : v) pieces.push_back(broadcast_in_dim(b.literal(x, DType::i32), {1}, {}));
  if (pieces.empty()) return broadcast_in_dim(b.literal(0, DType::i32), shape, {});
  return reshape(concatenate(pieces, 0), shape);
}

void gather_rows(Rows& r, DType t) {
  const std::string d(dtype_name(t));
  auto add = [&r](Row row) { r["gather"].push_back(std::move(row)); };
  const GatherDims rows{{1}, {0}, {0}, {}, {}};
  for (const char* mode : {"PROMISE_IN_BOUNDS", "CLIP", "FILL_OR_DROP"})
    add({cat("gather/rows/", mode, "/", d), {AType{{5, 3}, t}}, [rows, mode](Builder& b, const V& a) {
           return V{gather(a[0], const_i32(b, {4, 1}, {4, 0, -1, 7}), rows, {1, 3}, mode)};
         }});
  add({"gather/rows_fill_value/" + d, {AType{{5, 3}, t}}, [rows](Builder& b, const V& a) {
         return V{gather(a[0], const_i32(b, {3, 1}, {9, 2, -2}), rows, {1, 3}, "FILL_OR_DROP", -7.0)};
       }});
  // jnp.take(x, i, axis=1): the window is a column.
  add({"gather/take_axis_1/" + d, {AType{{4, 5}, t}}, [](Builder& b, const V& a) {
         return V{gather(a[0], const_i32(b, {3, 1}, {4, 1, 1}), GatherDims{{0}, {1}, {1}, {}, {}}, {4, 1}, "FILL_OR_DROP")};
       }});
  add({"gather/take_along_axis/" + d, {AType{{3, 5}, t}}, [](Builder& b, const V& a) {
         return V{gather(a[0], const_i32(b, {3, 1, 1}, {4, 0, 2}), GatherDims{{}, {1}, {1}, {0}, {0}}, {1, 1}, "FILL_OR_DROP")};
       }});
  for (const char* mode : {"CLIP", "FILL_OR_DROP"})  // windows of 3x2 whose starts clamp or fill
    add({cat("gather/windows/", mode, "/", d), {AType{{6, 4}, t}}, [mode](Builder& b, const V& a) {
           return V{gather(a[0], const_i32(b, {2, 2}, {1, 2, 5, 3}), GatherDims{{1, 2}, {}, {0, 1}, {}, {}}, {3, 2}, mode)};
         }});
  add({"gather/scalar_result/" + d, {AType{{4}, t}}, [](Builder& b, const V& a) {
         return V{gather(a[0], const_i32(b, {1}, {2}), GatherDims{{}, {0}, {0}, {}, {}}, {1})};
       }});
  add({"gather/zero_indices/" + d, {AType{{5, 3}, t}}, [rows](Builder& b, const V& a) {
         return V{gather(a[0], const_i32(b, {0, 1}, {}), rows, {1, 3})};
       }});
}

void scatter_rows(Rows& r, DType t) {
  const std::string d(dtype_name(t));
  auto add = [&r](Row row) { r["scatter_add"].push_back(std::move(row)); };
  for (const char* mode : {"FILL_OR_DROP", "CLIP", "PROMISE_IN_BOUNDS"})
    add({cat("scatter_add/rows/", mode, "/", d), {AType{{5, 3}, t}, AType{{4, 3}, t}}, [mode](Builder& b, const V& a) {
           return V{scatter_add(a[0], const_i32(b, {4, 1}, {4, 0, 4, 9}), a[1], ScatterDims{{1}, {0}, {0}, {}, {}}, mode)};
         }});
  add({"scatter_add/batching/" + d, {AType{{3, 5}, t}, AType{{3, 1}, t}}, [](Builder& b, const V& a) {
         return V{scatter_add(a[0], const_i32(b, {3, 1, 1}, {4, 0, 4}), a[1], ScatterDims{{}, {1}, {1}, {0}, {0}})};
       }});
  add({"scatter_add/windows/" + d, {AType{{6, 4}, t}, AType{{2, 3, 2}, t}}, [](Builder& b, const V& a) {
         return V{scatter_add(a[0], const_i32(b, {2, 2}, {1, 2, 2, 1}), a[1], ScatterDims{{1, 2}, {}, {0, 1}, {}, {}}, "CLIP")};
       }});
}

// x.at[i].set(u): repeated rows (both sides keep the last update), dropped / clamped ones,
// batching dims and overlapping windows.
void scatter_set_rows(Rows& r, DType t) {
  const std::string d(dtype_name(t));
  auto add = [&r](Row row) { r["scatter"].push_back(std::move(row)); };
  for (const char* mode : {"FILL_OR_DROP", "CLIP", "PROMISE_IN_BOUNDS"})
    add({cat("scatter/rows/", mode, "/", d), {AType{{5, 3}, t}, AType{{4, 3}, t}}, [mode](Builder& b, const V& a) {
           return V{scatter(a[0], const_i32(b, {4, 1}, {4, 0, 4, 9}), a[1], ScatterDims{{1}, {0}, {0}, {}, {}}, mode)};
         }});
  add({"scatter/batching/" + d, {AType{{3, 5}, t}, AType{{3, 1}, t}}, [](Builder& b, const V& a) {
         return V{scatter(a[0], const_i32(b, {3, 1, 1}, {4, 0, 4}), a[1], ScatterDims{{}, {1}, {1}, {0}, {0}})};
       }});
  add({"scatter/windows/" + d, {AType{{6, 4}, t}, AType{{2, 3, 2}, t}}, [](Builder& b, const V& a) {
         return V{scatter(a[0], const_i32(b, {2, 2}, {1, 2, 2, 1}), a[1], ScatterDims{{1, 2}, {}, {0, 1}, {}, {}}, "CLIP")};
       }});
  add({"scatter/zero_updates/" + d, {AType{{4, 3}, t}, AType{{0, 3}, t}}, [](Builder& b, const V& a) {
         return V{scatter(a[0], const_i32(b, {0, 1}, {}), a[1], ScatterDims{{1}, {0}, {0}, {}, {}})};
       }});
}

void sort_rows(Rows& r, DType t) {
  const std::string d(dtype_name(t));
  auto add = [&r](Row row) { r["sort"].push_back(std::move(row)); };
  add({"sort/dim_1/" + d, {AType{{4, 6}, t}}, [](Builder&, const V& a) { return sort({a[0]}, 1); }});
  add({"sort/dim_0_with_values/" + d, {AType{{5, 3}, t}, AType{{5, 3}, t}}, [](Builder&, const V& a) {
         return sort({a[0], a[1]}, 0);
       }});
  add({"sort/two_keys/" + d, {AType{{2, 6}, t}, AType{{2, 6}, t}}, [](Builder&, const V& a) {
         Value ties = convert_element_type(convert_element_type(a[0], DType::i32), a[0].dtype());  // -1, 0, 1
         return sort({ties, a[1]}, 1, true, 2);
       }});
  add({"argsort/" + d, {AType{{3, 4}, t}}, [](Builder& b, const V& a) {
         return sort({a[0], iota(b, DType::i32, {3, 4}, 1)}, 1);
       }});
}

// -0.0 / 0.0 ties (kept in order), NaN after +inf, with the positions carried along.
void sort_order_row(Rows& r) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Row row{"sort/jax_order/f32", {AType{{8}, DType::f32}}, [](Builder& b, const V& a) {
            return sort({a[0], iota(b, DType::i32, {8}, 0)}, 0);
          }};
  row.values = {{3, -0.0, nan, 0.0, -inf, 1, inf, -0.0}};
  r["sort"].push_back(row);
}
}  // namespace

void add_gather_sort_rows(Rows& r) {
  for (DType t : {DType::f64, DType::f32, DType::bf16, DType::i32}) {
    gather_rows(r, t);
    scatter_rows(r, t);
    scatter_set_rows(r, t);
    sort_rows(r, t);
  }
  sort_order_row(r);
}

}  // namespace tandem
