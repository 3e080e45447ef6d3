// Generator rows of the primitives with sub-programs (scan, while, cond, checkpoint), the annotations
// (checkpoint_name, device_put) and the collectives over the named axis kCollectiveAxis.
// A body is grown by a GenState of its own whose inputs are fixed by the signature.
#include <algorithm>

#include "engine/ir/remat_policy.h"
#include "engine/prims/checkpoint.h"
#include "engine/prims/collective_prims.h"
#include "engine/prims/cond.h"
#include "engine/prims/device_put.h"
#include "engine/prims/while_loop.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {

const std::vector<std::string> kNames = {"a", "b", "c"};

// Grows a body over inputs of the given types and returns it with its outputs' values.
struct Body {
  GenState state;
  std::vector<Value> inputs;
};
void grow(Body& body, int eqns) {
  for (int i = 0; i < eqns; ++i) emit_random_row(body.state);
}

// A value of the body for an output: a recent one (never a literal).
Value body_output(Body& body) { return *body.state.pick([](const Value&) { return true; }); }

std::vector<Value> distinct_pool_values(GenState& s, int n, const std::function<bool(const Value&)>& pred) {
  std::vector<Value> r;
  for (int i = 0; i < n; ++i)
    if (auto v = s.pick(pred)) r.push_back(*v);
  return r;
}

// scan: consts, one or two carries, zero or one xs; length 0 to 4, either direction.
bool emit_scan(GenState& s) {
  if (s.depth >= s.cfg.max_depth || s.pool.empty()) return false;
  const int64_t length = s.rng.chance(0.05) ? 0 : s.rng.in(1, 4);
  std::vector<Value> consts = distinct_pool_values(s, int(s.rng.in(0, 1)), [](const Value&) { return true; });
  std::vector<Value> init = distinct_pool_values(s, int(s.rng.in(1, 2)), [](const Value&) { return true; });
  if (init.empty()) return false;
  std::vector<Value> xs;
  if (s.rng.chance(0.7)) {
    auto base = *s.pick([](const Value&) { return true; });
    Shape step = base.shape(), stacked = {length};
    stacked.insert(stacked.end(), step.begin(), step.end());
    xs.push_back(s.may_add_inputs && s.rng.chance(0.6) ? s.new_input(AType{stacked, base.dtype()})
                                                        : broadcast_in_dim(base, stacked, [&] {
                                                            std::vector<int64_t> d;
                                                            for (size_t i = 0; i < step.size(); ++i) d.push_back(int64_t(i) + 1);
                                                            return d;
                                                          }()));
  }
  Body body{GenState(s.rng, s.cfg, s.depth + 1, false), {}};
  for (const Value& v : consts) body.inputs.push_back(body.state.new_input(v.type()));
  for (const Value& v : init) body.inputs.push_back(body.state.new_input(v.type()));
  for (const Value& v : xs) {
    Shape step(v.shape().begin() + 1, v.shape().end());
    body.inputs.push_back(body.state.new_input(AType{step, v.dtype()}));
  }
  grow(body, int(s.rng.in(1, s.cfg.body_eqns)));
  std::vector<Value> outs;
  for (const Value& c : init) outs.push_back(body.state.fit(body_output(body), c.type()));
  const bool has_ys = s.rng.chance(0.7);
  if (has_ys) outs.push_back(body_output(body));
  Program prog = body.state.b.build(outs);
  std::vector<Value> result = scan(prog, consts, init, xs, length, s.rng.chance(0.4), s.rng.chance(0.2) ? 2 : 1);
  for (size_t i = 0; i < init.size(); ++i) s.keep(result[i]);
  if (!has_ys) return true;
  Value ys = result.back();
  if (s.cfg.scan_losses && is_floating(ys.dtype()) && s.rng.chance(0.5)) {
    // A loss over the stacked outputs, the pattern the hoisting pass moves into the body:
    // (ys - targets)^2 * c summed over the scan axis and maybe others. ys is used only here.
    Value d = s.rng.chance(0.5) ? sub(ys, s.operand(ys.type())) : ys;
    if (s.rng.chance(0.5)) d = integer_pow(d, 2);
    if (s.rng.chance(0.3)) d = mul(d, s.b.literal(0.5, d.dtype()));
    std::vector<int64_t> axes{0};
    for (int64_t a = 1; a < d.rank(); ++a)
      if (s.rng.chance(0.5)) axes.push_back(a);
    s.keep(reduce_sum(d, axes));
  } else {
    s.keep(ys);
  }
  return true;
}

