// The vjp pass: linearize one level (a program under one policy), recursing into checkpoint
// and scan bodies. See vjp.h for the forward/backward split and how residuals are chosen.
#include "engine/passes/vjp.h"

#include <algorithm>
#include <set>
#include <unordered_set>
#include <variant>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/passes/offload.h"
#include "engine/passes/pass_typecheck.h"
#include "engine/passes/vjp_level.h"
#include "engine/passes/vjp_scan.h"

namespace tandem {
using namespace vjp_detail;

namespace {

struct Task {
  size_t feqn = 0;                       // regular, scan: index of its forward eqn
  std::shared_ptr<VjpProgram> inner;     // checkpoint: the body's linearization
  std::shared_ptr<ScanSplit> scan;       // scan: the body split by the policy
  std::vector<Value> in, out, res;       // checkpoint / scan: operands, outputs, residuals
  bool replays = false;                  // scan under remat: rebuilds what it does not save
  std::optional<Replayed> replayed;      // ... its replay, once emitted
};

VjpProgram linearize(const Program& p, const std::vector<bool>& wrt, const Policy& pol, const LevelOpts& o);

// One linearization of a level, the scans' replays rebuilding the outputs in `needs`; an
// output the backward reads beyond them is added to `missed` (the result is then not used).
VjpProgram linearize_once(const Program& p, const std::vector<bool>& wrt, const Policy& pol,
                          const LevelOpts& opts, const ScanNeeds& needs, ScanNeeds& missed) {
  const Level level = opts.level;
  const bool in_remat = opts.in_remat;
  const std::pair<size_t, size_t> carries = opts.carries;
  for (size_t i = 0; i < p.out_vars.size(); ++i)
    if (!is_floating(p.out_vars[i].type().dtype))
      throw_bad_input(cat(level_name(level), ": output ", i, " is ", p.out_vars[i].type().str(),
                          ", which is not differentiable"),
                      "differentiate only floating outputs (move integer/bool results out of the "
                      "checkpoint or scan)");
  // ---- forward: copy the equations, inlining each checkpoint's own forward and splitting
  // each scan ----------------------------------------------------------------------------
  Builder F;
  std::unordered_map<int64_t, Value> fenv;
  std::unordered_map<int64_t, int64_t> producer;  // forward var id -> eqn index (-1-i: input i)
  std::unordered_map<int64_t, Var> var_of;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    Value v = F.input(p.in_vars[i]->type.shape, p.in_vars[i]->type.dtype);
    fenv[p.in_vars[i]->id] = v;
    producer[v.atom().var->id] = -1 - int64_t(i);
    var_of[v.atom().var->id] = v.atom().var;
  }
  auto fval = [&](const Atom& a) { return a.is_literal() ? F.literal(a.literal->value, a.literal->dtype) : fenv.at(a.var->id); };
  auto mark_new = [&](size_t from) {
    for (size_t k = from; k < F.eqns().size(); ++k)
      for (const Var& v : F.eqns()[k].out) producer[v->id] = int64_t(k);
  };
  std::vector<Task> tasks;
  std::unordered_map<size_t, size_t> scan_task;  // forward eqn of a scan -> its task
  std::unordered_map<int64_t, Residual> inner_res;  // inner residuals keep their name and pool
  std::unordered_map<int64_t, Residual> stacked;    // a scan's stacked residuals: saved here
  for (size_t ei = 0; ei < p.eqns.size(); ++ei) {
    const Eqn& e = p.eqns[ei];
    std::vector<Value> args;
    for (const Atom& a : e.in) args.push_back(fval(a));
    Task t;
    std::vector<Value> outs;
    size_t before = F.eqns().size();
    if (e.prim->name == "checkpoint") {
      const Program& body = *e.params.get_program("body");
      Policy inner_pol = policy_from_string(e.params.get_string("policy", "nothing_saveable"));
      check_names(inner_pol, body);
      LevelOpts io;
      io.level = Level::checkpoint;
      io.in_remat = true;
      t.inner = std::make_shared<VjpProgram>(linearize(body, floating_inputs(body), inner_pol, io));
      std::vector<Value> all = inline_program(F, t.inner->forward, args);
      outs.assign(all.begin(), all.begin() + int64_t(body.out_vars.size()));
      t.res.assign(all.begin() + int64_t(body.out_vars.size()), all.end());
      for (size_t j = 0; j < t.res.size(); ++j)
        if (!t.res[j].atom().is_literal() && !t.inner->residuals[j].is_argument)
          inner_res.emplace(t.res[j].atom().var->id, t.inner->residuals[j]);
    } else if (e.prim->name == "scan") {
      const Program& body = *e.params.get_program("body");
      // The body is split under this level's policy (JAX recurses with the same policy).
      const bool replay = in_remat && !fault_on(Fault::remat_scan_carries_stacked);  // fault: carries saved
      LevelOpts bo;
      bo.level = Level::scan_body;
      bo.in_remat = in_remat;
      bo.top_remat = opts.top_remat;
      bo.carries = {size_t(e.params.get_int("num_consts")), replay ? size_t(e.params.get_int("num_carry")) : 0};
      if (auto n = needs.find(ei); replay && n != needs.end()) bo.rebuild = n->second;
      t.scan = std::make_shared<ScanSplit>(
          split_scan(e.params, linearize(body, floating_inputs(body), pol, bo), replay, bo.rebuild));
      std::vector<Value> all = emit_forward_scan(*t.scan, args);
      t.feqn = F.eqns().size() - 1;
      t.replays = replay;
      scan_task.emplace(t.feqn, tasks.size());
      outs.assign(all.begin(), all.begin() + int64_t(e.out.size()));
      t.res.assign(all.begin() + int64_t(e.out.size()), all.end());
      for (size_t k = 0; k < t.res.size(); ++k) {
        const ScanSplit& s = *t.scan;
        Residual r = s.body->residuals[s.stacked[k]];
        r.type = t.res[k].type();
        r.is_argument = false;
        std::string what = s.body->residuals[s.stacked[k]].is_argument ? "the carry entering each step" : r.source;
        r.source = cat(what, ", stacked over ", s.length, " scan steps");
        stacked.emplace(t.res[k].atom().var->id, r);
      }
    } else {
      outs = F.bind(e.prim->name, args, e.prim->vjp_forward_params ? e.prim->vjp_forward_params(e.params) : e.params);
      t.feqn = F.eqns().size() - 1;
    }
    mark_new(before);
    t.in = args;
    t.out = outs;
    for (size_t k = 0; k < e.out.size(); ++k) fenv[e.out[k]->id] = outs[k];  // outs may have more (a reserve)
    tasks.push_back(std::move(t));
  }
  std::vector<Value> fouts;
  for (const Atom& a : p.out_vars) fouts.push_back(fval(a));

