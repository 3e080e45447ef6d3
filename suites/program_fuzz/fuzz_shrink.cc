// shrink, rebind and prune.
#include "suites/program_fuzz/fuzz_shrink.h"

#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/ir/typecheck.h"
#include "suites/program_fuzz/fuzz_values.h"

namespace tandem::fuzz {
namespace {

// Per-variable arguments of a case, so a changed program can take what still applies.
struct Bound {
  std::map<int64_t, Tensor> arg;            // input var id -> its argument
  std::map<int64_t, VmapAxis> in_axis;      // input var id -> its vmap axis
  std::map<int64_t, Tensor> ct;             // output var id -> its cotangent
  std::map<int64_t, VmapAxis> ct_axis;      // output var id -> the axis of its cotangent (vmap_of_vjp)
  std::map<int64_t, VmapAxis> out_axis;     // output var id -> its out axis
  std::map<int64_t, VmapAxis> grad_axis;    // input var id -> the out axis of its gradient (vmap_of_vjp)
};

int64_t id_of(const Atom& a) { return a.is_literal() ? -1 : a.var->id; }

std::vector<int64_t> floating_inputs(const Program& p) {
  std::vector<int64_t> r;
  for (const Var& v : p.in_vars)
    if (is_floating(v->type.dtype)) r.push_back(v->id);
  return r;
}

Bound bound_of(const FuzzCase& c) {
  Bound b;
  const Program& p = c.program;
  const bool vm = vmaps(c.chain.kind), joint = c.chain.kind == ChainKind::vmap_of_vjp;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    b.arg[p.in_vars[i]->id] = c.args[i];
    if (vm) b.in_axis[p.in_vars[i]->id] = c.chain.in_axes[i];
  }
  for (size_t k = 0; k < p.out_vars.size(); ++k) {
    const int64_t id = id_of(p.out_vars[k]);
    if (joint) {
      b.ct[id] = c.args[p.in_vars.size() + k];
      b.ct_axis[id] = c.chain.in_axes[p.in_vars.size() + k];
    } else if (!c.cotangents.empty()) {
      b.ct[id] = c.cotangents[k];
    }
    if (vm) b.out_axis[id] = c.chain.out_axes[k];
  }
  if (joint) {
    const std::vector<int64_t> f = floating_inputs(p);
    for (size_t g = 0; g < f.size(); ++g) b.grad_axis[f[g]] = c.chain.out_axes[p.out_vars.size() + g];
  }
  return b;
}

template <class M>
bool has(const M& m, int64_t id) { return m.count(id) > 0; }

Shape batched_shape(Shape s, const VmapAxis& axis, int64_t size) {
  if (!axis) return s;
  const int64_t rank = int64_t(s.size()) + 1;
  s.insert(s.begin() + (*axis < 0 ? *axis + rank : *axis), size);
  return s;
}

}  // namespace

Program prune(const Program& p) {
  std::set<int64_t> used;
  for (const Atom& a : p.out_vars) used.insert(id_of(a));
  std::vector<Eqn> kept;
  for (auto it = p.eqns.rbegin(); it != p.eqns.rend(); ++it) {
    bool needed = false;
    for (const Var& v : it->out) needed |= used.count(v->id) > 0;
    if (!needed) continue;
    for (const Atom& a : it->in) used.insert(id_of(a));
    kept.insert(kept.begin(), *it);
  }
  Program r;
  for (const Var& v : p.in_vars)
    if (used.count(v->id)) r.in_vars.push_back(v);
  r.eqns = kept;
  r.out_vars = p.out_vars;
  return r;
}

FuzzCase rebind(const FuzzCase& c, Program p, Rng& rng) {
  const Bound b = bound_of(c);
  FuzzCase r;
  r.seed = c.seed;
  r.chain = c.chain;
  r.program = std::move(p);
  const bool vm = vmaps(c.chain.kind), joint = c.chain.kind == ChainKind::vmap_of_vjp;
  const int64_t n = c.chain.axis_size;
  r.chain.in_axes.clear();
  r.chain.out_axes.clear();
  for (const Var& v : r.program.in_vars) {
    const VmapAxis axis = vm && has(b.in_axis, v->id) ? b.in_axis.at(v->id) : VmapAxis{};
    r.args.push_back(has(b.arg, v->id) ? b.arg.at(v->id)
                                       : random_tensor(rng, AType{batched_shape(v->type.shape, axis, n), v->type.dtype}, 0.05));
    if (vm) r.chain.in_axes.push_back(axis);
  }
  for (const Atom& a : r.program.out_vars) {
    const int64_t id = id_of(a);
    const AType t = a.type();
    if (joint) {
      const VmapAxis axis = has(b.ct_axis, id) ? b.ct_axis.at(id) : VmapAxis{};
      r.args.push_back(has(b.ct, id) ? b.ct.at(id) : random_tensor(rng, AType{batched_shape(t.shape, axis, n), t.dtype}, 0));
      r.chain.in_axes.push_back(axis);
    } else if (differentiates(c.chain.kind)) {
      r.cotangents.push_back(has(b.ct, id) ? b.ct.at(id) : random_tensor(rng, t, 0));
    }
    if (vm) r.chain.out_axes.push_back(has(b.out_axis, id) ? b.out_axis.at(id) : VmapAxis{0});
  }
  if (joint)
    for (int64_t id : floating_inputs(r.program))
      r.chain.out_axes.push_back(has(b.grad_axis, id) ? b.grad_axis.at(id) : VmapAxis{0});
  return r;
}

FuzzCase shrink(const FuzzCase& c, const std::function<bool(const FuzzCase&)>& still_fails, int budget) {
  FuzzCase best = c;
  Rng rng(c.seed ^ 0x5eed);
  auto attempt = [&](Program p) {
    if (budget-- <= 0) return false;
    try {
      p = prune(p);
      typecheck(p);
      FuzzCase candidate = rebind(best, std::move(p), rng);
      if (!still_fails(candidate)) return false;
      best = std::move(candidate);
      return true;
    } catch (const Error&) {
      return false;  // a candidate the engine or the reference refuses is not a smaller failure
    }
  };
  for (bool progress = true; progress && budget > 0;) {
    progress = false;
    for (size_t k = 0; best.program.out_vars.size() > 1 && k < best.program.out_vars.size(); ++k) {
      Program p = best.program;
      p.out_vars.erase(p.out_vars.begin() + long(k));
      if (attempt(p)) { progress = true; break; }
    }
    if (progress) continue;
    for (size_t j = best.program.eqns.size(); j-- > 0;) {
      // Cut equation j: its results become inputs.
      Program p = best.program;
      for (const Var& v : p.eqns[j].out) p.in_vars.push_back(v);
      p.eqns.erase(p.eqns.begin() + long(j));
      if (attempt(p)) { progress = true; break; }
    }
  }
  return best;
}

}  // namespace tandem::fuzz