// while: a counted loop (cond: counter < a literal bound 0..3, a cond const) over one or two
// random carries, the body grown over (body consts, carries, counter). JAX has no reverse
// mode for while, so its floating results leave through stop_gradient: the vjp chains then
// differentiate around it while the forward and vmap chains run the loop (the refusal
// itself: bridge/reference_vjp_test.cc; a program check reports such vjp cases skipped).
bool emit_while(GenState& s) {
  if (s.depth >= s.cfg.max_depth || s.pool.empty()) return false;
  const AType i32{{}, DType::i32};
  std::vector<Value> consts = distinct_pool_values(s, int(s.rng.in(0, 1)), [](const Value&) { return true; });
  std::vector<Value> init = distinct_pool_values(s, int(s.rng.in(1, 2)), [](const Value&) { return true; });
  if (init.empty()) return false;
  std::vector<AType> cond_in{i32};
  for (const Value& v : init) cond_in.push_back(v.type());
  cond_in.push_back(i32);
  Program cond = trace(cond_in, [](Builder&, const std::vector<Value>& v) {
    return std::vector<Value>{compare(v.back(), v[0], "lt")};
  });
  Body body{GenState(s.rng, s.cfg, s.depth + 1, false), {}};
  for (const Value& v : consts) body.inputs.push_back(body.state.new_input(v.type()));
  for (const Value& v : init) body.inputs.push_back(body.state.new_input(v.type()));
  Value counter = body.state.b.input({}, DType::i32);
  grow(body, int(s.rng.in(1, s.cfg.body_eqns)));
  std::vector<Value> outs;
  for (const Value& c : init) outs.push_back(body.state.fit(body_output(body), c.type()));
  outs.push_back(add(counter, body.state.b.literal(1, DType::i32)));
  init.push_back(s.b.literal(0, DType::i32));
  std::vector<Value> result =
      while_loop(cond, body.state.b.build(outs), {s.b.literal(double(s.rng.in(0, 3)), DType::i32)}, consts, init);
  for (size_t i = 0; i + 1 < result.size(); ++i)
    s.keep(is_floating(result[i].dtype()) ? s.b.bind1("stop_gradient", {result[i]}) : result[i]);
  return true;
}

// cond (lax.switch): 2 or 3 branches grown over the same 1..3 pool values, each output fitted
// to the first branch's types. The index is a literal in [-1, n] (out of range: the last
// branch) or, when the program may grow inputs, an i32 input, so vmap maps it and runs the
// select of every branch.
bool emit_cond(GenState& s) {
  if (s.depth >= s.cfg.max_depth || s.pool.empty()) return false;
  std::vector<Value> ops = distinct_pool_values(s, int(s.rng.in(1, 3)), [](const Value&) { return true; });
  const int64_t n = s.rng.in(2, 3);
  std::vector<Program> branches;
  std::vector<AType> out_types;
  for (int64_t i = 0; i < n; ++i) {
    Body body{GenState(s.rng, s.cfg, s.depth + 1, false), {}};
    for (const Value& v : ops) body.inputs.push_back(body.state.new_input(v.type()));
    grow(body, int(s.rng.in(1, s.cfg.body_eqns)));
    std::vector<Value> outs;
    if (i == 0) {
      outs.push_back(body_output(body));
      if (s.rng.chance(0.4)) outs.push_back(body_output(body));
      for (const Value& o : outs) out_types.push_back(o.type());
    } else {
      for (const AType& t : out_types) outs.push_back(body.state.fit(body_output(body), t));
    }
    branches.push_back(body.state.b.build(outs));
  }
  Value index = s.may_add_inputs && s.rng.chance(0.4) ? s.new_input(AType{{}, DType::i32})
                                                      : s.b.literal(double(s.rng.in(-1, n)), DType::i32);
  for (const Value& v : cond(index, branches, ops)) s.keep(v);
  return true;
}

