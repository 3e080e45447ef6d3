// The batching interpreter (batch_rules.h): walks a Program once, and for each equation
// either re-binds it unchanged (no operand mapped: the value is the same for every example,
// as JAX's BatchTrace leaves unbatched tracers alone) or calls the primitive's BatchRule.
// Also the axis helpers the rules share and the per-example loop fallback.
#include <numeric>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/prims/batch_rules.h"

namespace tandem {
namespace {
thread_local std::string current_axis_name;
}  // namespace

VmapAxisNameScope::VmapAxisNameScope(std::string name) : prev_(std::move(current_axis_name)) {
  current_axis_name = std::move(name);
}
VmapAxisNameScope::~VmapAxisNameScope() { current_axis_name = std::move(prev_); }
const std::string& vmap_axis_name() { return current_axis_name; }

bool names_axis(const std::string& joined, const std::string& name) {
  for (const std::string& n : split_axis_names(joined))
    if (n == name) return true;
  return false;
}

int64_t batch_size_of(const std::vector<Value>& in, const std::vector<BatchAxis>& axes) {
  for (size_t i = 0; i < in.size(); ++i)
    if (axes.at(i)) return in[i].shape().at(size_t(*axes[i]));
  TANDEM_CHECK(false, "batch rule called with no mapped operand");
  return 0;
}

Value move_axis(Value x, int from, int to) {
  if (from == to) return x;
  std::vector<int64_t> perm;
  for (int d = 0; d < x.rank(); ++d)
    if (d != from) perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  return transpose(x, perm);
}

Value broadcast_along(Value x, int64_t size, int axis) {
  Shape s = x.shape();
  s.insert(s.begin() + axis, size);
  std::vector<int64_t> dims;
  for (int d = 0; d < int(s.size()); ++d)
    if (d != axis) dims.push_back(d);
  return broadcast_in_dim(x, s, dims);
}

Value batch_at_front(Value x, BatchAxis axis, int64_t size) {
  return axis ? move_axis(x, *axis, 0) : broadcast_along(x, size, 0);
}

Value match_axis(Value x, BatchAxis src, int dest, int64_t size) {
  return src ? move_axis(x, *src, dest) : broadcast_along(x, size, dest);
}

std::pair<std::vector<Value>, std::vector<BatchAxis>> batch_by_loop(
    const std::string& prim, const std::vector<Value>& in, const std::vector<BatchAxis>& axes,
    const Params& params) {
  int64_t size = batch_size_of(in, axes);
  std::vector<Value> consts, xs;
  std::vector<AType> body_in;
  for (size_t i = 0; i < in.size(); ++i)  // consts first: the body takes (consts..., x_t...)
    if (!axes[i] && !in[i].atom().is_literal()) { consts.push_back(in[i]); body_in.push_back(in[i].type()); }
  for (size_t i = 0; i < in.size(); ++i)
    if (axes[i]) {
      xs.push_back(move_axis(in[i], *axes[i], 0));
      AType t = in[i].type();
      t.shape.erase(t.shape.begin() + *axes[i]);
      body_in.push_back(t);
    }
  Program body = trace(body_in, [&](Builder& b, const std::vector<Value>& v) {
    std::vector<Value> args;
    size_t c = 0, x = consts.size();
    for (size_t i = 0; i < in.size(); ++i) {
      if (axes[i]) args.push_back(v[x++]);
      else if (in[i].atom().is_literal()) args.push_back(b.literal(in[i].atom().literal->value, in[i].dtype()));
      else args.push_back(v[c++]);
    }
    return b.bind(prim, args, params);
  });
  std::vector<Value> outs = scan(body, consts, {}, xs, size);
  return {outs, std::vector<BatchAxis>(outs.size(), 0)};
}

BatchedProgram batch_program(const Program& p, const std::vector<BatchAxis>& in_axes,
                             const std::vector<OutDest>& dests, int64_t size, const char* what) {
  TANDEM_CHECK(in_axes.size() == p.in_vars.size(), what, ": ", in_axes.size(), " axes for ",
               p.in_vars.size(), " inputs");
  TANDEM_CHECK(dests.empty() || dests.size() == p.out_vars.size(), what, ": out dests arity");
  Builder b;
  struct Batched {
    Value v;
    BatchAxis axis;
  };
  std::unordered_map<int64_t, Batched> env;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    Shape s = p.in_vars[i]->type.shape;
    if (in_axes[i]) s.insert(s.begin() + *in_axes[i], size);
    env[p.in_vars[i]->id] = {b.input(s, p.in_vars[i]->type.dtype), in_axes[i]};
  }
  auto read = [&](const Atom& a) -> Batched {
    if (a.is_literal()) return {b.literal(a.literal->value, a.literal->dtype), std::nullopt};
    return env.at(a.var->id);
  };
  for (const Eqn& e : p.eqns) {
    std::vector<Value> args;
    std::vector<BatchAxis> axes;
    bool any = false;
    for (const Atom& a : e.in) {
      Batched x = read(a);
      args.push_back(x.v);
      axes.push_back(x.axis);
      any |= x.axis.has_value();
    }
    std::vector<Value> outs;
    std::vector<BatchAxis> out_axes;
    const std::string& axis = vmap_axis_name();
    if (!axis.empty() && e.prim->has(kCollective) && names_axis(e.params.get_string("axis_name", ""), axis)) {
      if (!e.prim->axis_batch)
        throw_unsupported(cat(what, ": ", e.prim->name, " names the vmapped axis '", axis, "' but has no axis rule"),
                          "add one in engine/prims/collective_prims_rules.cc");
      std::tie(outs, out_axes) = e.prim->axis_batch(b, args, axes, e.params, axis, size);
      TANDEM_CHECK(outs.size() == e.out.size() && out_axes.size() == outs.size(), e.prim->name,
                   " axis rule returned ", outs.size(), " outputs for ", e.out.size());
    } else if (!any) {
      outs = b.bind(e.prim->name, args, e.params);
      out_axes.assign(outs.size(), std::nullopt);
    } else {
      if (!e.prim->batch)
        throw_unsupported(cat(what, ": ", e.prim->name, " has no batching rule"),
                          "add one in engine/prims/batch_rules*.cc");
      std::tie(outs, out_axes) = e.prim->batch(args, axes, e.params);
      TANDEM_CHECK(outs.size() == e.out.size() && out_axes.size() == outs.size(), e.prim->name,
                   " batch rule returned ", outs.size(), " outputs for ", e.out.size());
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      // A rule's result must be the per-example type with the batch axis inserted.
      AType want = e.out[k]->type;
      if (out_axes[k]) want.shape.insert(want.shape.begin() + *out_axes[k], size);
      TANDEM_CHECK(outs[k].type() == want, e.prim->name, " batch rule gave ", outs[k].type().str(),
                   ", expected ", want.str());
      env[e.out[k]->id] = {outs[k], out_axes[k]};
    }
  }
  BatchedProgram r;
  std::vector<Value> outs;
  for (size_t i = 0; i < p.out_vars.size(); ++i) {
    Batched x = read(p.out_vars[i]);
    OutDest d = dests.empty() ? OutDest::keep_as_is() : dests[i];
    if (d.kind == OutDest::unmapped && x.axis)
      throw_bad_input(cat(what, ": output ", i, " is mapped (batch axis ", *x.axis,
                          ") but out_axes asks for it not mapped"),
                      "give that output an out axis, or make it independent of the mapped inputs");
    if (d.kind == OutDest::at) {
      x.v = match_axis(x.v, x.axis, d.axis, size);
      x.axis = d.axis;
    }
    outs.push_back(x.v);
    r.out_axes.push_back(x.axis);
  }
  r.program = b.build(outs);
  return r;
}

}  // namespace tandem
