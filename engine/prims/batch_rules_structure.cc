// Batching rules for the layout primitives: broadcast_in_dim, reshape, transpose, slice,
// concatenate, iota, dynamic_slice and dynamic_update_slice, and rev, pad, cumsum. Most move the batch axis to the
// front and prepend it to their shape params. Dynamic slicing with mapped start indices is a
// gather (each example reads its own window): it runs per example (batch_by_loop), which is
// exact for every dtype (a one-hot contraction would turn inf/NaN elsewhere into NaN).
#include "engine/core/error.h"
#include "engine/prims/batch_rules.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;
using Axes = std::vector<BatchAxis>;

void set(const char* name, BatchRule r) { mutable_primitive(name).batch = std::move(r); }

std::vector<int64_t> prepend(int64_t first, std::vector<int64_t> v, int64_t shift) {
  for (int64_t& x : v) x += shift;
  v.insert(v.begin(), first);
  return v;
}

Result front_then(const Value& x, BatchAxis ax, const char* prim, const Params& p) {
  Value f = move_axis(x, *ax, 0);
  return Result{{f.builder()->bind1(prim, {f}, p)}, {0}};
}

bool any_mapped(const Axes& axes, size_t from) {
  for (size_t i = from; i < axes.size(); ++i)
    if (axes[i]) return true;
  return false;
}

void structure_rules() {
  set("broadcast_in_dim", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    int64_t size = batch_size_of(in, axes);
    Params q = p;
    q.set("shape", prepend(size, p.get_ints("shape"), 0));
    q.set("broadcast_dimensions", prepend(0, p.get_ints("broadcast_dimensions"), 1));
    return front_then(in[0], axes[0], "broadcast_in_dim", q);
  });
  set("reshape", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    Params q = p;
    q.set("new_sizes", prepend(batch_size_of(in, axes), p.get_ints("new_sizes"), 0));
    return front_then(in[0], axes[0], "reshape", q);
  });
  set("transpose", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    Params q = p;
    q.set("permutation", prepend(0, p.get_ints("permutation"), 1));
    return front_then(in[0], axes[0], "transpose", q);
  });
  set("slice", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    int bd = *axes[0];
    auto ins = [bd](std::vector<int64_t> v, int64_t x) { v.insert(v.begin() + bd, x); return v; };
    Params q = p;
    q.set("start_indices", ins(p.get_ints("start_indices"), 0));
    q.set("limit_indices", ins(p.get_ints("limit_indices"), in[0].shape()[size_t(bd)]));
    if (p.has("strides")) q.set("strides", ins(p.get_ints("strides"), 1));
    return Result{{in[0].builder()->bind1("slice", in, q)}, {bd}};
  });
  set("concatenate", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    int64_t size = batch_size_of(in, axes);
    std::vector<Value> args;
    for (size_t i = 0; i < in.size(); ++i) args.push_back(batch_at_front(in[i], axes[i], size));
    int rank = in[0].rank() - (axes[0] ? 1 : 0);
    Params q = p;
    q.set("dimension", int64_t(normalize_axis(p.get_int("dimension"), rank, "concatenate") + 1));
    return Result{{args[0].builder()->bind1("concatenate", args, q)}, {0}};
  });
  // iota has no operands, so the interpreter never finds it mapped (it re-binds it as it is,
  // unmapped, as the seed's BatchTrace leaves values with no batched input alone). The entry
  // completes the table; being called would mean an operand-taking iota, which fails loudly.
  set("iota", [](const std::vector<Value>& in, const Axes&, const Params&) -> Result {
    throw_unsupported(cat("iota batch rule called with ", in.size(), " operands"));
  });
}

// dynamic_slice(x, starts...): with unmapped starts the batch axis is one more full-size
// window dimension starting at 0; mapped starts make it a gather, run per example.
void dynamic_rules() {
  set("dynamic_slice", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    if (any_mapped(axes, 1)) return batch_by_loop("dynamic_slice", in, axes, p);
    int bd = *axes[0];
    std::vector<Value> args{in[0]};
    args.insert(args.end(), in.begin() + 1, in.end());
    args.insert(args.begin() + 1 + bd, in[0].builder()->literal(0, DType::i32));
    Shape sizes = p.get_ints("slice_sizes");
    sizes.insert(sizes.begin() + bd, in[0].shape()[size_t(bd)]);
    Params q = p;
    q.set("slice_sizes", sizes);
    return Result{{in[0].builder()->bind1("dynamic_slice", args, q)}, {bd}};
  });
  set("dynamic_update_slice", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    if (any_mapped(axes, 2)) return batch_by_loop("dynamic_update_slice", in, axes, p);
    int64_t size = batch_size_of(in, axes);
    Value x = batch_at_front(in[0], axes[0], size), u = batch_at_front(in[1], axes[1], size);
    std::vector<Value> args{x, u, x.builder()->literal(0, DType::i32)};
    args.insert(args.end(), in.begin() + 2, in.end());
    return Result{{x.builder()->bind1("dynamic_update_slice", args, p)}, {0}};
  });
}
// rev and cumsum: the batch axis to the front, their axes (normalized per example) one
// further. pad: a mapped operand gets a (0, 0, 0) triple for the batch axis; a mapped padding
// value (each example pads with its own) runs per example.
void pad_rev_cumsum_rules() {
  set("rev", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    std::vector<int64_t> dims;
    for (int64_t d : p.get_ints("dimensions")) dims.push_back(normalize_axis(d, in[0].rank() - 1, "rev") + 1);
    Params q = p;
    q.set("dimensions", dims);
    return front_then(in[0], axes[0], "rev", q);
  });
  set("cumsum", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    Params q = p;
    q.set("axis", int64_t(normalize_axis(p.get_int("axis"), in[0].rank() - 1, "cumsum") + 1));
    return front_then(in[0], axes[0], "cumsum", q);
  });
  set("pad", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    if (axes[1]) return batch_by_loop("pad", in, axes, p);
    Value x = move_axis(in[0], *axes[0], 0);
    Params q = p;
    std::vector<int64_t> cfg = p.get_ints("padding_config");
    cfg.insert(cfg.begin(), {0, 0, 0});
    q.set("padding_config", cfg);
    return Result{{x.builder()->bind1("pad", {x, in[1]}, q)}, {0}};
  });
}
}  // namespace

void register_structure_batch_rules() {
  structure_rules();
  dynamic_rules();
  pad_rev_cumsum_rules();
}

}  // namespace tandem