const std::vector<std::string> kPolicies = {
    "everything_saveable", "nothing_saveable", "dots_saveable", "dots_with_no_batch_dims_saveable",
    "save_only_these_names(a)", "save_anything_except_these_names(a)", "save_any_names_but_these(a,b)",
    "save_from_both_policies(dots_saveable;save_only_these_names(b))",
    "save_and_offload_only_these_names(a|b)", "offload_dot_with_no_batch_dims(device,pinned_host)"};

bool emit_checkpoint(GenState& s) {
  if (s.depth >= s.cfg.max_depth || s.pool.empty()) return false;
  std::vector<Value> in = distinct_pool_values(s, int(s.rng.in(1, 3)), [](const Value&) { return true; });
  Body body{GenState(s.rng, s.cfg, s.depth + 1, false), {}};
  for (const Value& v : in) body.inputs.push_back(body.state.new_input(v.type()));
  grow(body, int(s.rng.in(1, s.cfg.body_eqns)));
  std::vector<Value> outs{body_output(body)};
  if (s.rng.chance(0.4)) outs.push_back(body_output(body));
  const Program prog = body.state.b.build(outs);
  const bool prevent_cse = s.rng.chance(0.5);
  // A name policy whose names the body does not hold is refused (a tandem diagnostic JAX does
  // not give): only the policies whose names are all in the body are drawn, so a refusal of
  // one of them is the engine's failure, not a generator choice.
  const std::vector<std::string> have = names_in(prog);
  std::vector<std::string> usable;
  for (const std::string& spec : kPolicies) {
    bool all = true;
    for (const std::string& n : policy_from_string(spec).names) all = all && std::count(have.begin(), have.end(), n);
    if (all) usable.push_back(spec);
  }
  s.keep(checkpoint(prog, in, s.rng.pick(usable), prevent_cse));
  return true;
}

bool emit_checkpoint_name(GenState& s) {
  auto x = s.pick([](const Value& v) { return is_floating(v.dtype()); });
  if (!x) return false;
  s.keep(checkpoint_name(*x, s.rng.pick(kNames)));
  return true;
}

bool emit_device_put(GenState& s) {
  auto x = s.pick([](const Value&) { return true; });
  if (!x) return false;
  // To a host memory kind and back: what an offloading policy emits (the CPU's kinds are one memory).
  const MemoryKind host = s.rng.chance(0.5) ? MemoryKind::pinned_host : MemoryKind::unpinned_host;
  s.keep(device_put(device_put(*x, host, MemoryKind::device), MemoryKind::device, host));
  return true;
}

GenRow reduction_collective(const std::string& name) {
  return {[name](GenState& s) {
    if (!s.cfg.collectives) return false;
    auto x = s.pick([&](const Value& v) { return is_floating(v.dtype()) || (name != "pmean" && v.dtype() == DType::i32); });
    if (!x) return false;
    s.keep(s.b.bind1(name, {*x}, {{"axis_name", std::string(kCollectiveAxis)}}));
    return true;
  }, 0.5};
}

// An operand whose dimension `dim` has n (untiled) or a multiple of n (tiled) entries.
Value with_dim(GenState& s, const Value& x, int64_t dim, int64_t n, bool tiled) {
  AType t = x.type();
  t.shape[size_t(dim)] = tiled ? n * s.rng.in(0, 2) : n;
  return t == x.type() ? x : s.operand(t);
}

bool emit_all_gather(GenState& s) {
  auto x = s.pick([](const Value&) { return true; });
  if (!s.cfg.collectives || !x) return false;
  const bool tiled = x->rank() > 0 && s.rng.chance(0.5);
  const int64_t axis = s.rng.in(0, x->rank() - (tiled ? 1 : 0));
  const int64_t n = s.cfg.coll_axis_size, out_rank = x->rank() + (tiled ? 0 : 1);
  return emit_with_negative_axes(true, s.rng.chance(0.5),
                                 [&] { s.keep(all_gather(*x, kCollectiveAxis, n, axis - out_rank, tiled)); },
                                 [&] { s.keep(all_gather(*x, kCollectiveAxis, n, axis, tiled)); });
}