  // Buffers: checkpoint_name is the identity, so a value and its names are one buffer. The
  // policy may save it under any of them (save_only_these_names(probs) saves the quotient
  // a rule reads through its name), and it is saved once.
  for (const Eqn& q : F.eqns())
    for (const Var& v : q.out) var_of[v->id] = v;
  auto root_of = [&](int64_t id) {
    for (int64_t k = producer.at(id); k >= 0 && F.eqns()[size_t(k)].prim->name == "checkpoint_name";) {
      const Atom& src = F.eqns()[size_t(k)].in[0];
      if (src.is_literal()) break;
      id = src.var->id;
      k = producer.at(id);
    }
    return id;
  };
  std::unordered_map<int64_t, std::vector<int64_t>> buffer;  // root -> the value and its names
  for (auto& [id, v] : var_of) buffer[root_of(id)].push_back(id);
  for (auto& [root, ids] : buffer) std::sort(ids.begin(), ids.end());
  auto decide = [&](int64_t id) {
    if (auto s = stacked.find(id); s != stacked.end()) return s->second.offloaded ? Remat::offload : Remat::save;
    int64_t k = producer.at(id);
    if (k < 0 || fault_on(Fault::remat_policy_saves_everything)) return Remat::save;  // fault: policy ignored
    return pol(F.eqns()[size_t(k)]);
  };

