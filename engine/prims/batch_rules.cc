// Batching rules (the Primitive::batch table) for the elementwise and reduction families, as
// the seed's defvectorized / defbroadcasting / defreducer; layout primitives are in
// batch_rules_structure.cc, dot_general / scan / checkpoint / LSTM in batch_rules_dot_scan.cc.
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/prims/batch_rules.h"
#include "engine/prims/register_all.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;

void set(const char* name, BatchRule r) { mutable_primitive(name).batch = std::move(r); }

// Unary elementwise: the op does not care where the batch axis is.
void vectorized(const char* name) {
  std::string n = name;
  set(name, [n](const std::vector<Value>& in, const std::vector<BatchAxis>& axes, const Params& p) {
    Builder* b = in[0].builder();
    return Result{b->bind(n, in, p), {axes[0]}};
  });
}

// n-ary elementwise with lax's only broadcasting (a rank-0 operand against any shape).
// scalar_ok(i): operand i may stay rank 0 while the others are not (select's branches may not).
// As broadcast_batcher: agreeing batch axes and unmapped scalars bind as they are; otherwise
// batch axes go to the front and every operand that must be is broadcast to the full shape
// (our ops have no size-1 broadcasting, so the seed's singleton axes become full copies).
void broadcasting(const char* name, std::function<bool(size_t)> scalar_ok) {
  std::string n = name;
  set(name, [n, scalar_ok](const std::vector<Value>& in, const std::vector<BatchAxis>& axes, const Params& p) {
    int64_t size = batch_size_of(in, axes);
    int out_rank = -1;  // per-example rank and shape of the result: the largest operand's
    Shape out_shape;
    for (size_t i = 0; i < in.size(); ++i)
      if (int r = in[i].rank() - (axes[i] ? 1 : 0); r > out_rank) {
        out_rank = r;
        out_shape = in[i].shape();
        if (axes[i]) out_shape.erase(out_shape.begin() + *axes[i]);
      }
    BatchAxis common;
    bool direct = true;
    for (size_t i = 0; i < in.size(); ++i) {
      if (axes[i]) {
        if (!common) common = axes[i];
        direct &= axes[i] == common && in[i].rank() - 1 == out_rank;
      } else {
        direct &= in[i].rank() == 0 && scalar_ok(i);
      }
    }
    Builder* b = in[0].builder();
    if (direct) return Result{b->bind(n, in, p), {common}};
    Shape full = out_shape;
    full.insert(full.begin(), size);
    std::vector<Value> args;
    for (size_t i = 0; i < in.size(); ++i) {
      Value x = in[i];
      if (axes[i]) {
        x = move_axis(x, *axes[i], 0);
        if (x.rank() - 1 < out_rank) x = broadcast_in_dim(x, full, {0});
      } else if (x.rank() > 0 || !scalar_ok(i)) {
        std::vector<int64_t> dims;
        for (int d = 0; d < x.rank(); ++d) dims.push_back(d + 1);
        x = broadcast_in_dim(x, full, dims);
      }
      args.push_back(x);
    }
    return Result{b->bind(n, args, p), {0}};
  });
}

// Reductions: the reduced axes shift past the batch axis, which survives (seed's reducer_batcher).
void reducer(const char* name) {
  std::string n = name;
  set(name, [n](const std::vector<Value>& in, const std::vector<BatchAxis>& axes, const Params& p) {
    int bd = *axes[0], rank = in[0].rank() - 1;
    std::vector<int64_t> shifted;
    int before = 0;
    for (int64_t a : p.get_ints("axes")) {
      int ax = normalize_axis(a, rank, n.c_str());
      if (ax >= bd) ++ax;
      else ++before;
      shifted.push_back(ax);
    }
    Params q = p;
    q.set("axes", shifted);
    // Fault: the batch axis is reported unshifted by the reduced axes before it (when that
    // is still an axis of the result: out of range, batch_program has no check and crashes).
    const bool unshifted = fault_on(Fault::vmap_reducer_axis_unshifted) && bd < in[0].rank() - int(shifted.size());
    const int out_bd = unshifted ? bd : bd - before;
    return Result{{in[0].builder()->bind1(n, in, q)}, {out_bd}};
  });
}
}  // namespace

void register_structure_batch_rules();  // batch_rules_structure.cc
void register_dot_scan_batch_rules();   // batch_rules_dot_scan.cc
void register_while_batch_rules();      // batch_rules_while.cc
void register_conv_batch_rules();       // batch_rules_conv.cc
void register_gather_sort_batch_rules();  // batch_rules_gather_sort.cc
void register_window_batch_rules();       // batch_rules_window.cc

void register_batch_rules() {
  // The families come from the primitives' traits, so a new unary or binary op (erf) is
  // batched without touching this file.
  for (const std::string& n : primitive_names()) {
    const Primitive& prim = primitive(n);
    if (prim.has(kElementwiseUnary)) vectorized(n.c_str());
    if (prim.has(kElementwiseBinary)) broadcasting(n.c_str(), [](size_t) { return true; });
  }
  for (const char* u : {"integer_pow", "convert_element_type", "checkpoint_name", "is_finite"}) vectorized(u);
  broadcasting("compare", [](size_t) { return true; });
  broadcasting("select", [](size_t i) { return i == 0; });  // the predicate may stay rank 0
  reducer("reduce_sum");
  reducer("reduce_max");
  reducer("reduce_min");
  // lax's bitwise ops, round and the reductions added with them (seed: defvectorized,
  // defbroadcasting, defreducer; argmax's one axis shifts as any reduced axis does).
  for (const char* u : {"not", "round"}) vectorized(u);
  for (const char* b : {"and", "or", "xor"}) broadcasting(b, [](size_t) { return true; });
  for (const char* r : {"reduce_prod", "reduce_and", "reduce_or", "argmax", "argmin"}) reducer(r);
  register_structure_batch_rules();
  register_dot_scan_batch_rules();
  register_while_batch_rules();
  register_conv_batch_rules();
  register_gather_sort_batch_rules();
  register_window_batch_rules();
}

}  // namespace tandem
