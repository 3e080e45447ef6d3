// The vjp pass's backward steps for one level (vjp_linearize.h): the equations' cotangents in
// reverse order, each primal value a rule reads saved as a residual or recomputed on demand
// (need), a replayed scan rebuilding what it does not save, and the two programs at the end.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/passes/ct_dependence.h"
#include "engine/passes/vjp_cond.h"
#include "engine/passes/vjp_linearize.h"

namespace tandem::vjp_detail {

// A scan's primal output under remat, rebuilt by its replay (nullopt: the replay cannot, and
// the output is recorded in `missed` for the next round, or the scan does not replay).
std::optional<Value> Linearizer::rebuilt(size_t ti, int64_t id) {
  Task& t = tasks[ti];
  size_t j = 0;
  while (j < t.out.size() && (t.out[j].atom().is_literal() || t.out[j].atom().var->id != id)) ++j;
  if (!t.replays || j == t.out.size()) return std::nullopt;
  const ScanSplit& s = *t.scan;
  if (j >= s.rebuild.size() || !s.rebuild[j]) {
    std::vector<bool>& m = missed_[ti];
    m.resize(t.out.size());
    m[j] = true;
    return std::nullopt;
  }
  const Replayed& rp = replay_of(t);
  if (j < s.nk) return rp.finals[j];
  return rp.ys[size_t(std::find(s.replay_ys.begin(), s.replay_ys.end(), j - s.nk) - s.replay_ys.begin())];
}

// A primal value in the backward: saved (a new residual) or recomputed from its inputs.
Value Linearizer::need(const Value& fv) {
  const Atom& a = fv.atom();
  if (a.is_literal()) return B.literal(a.literal->value, a.literal->dtype);
  int64_t id = a.var->id;
  if (auto it = bvals.find(id); it != bvals.end()) return it->second;
  int64_t root = root_of(id);
  if (auto it = saved_root.find(root); it != saved_root.end()) return bvals[id] = it->second;
  Remat how = decide(id);
  if (how == Remat::recompute)  // saved under another name of the same buffer?
    for (int64_t m : buffer.at(root))
      if (m != id && decide(m) != Remat::recompute) return bvals[id] = need(Value(&F, Atom(var_of.at(m))));
  if (how != Remat::recompute) return save_residual(fv, root, how);
  if (opts_.replayed && (on_replay_path(id) || loop_invariant(id)))  // the replay stacks it, or
    return save_residual(fv, root, Remat::save, true);               // the level computes it once
  return recompute(fv);
}

// A new residual: an input of the backward, an extra output of the forward.
Value Linearizer::save_residual(const Value& fv, int64_t root, Remat how, bool replayed) {
  const Var& v = fv.atom().var;
  int64_t k = producer.at(v->id);
  const Eqn* pe = k >= 0 ? &F.eqns()[size_t(k)] : nullptr;
  Value bv = B.input(v->type.shape, v->type.dtype);
  Residual res{v->type, "", !pe, how == Remat::offload, replayed};
  if (!pe) res.source = opts_.level == Level::top ? cat("from the argument ", -1 - k) : cat(level_name(opts_.level), " input ", -1 - k);
  else if (std::string n = eqn_name(*pe); !n.empty()) res.source = cat("named '", n, "'");
  else res.source = cat("output of ", pe->prim->name);
  for (auto* from : {&inner_res, &stacked})
    if (auto in = from->find(v->id); in != from->end()) {
      res.source = in->second.source;
      res.offloaded = res.offloaded || in->second.offloaded;
    }
  r.residuals.push_back(res);
  res_vars.push_back(bv.atom().var);
  res_fvals.push_back(fv);
  saved_root[root] = bv;
  return bvals[v->id] = bv;
}

// Whether a replayed scan's replay computes `id` on its way to the carries and the outputs it rebuilds (stopping at
// what the policy saves, which it reads): such a value is stacked by the replay rather than computed twice; one off
// that path the backward scan computes, once, holding no [L, ...] stack for it.
bool Linearizer::on_replay_path(int64_t id) {
  if (!replay_path) {
    replay_path.emplace();
    std::function<void(const Value&)> walk = [&](const Value& v) {
      const Atom& a = v.atom();
      if (a.is_literal() || producer.at(a.var->id) < 0 || !replay_path->insert(a.var->id).second) return;
      for (int64_t m : buffer.at(root_of(a.var->id)))
        if (decide(m) != Remat::recompute) return;  // saved: the replay reads it
      for (const Atom& in : F.eqns()[size_t(producer.at(a.var->id))].in) walk(Value(&F, in));
    };
    for (size_t i = 0; i < fouts.size(); ++i)
      if (i < opts_.carries.second || (i < opts_.rebuild.size() && opts_.rebuild[i])) walk(fouts[i]);
  }
  return replay_path->count(id) > 0;
}

// Whether a scan body's value depends on the scan's consts only (vjp_scan.h: hoisted, computed
// once outside the loop, never per step).
bool Linearizer::loop_invariant(int64_t id) {
  if (auto it = invariant.find(id); it != invariant.end()) return it->second;
  int64_t k = producer.at(id);
  bool inv = k < 0 ? size_t(-1 - k) < opts_.carries.first : !F.eqns()[size_t(k)].prim->has(kCollective);
  if (k >= 0)
    for (const Atom& a : F.eqns()[size_t(k)].in) inv = inv && (a.is_literal() || loop_invariant(a.var->id));
  return invariant[id] = inv;
}

// A value the policy does not save: rebuilt by its scan's replay, or its equation re-run.
Value Linearizer::recompute(const Value& fv) {
  int64_t id = fv.atom().var->id;
  int64_t k = producer.at(id);
  if (auto st = scan_task.find(size_t(k)); st != scan_task.end())
    if (std::optional<Value> v = rebuilt(st->second, id)) return bvals[id] = *v;
  const Eqn* pe = &F.eqns()[size_t(k)];
  std::vector<Value> args;
  for (const Atom& in : pe->in) args.push_back(need(Value(&F, in)));
  std::vector<Value> outs = B.bind(pe->prim->name, args, pe->params);
  r.recompute.add(applications(*pe));
  for (size_t j = 0; j < outs.size(); ++j) bvals[pe->out[j]->id] = outs[j];
  return bvals.at(id);
}

// The forward recurrence again, once, from what the forward saved (vjp_scan.h).
const Replayed& Linearizer::replay_of(Task& t) {
  if (t.replayed) return *t.replayed;
  const ScanSplit& s = *t.scan;
  std::vector<Value> rc, rh, rk, rx, rs;
  for (size_t i : s.replay_consts) rc.push_back(need(t.in[i]));
  for (size_t h : s.replay_hoisted) rh.push_back(hoisted_of(t)[h]);
  for (size_t i = 0; i < s.nk; ++i) rk.push_back(need(t.in[s.nc + i]));
  for (size_t i : s.replay_xs) rx.push_back(need(t.in[s.nc + s.nk + i]));
  for (size_t k : s.replay_stacked) rs.push_back(need(t.res[k]));
  t.replayed = emit_replay_scan(B, s, rc, rh, rk, rx, rs);
  r.recompute.add(s.replay_recompute, s.length);
  // The replay scan itself is recomputation where everything_saveable runs none: at a
  // level the top-level policy put under remat, or where only the outputs need it.
  if (opts_.top_remat || s.carries.empty()) {
    RecomputeStats one;
    one.eqns = 1;
    one.by_prim[F.eqns()[t.feqn].prim->name] = 1;
    r.recompute.add(one);
  }
  return *t.replayed;
}

// A scan's loop-invariant residuals in the backward: the saved ones read, the rest computed
// once from the consts (the policy does not save them; JAX hoists them out of the loop too).
const std::vector<Value>& Linearizer::hoisted_of(Task& t) {
  if (t.hoisted_b) return *t.hoisted_b;
  const ScanSplit& s = *t.scan;
  std::vector<Value> h;
  for (const Value& v : t.hoisted) h.push_back(need(v));
  if (s.hoist_backward.program) {
    std::vector<Value> hc;
    for (size_t i : s.hoist_backward.consts) hc.push_back(need(t.in[i]));
    for (const Value& v : inline_program(B, *s.hoist_backward.program, hc)) h.push_back(v);
    r.recompute.add(s.hoist_backward.applications);
  }
  t.hoisted_b = std::move(h);
  return *t.hoisted_b;
}

void Linearizer::accumulate(const Value& fv, const Value& ct) {
  if (!active(fv)) return;  // a literal, an integer, or no differentiated input reaches it
  TANDEM_CHECK(ct.type() == fv.type(), "vjp: cotangent ", ct.type().str(), " for primal ", fv.type().str());
  int64_t id = fv.atom().var->id;
  auto it = cts.find(id);
  if (it == cts.end()) cts.emplace(id, ct);
  else it->second = add(it->second, ct);
}

// The backward: the outputs' cotangents are its inputs; the equations in reverse order.
void Linearizer::backward() {
  r.wrt = wrt_;
  r.num_outputs = fouts.size();
  for (size_t i = 0; i < fouts.size(); ++i) {
    Value c = B.input(fouts[i].shape(), fouts[i].dtype());
    ct_vars.push_back(c.atom().var);
    accumulate(fouts[i], c);
  }
  for (size_t ti = tasks.size(); ti-- > 0;) {
    Task& t = tasks[ti];
    if (!t.inner && !t.scan) {
      backward_eqn(t);
      continue;
    }
    std::vector<std::optional<Value>> oc;
    bool any = false;
    for (const Value& o : t.out) any |= oc.emplace_back(ct_of(o)).has_value();
    if (!any) continue;
    if (t.inner) backward_checkpoint(t, oc);
    else backward_scan(t, oc);
  }
}

// A checkpoint: its residuals (saved or recomputed here), then its backward inlined.
void Linearizer::backward_checkpoint(Task& t, const std::vector<std::optional<Value>>& oc) {
  std::vector<Value> bargs;
  for (const Value& v : t.res) bargs.push_back(need(v));
  // An output that is one of the checkpoint's operands (a body returning its input) or an
  // earlier output (a body returning a value twice) shares that variable, whose cotangent
  // already holds every use: passing it through the body again would count it twice.
  std::set<int64_t> aliased;
  for (const Value& v : t.in)
    if (!v.atom().is_literal()) aliased.insert(v.atom().var->id);
  std::vector<bool> linear(bargs.size(), false), zero(bargs.size(), false);  // the residuals, then the output cts
  for (size_t j = 0; j < t.out.size(); ++j) {
    const bool again = !t.out[j].atom().is_literal() && !aliased.insert(t.out[j].atom().var->id).second;
    linear.push_back(true);
    zero.push_back(!oc[j] || again);
    bargs.push_back(zero.back() ? zeros(B, t.out[j].type()) : *oc[j]);
  }
  // An output cotangent that is none stays JAX's symbolic zero through the body's backward,
  // and an operand's cotangent that no nonzero one reaches (a body input read only through
  // stop_gradient, or not at all) is left out, not zeros (ct_dependence.h).
  LinearInlined ins_ct = inline_linear(B, t.inner->backward, bargs, linear, zero);
  for (size_t j = 0, c = 0; j < t.in.size(); ++j) {
    if (!t.inner->wrt[j]) continue;
    if (ins_ct.nonzero[c]) accumulate(t.in[j], ins_ct.out[c]);
    ++c;
  }
  r.recompute.add(t.inner->recompute);
}

// A scan: the operands it reads and its stacked residuals, then the backward scan.
void Linearizer::backward_scan(Task& t, const std::vector<std::optional<Value>>& oc) {
  const ScanSplit& s = *t.scan;
  std::vector<Value> consts, xs, st;
  std::vector<AType> out_types;
  for (size_t i : s.used_consts) consts.push_back(need(t.in[i]));
  for (size_t i : s.used_xs) xs.push_back(need(t.in[s.nc + s.nk + i]));
  for (const Value& v : t.res) st.push_back(need(v));
  if (s.replay() && (!s.carries.empty() || !s.replayed.empty())) {  // what the replay stacks
    const Replayed& rp = replay_of(t);
    st.insert(st.end(), rp.residuals.begin(), rp.residuals.end());
    st.insert(st.end(), rp.entering.begin(), rp.entering.end());
  }
  for (const Value& o : t.out) out_types.push_back(o.type());
  std::vector<std::optional<Value>> ins_ct = emit_backward_scan(B, s, consts, hoisted_of(t), xs, st, oc, out_types);
  for (size_t j = 0; j < ins_ct.size(); ++j)
    if (ins_ct[j]) accumulate(t.in[j], *ins_ct[j]);
  r.recompute.add(s.body->recompute, s.length);  // the body's recompute, every step
}

// Any other equation: its primitive's rule (Primitive::vjp) emits the input cotangents.
void Linearizer::backward_eqn(const Task& t) {
  const Eqn& fe = F.eqns()[t.feqn];
  VjpArgs va;
  va.builder = &B;
  bool any = false;
  for (const Var& o : fe.out) {
    va.out_types.push_back(o->type);
    any |= va.cts.emplace_back(ct_of(Value(&F, o))).has_value();
  }
  if (!any) return;
  // Rules that need this pass on a sub-program live beside it, not in the primitive table.
  static const std::map<std::string, VjpRule> kPassRules = {{"cond", cond_vjp}};
  const auto pass_rule = kPassRules.find(fe.prim->name);
  const VjpRule& rule = pass_rule != kPassRules.end() ? pass_rule->second : fe.prim->vjp;
  if (!rule)
    throw_unsupported(cat("vjp: ", fe.prim->name, " has no reverse-mode rule"),
                      "keep it off the differentiated path or add a rule in engine/prims/vjp_rules*.cc");
  for (const Atom& a : fe.in) {
    va.in_types.push_back(a.type());
    va.in_constant.push_back(a.is_literal() || !active(Value(&F, a)));
  }
  va.primal_in = [this, feqn = t.feqn](size_t i) { return need(Value(&F, F.eqns()[feqn].in.at(i))); };
  va.primal_out = [this, feqn = t.feqn](size_t i) { return need(Value(&F, F.eqns()[feqn].out.at(i))); };
  std::vector<std::optional<Value>> ins_ct = rule(va, fe.params);
  TANDEM_CHECK(ins_ct.size() == fe.in.size(), fe.prim->name, " vjp returned ", ins_ct.size(), " cotangents");
  for (size_t j = 0; j < ins_ct.size(); ++j)
    if (ins_ct[j] && !fe.in[j].is_literal()) accumulate(Value(&F, fe.in[j]), *ins_ct[j]);
}

// Walks back from fv to what the policy saves on its path, and saves that.
void Linearizer::reach(const Value& fv) {
  const Atom& a = fv.atom();
  if (a.is_literal() || bvals.count(a.var->id) || !reached.insert(a.var->id).second) return;
  bool keep = saved_root.count(root_of(a.var->id));  // or it, or a name of its buffer, saved
  for (int64_t m : buffer.at(root_of(a.var->id))) keep = keep || decide(m) != Remat::recompute;
  if (keep) need(fv);  // a residual: emits nothing in the backward
  else for (const Atom& in : F.eqns()[size_t(producer.at(a.var->id))].in) reach(Value(&F, in));
}

// A replayed scan's body: what the policy saves on the path of its carries and of the ys it rebuilds is saved too (the
// replay reads it, scan_replay.h), as JAX's staged scan recomputes the primal carries and ys from the residuals.
void Linearizer::save_for_replay() {
  const std::pair<size_t, size_t> carries = opts_.carries;
  bool runs = false;  // the backward reads a carry: the replay rebuilds them all
  for (size_t i = 0; i < carries.second; ++i) runs |= bvals.count(fenv.at(p_.in_vars[carries.first + i]->id).atom().var->id) > 0;
  for (bool b : opts_.rebuild) runs |= b;  // the replay runs: it rebuilds every carry
  // The values the replay stacks for the backward: it computes them from what the policy saves.
  for (size_t j = 0; j < r.residuals.size(); ++j)
    if (r.residuals[j].replayed) {
      runs = true;
      for (const Atom& in : F.eqns()[size_t(producer.at(res_fvals[j].atom().var->id))].in) reach(Value(&F, in));
    }
  for (size_t i = 0; runs && i < carries.second; ++i) reach(fouts[i]);
  for (size_t i = carries.second; i < opts_.rebuild.size(); ++i)
    if (opts_.rebuild[i]) reach(fouts[i]);
}

// The two programs: the backward returns the wrt inputs' cotangents, the forward its outputs then the residuals.
VjpProgram Linearizer::finish() {
  std::vector<Value> bouts;
  for (size_t i = 0; i < p_.in_vars.size(); ++i) {
    if (!wrt_[i]) continue;
    if (!is_floating(p_.in_vars[i]->type.dtype))
      throw_bad_input(cat("vjp: input ", i, " is ", p_.in_vars[i]->type.str(), ", not differentiable"),
                      "pass wrt=false for integer and bool inputs");
    std::optional<Value> c = ct_of(fenv.at(p_.in_vars[i]->id));
    bouts.push_back(c ? *c : zeros(B, p_.in_vars[i]->type));
  }
  r.backward = B.build(bouts);
  r.backward.in_vars = res_vars;
  r.backward.in_vars.insert(r.backward.in_vars.end(), ct_vars.begin(), ct_vars.end());
  for (const Value& v : res_fvals) fouts.push_back(v);
  r.forward = F.build(fouts);
  return std::move(r);
}

}  // namespace tandem::vjp_detail