  // ---- backward ----------------------------------------------------------------------
  VjpProgram r;
  r.wrt = wrt;
  r.num_outputs = fouts.size();
  Builder B;
  std::vector<Var> ct_vars, res_vars;
  std::vector<Value> res_fvals;
  std::unordered_map<int64_t, Value> bvals, cts;  // keyed by forward var id
  std::unordered_map<int64_t, Value> saved_root;  // buffer root -> its residual
  std::function<const Replayed&(Task&)> replay_of;
  // A scan's primal output under remat, rebuilt by its replay (nullopt: the replay cannot, and
  // the output is recorded in `missed` for the next round, or the scan does not replay).
  auto rebuilt = [&](size_t ti, int64_t id) -> std::optional<Value> {
    Task& t = tasks[ti];
    size_t j = 0;
    while (j < t.out.size() && (t.out[j].atom().is_literal() || t.out[j].atom().var->id != id)) ++j;
    if (!t.replays || j == t.out.size()) return std::nullopt;
    const ScanSplit& s = *t.scan;
    if (j >= s.rebuild.size() || !s.rebuild[j]) {
      std::vector<bool>& m = missed[ti];
      m.resize(t.out.size());
      m[j] = true;
      return std::nullopt;
    }
    const Replayed& rp = replay_of(t);
    if (j < s.nk) return rp.finals[j];
    return rp.ys[size_t(std::find(s.replay_ys.begin(), s.replay_ys.end(), j - s.nk) - s.replay_ys.begin())];
  };
  // A primal value in the backward: saved (a new residual) or recomputed from its inputs.
  std::function<Value(const Value&)> need = [&](const Value& fv) -> Value {
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
    int64_t k = producer.at(id);
    const Eqn* pe = k >= 0 ? &F.eqns()[size_t(k)] : nullptr;
    if (how != Remat::recompute) {
      Value bv = B.input(a.var->type.shape, a.var->type.dtype);
      Residual res{a.var->type, "", !pe, how == Remat::offload};
      if (!pe) res.source = level == Level::top ? cat("from the argument ", -1 - k) : cat(level_name(level), " input ", -1 - k);
      else if (std::string n = eqn_name(*pe); !n.empty()) res.source = cat("named '", n, "'");
      else res.source = cat("output of ", pe->prim->name);
      for (auto* from : {&inner_res, &stacked})
        if (auto in = from->find(id); in != from->end()) {
          res.source = in->second.source;
          res.offloaded = res.offloaded || in->second.offloaded;
        }
      r.residuals.push_back(res);
      res_vars.push_back(bv.atom().var);
      res_fvals.push_back(fv);
      saved_root[root] = bv;
      return bvals[id] = bv;
    }
    if (auto st = scan_task.find(size_t(k)); st != scan_task.end())
      if (std::optional<Value> v = rebuilt(st->second, id)) return bvals[id] = *v;
    std::vector<Value> args;
    for (const Atom& in : pe->in) args.push_back(need(Value(&F, in)));
    std::vector<Value> outs = B.bind(pe->prim->name, args, pe->params);
    r.recompute.add(applications(*pe));
    for (size_t j = 0; j < outs.size(); ++j) bvals[pe->out[j]->id] = outs[j];
    return bvals.at(id);
  };
  // The forward recurrence again, once, from what the forward saved (vjp_scan.h).
  replay_of = [&](Task& t) -> const Replayed& {
    if (t.replayed) return *t.replayed;
    const ScanSplit& s = *t.scan;
    std::vector<Value> rc, rk, rx, rs;
    for (size_t i : s.replay_consts) rc.push_back(need(t.in[i]));
    for (size_t i = 0; i < s.nk; ++i) rk.push_back(need(t.in[s.nc + i]));
    for (size_t i : s.replay_xs) rx.push_back(need(t.in[s.nc + s.nk + i]));
    for (size_t k : s.replay_stacked) rs.push_back(need(t.res[k]));
    t.replayed = emit_replay_scan(B, s, rc, rk, rx, rs);
    r.recompute.add(s.replay_recompute, s.length);
    // The replay scan itself is recomputation where everything_saveable runs none: at a
    // level the top-level policy put under remat, or where only the outputs need it.
    if (opts.top_remat || s.carries.empty()) {
      RecomputeStats one;
      one.eqns = 1;
      one.by_prim["scan"] = 1;
      r.recompute.add(one);
    }
    return *t.replayed;
  };
  auto accumulate = [&](const Value& fv, const Value& ct) {
    if (fv.atom().is_literal()) return;
    TANDEM_CHECK(ct.type() == fv.type(), "vjp: cotangent ", ct.type().str(), " for primal ", fv.type().str());
    int64_t id = fv.atom().var->id;
    auto it = cts.find(id);
    if (it == cts.end()) cts.emplace(id, ct);
    else it->second = add(it->second, ct);
  };
  for (size_t i = 0; i < fouts.size(); ++i) {
    Value c = B.input(fouts[i].shape(), fouts[i].dtype());
    ct_vars.push_back(c.atom().var);
    accumulate(fouts[i], c);
  }
  auto ct_of = [&](const Value& fv) -> std::optional<Value> {
    auto it = fv.atom().is_literal() ? cts.end() : cts.find(fv.atom().var->id);
    return it == cts.end() ? std::nullopt : std::optional<Value>(it->second);
  };
  for (size_t ti = tasks.size(); ti-- > 0;) {
    Task& t = tasks[ti];
    if (t.inner || t.scan) {
      std::vector<std::optional<Value>> oc;
      bool any = false;
      for (const Value& o : t.out) any |= oc.emplace_back(ct_of(o)).has_value();
      if (!any) continue;
      if (t.inner) {  // checkpoint: its residuals (saved or recomputed here), then its backward
        std::vector<Value> bargs;
        for (const Value& v : t.res) bargs.push_back(need(v));
        // An output that is one of the checkpoint's operands (a body returning its input) or an
        // earlier output (a body returning a value twice) shares that variable, whose cotangent
        // already holds every use: passing it through the body again would count it twice.
        std::set<int64_t> aliased;
        for (const Value& v : t.in)
          if (!v.atom().is_literal()) aliased.insert(v.atom().var->id);
        for (size_t j = 0; j < t.out.size(); ++j) {
          const bool again = !t.out[j].atom().is_literal() && !aliased.insert(t.out[j].atom().var->id).second;
          bargs.push_back(oc[j] && !again ? *oc[j] : zeros(B, t.out[j].type()));
        }
        std::vector<Value> ins_ct = inline_program(B, t.inner->backward, bargs);
        for (size_t j = 0, c = 0; j < t.in.size(); ++j)
          if (t.inner->wrt[j]) accumulate(t.in[j], ins_ct[c++]);
        r.recompute.add(t.inner->recompute);
        continue;
      }
      const ScanSplit& s = *t.scan;  // scan: the operands it reads, its stacked residuals
      std::vector<Value> consts, xs, st;
      std::vector<AType> out_types;
      for (size_t i : s.used_consts) consts.push_back(need(t.in[i]));
      for (size_t i : s.used_xs) xs.push_back(need(t.in[s.nc + s.nk + i]));
      for (const Value& v : t.res) st.push_back(need(v));
      if (s.replay() && !s.carries.empty())  // the carries entering each step, rebuilt
        for (const Value& c : replay_of(t).entering) st.push_back(c);
      for (const Value& o : t.out) out_types.push_back(o.type());
      std::vector<std::optional<Value>> ins_ct = emit_backward_scan(B, s, consts, xs, st, oc, out_types);
      for (size_t j = 0; j < ins_ct.size(); ++j)
        if (ins_ct[j]) accumulate(t.in[j], *ins_ct[j]);
      r.recompute.add(s.body->recompute, s.length);  // the body's recompute, every step
      continue;
    }
    const Eqn& fe = F.eqns()[t.feqn];
    VjpArgs va;
    va.builder = &B;
    bool any = false;
    for (const Var& o : fe.out) {
      va.out_types.push_back(o->type);
      any |= va.cts.emplace_back(ct_of(Value(&F, o))).has_value();
    }
    if (!any) continue;
    if (!fe.prim->vjp)
      throw_unsupported(cat("vjp: ", fe.prim->name, " has no reverse-mode rule"),
                        "keep it off the differentiated path or add a rule in engine/prims/vjp_rules*.cc");
    for (const Atom& a : fe.in) {
      va.in_types.push_back(a.type());
      va.in_literal.push_back(a.is_literal());
    }
    va.primal_in = [&, feqn = t.feqn](size_t i) { return need(Value(&F, F.eqns()[feqn].in.at(i))); };
    va.primal_out = [&, feqn = t.feqn](size_t i) { return need(Value(&F, F.eqns()[feqn].out.at(i))); };
    std::vector<std::optional<Value>> ins_ct = fe.prim->vjp(va, fe.params);
    TANDEM_CHECK(ins_ct.size() == fe.in.size(), fe.prim->name, " vjp returned ", ins_ct.size(), " cotangents");
    for (size_t j = 0; j < ins_ct.size(); ++j)
      if (ins_ct[j] && !fe.in[j].is_literal()) accumulate(Value(&F, fe.in[j]), *ins_ct[j]);
  }
  // A replayed scan's body: what the policy saves on the path of its carries and of the ys it
  // rebuilds is saved too (the replay reads it, scan_replay.h), as JAX's staged scan
  // recomputes the primal carries and ys from the residuals.
  std::unordered_set<int64_t> reached;
  std::function<void(const Value&)> reach = [&](const Value& fv) {
    const Atom& a = fv.atom();
    if (a.is_literal() || bvals.count(a.var->id) || !reached.insert(a.var->id).second) return;
    bool keep = saved_root.count(root_of(a.var->id));  // or it, or a name of its buffer, saved
    for (int64_t m : buffer.at(root_of(a.var->id))) keep = keep || decide(m) != Remat::recompute;
    if (keep) need(fv);  // a residual: emits nothing in the backward
    else for (const Atom& in : F.eqns()[size_t(producer.at(a.var->id))].in) reach(Value(&F, in));
  };
  bool replayed = false;  // the backward reads a carry: the replay rebuilds them all
  for (size_t i = 0; i < carries.second; ++i) replayed |= bvals.count(fenv.at(p.in_vars[carries.first + i]->id).atom().var->id) > 0;
  for (bool b : opts.rebuild) replayed |= b;  // the replay runs: it rebuilds every carry
  for (size_t i = 0; replayed && i < carries.second; ++i) reach(fouts[i]);
  for (size_t i = carries.second; i < opts.rebuild.size(); ++i)
    if (opts.rebuild[i]) reach(fouts[i]);
  std::vector<Value> bouts;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    if (!wrt[i]) continue;
    if (!is_floating(p.in_vars[i]->type.dtype))
      throw_bad_input(cat("vjp: input ", i, " is ", p.in_vars[i]->type.str(), ", not differentiable"),
                      "pass wrt=false for integer and bool inputs");
    std::optional<Value> c = ct_of(fenv.at(p.in_vars[i]->id));
    bouts.push_back(c ? *c : zeros(B, p.in_vars[i]->type));
  }
  r.backward = B.build(bouts);
  r.backward.in_vars = res_vars;
  r.backward.in_vars.insert(r.backward.in_vars.end(), ct_vars.begin(), ct_vars.end());
  for (const Value& v : res_fvals) fouts.push_back(v);
  r.forward = F.build(fouts);
  return r;
}