bool emit_psum_scatter(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0 && v.dtype() != DType::pred; });
  if (!s.cfg.collectives || !x) return false;
  const bool tiled = s.rng.chance(0.5);
  const int64_t dim = s.rng.in(0, x->rank() - 1), n = s.cfg.coll_axis_size;
  Value in = with_dim(s, *x, dim, n, tiled);
  // psum_scatter binds its scatter_dimension as given: non-negative only, as in a jaxpr.
  return emit_with_negative_axes(false, s.rng.chance(0.5),
                                 [&] { s.keep(psum_scatter(in, kCollectiveAxis, n, dim - in.rank(), tiled)); },
                                 [&] { s.keep(psum_scatter(in, kCollectiveAxis, n, dim, tiled)); });
}

bool emit_all_to_all(GenState& s) {
  auto x = s.pick([](const Value& v) { return v.rank() > 0; });
  if (!s.cfg.collectives || !x) return false;
  const bool tiled = s.rng.chance(0.5);
  const int64_t split = s.rng.in(0, x->rank() - 1), n = s.cfg.coll_axis_size;
  const int64_t concat = s.rng.in(0, x->rank() - (tiled ? 1 : 1));
  Value in = with_dim(s, *x, split, n, tiled);
  // all_to_all binds its axes as given: non-negative only, as in a jaxpr.
  return emit_with_negative_axes(
      false, s.rng.chance(0.5), [&] { s.keep(all_to_all(in, kCollectiveAxis, n, split - in.rank(), concat - in.rank(), tiled)); },
      [&] { s.keep(all_to_all(in, kCollectiveAxis, n, split, concat, tiled)); });
}

bool emit_ppermute(GenState& s) {
  // Not bool: ppermute of bool is an open engine gap (docs/FUZZING.md), JAX takes it.
  auto x = s.pick([](const Value& v) { return v.dtype() != DType::pred; });
  if (!s.cfg.collectives || !x) return false;
  const std::vector<int64_t> dst = s.random_permutation(s.cfg.coll_axis_size);
  std::vector<std::pair<int, int>> perm;
  for (int i = 0; i < int(dst.size()); ++i)
    if (s.rng.chance(0.8)) perm.emplace_back(i, int(dst[size_t(i)]));  // a member left out receives zeros
  s.keep(ppermute(*x, kCollectiveAxis, perm));
  return true;
}

bool emit_axis_index(GenState& s) {
  if (!s.cfg.collectives) return false;
  s.keep(axis_index(s.b, kCollectiveAxis));
  return true;
}

}  // namespace

void add_control_rows(GenTable& t) {
  t.rows["scan"] = {emit_scan, 1.5};
  t.rows["while"] = {emit_while, 0.7};
  t.rows["cond"] = {emit_cond, 0.7};
  t.rows["checkpoint"] = {emit_checkpoint, 1.5};
  t.rows["checkpoint_name"] = {emit_checkpoint_name, 0.5};
  t.rows["device_put"] = {emit_device_put, 0.3};
  for (const char* name : {"psum", "pmean", "pmax", "pmin"}) t.rows[name] = reduction_collective(name);
  t.rows["all_gather"] = {emit_all_gather, 0.5};
  t.rows["psum_scatter"] = {emit_psum_scatter, 0.5};
  t.rows["all_to_all"] = {emit_all_to_all, 0.5};
  t.rows["ppermute"] = {emit_ppermute, 0.5};
  t.rows["axis_index"] = {emit_axis_index, 0.3};
  t.not_generated["lstm_fwd"] =
      "a fused layer whose operands are a packed 12-part weight vector and a config: random operands would test only "
      "its shape checks; the LSTM suite's grid and its outside oracles (PyTorch, JAX, ONNX, cuDNN) check it";
  t.not_generated["lstm_bwd"] = t.not_generated["lstm_fwd"];
}

}  // namespace tandem::fuzz