// A level's linearization: a round that finds a scan output its replay does not rebuild asks
// for it in the next (monotone: the outputs are finitely many).
VjpProgram linearize(const Program& p, const std::vector<bool>& wrt, const Policy& pol, const LevelOpts& o) {
  ScanNeeds needs;
  for (;;) {
    ScanNeeds missed;
    VjpProgram r = linearize_once(p, wrt, pol, o, needs, missed);
    if (missed.empty()) return r;
    for (auto& [e, m] : missed) {
      std::vector<bool>& n = needs[e];
      n.resize(m.size());
      for (size_t i = 0; i < m.size(); ++i) n[i] = n[i] || m[i];
    }
  }
}
}  // namespace

VjpProgram vjp(const Program& p, std::vector<bool> wrt, const Policy& top_policy) {
  if (wrt.empty()) wrt = floating_inputs(p);
  if (wrt.size() != p.in_vars.size())
    throw_bad_input(cat("vjp: ", wrt.size(), " wrt flags for ", p.in_vars.size(), " inputs"));
  LevelOpts top;  // a top-level policy that saves less puts the program under remat, as
                 // jax.checkpoint(f, policy) does
  top.in_remat = top.top_remat = top_policy.spec != everything_saveable().spec;
  VjpProgram r = linearize(p, wrt, top_policy, top);
  place_offloads(r);  // the transfers of what the policy offloads (offload.h)
  typecheck_after_pass(r.forward, "vjp");
  typecheck_after_pass(r.backward, "vjp");
  return r;
}

}  // namespace tandem
