// The vjp pass: linearize one level (a program under one policy), recursing into checkpoint
// and scan bodies. See vjp.h for the forward/backward split and how residuals are chosen.
// This file: the level's forward copy and buffers, the fixed point over the scans' replays
// and the pass's entry; the backward steps are in vjp_backward.cc (vjp_linearize.h).
#include "engine/passes/vjp.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/passes/offload.h"
#include "engine/passes/pass_typecheck.h"
#include "engine/passes/vjp_linearize.h"

namespace tandem {
namespace vjp_detail {

void Linearizer::mark_active(const std::vector<Value>& args, const std::vector<Value>& outs) {
  bool any = false;
  for (const Value& a : args) any = any || active(a);
  for (const Value& o : outs)
    if (any && !o.atom().is_literal() && is_floating(o.dtype())) active_.insert(o.atom().var->id);
}

// The forward: the equations copied, each checkpoint's own forward inlined and each scan split.
void Linearizer::forward() {
  for (size_t i = 0; i < p_.in_vars.size(); ++i) {
    Value v = F.input(p_.in_vars[i]->type.shape, p_.in_vars[i]->type.dtype);
    fenv[p_.in_vars[i]->id] = v;
    if (wrt_[i] && is_floating(v.dtype())) active_.insert(v.atom().var->id);
    producer[v.atom().var->id] = -1 - int64_t(i);
    var_of[v.atom().var->id] = v.atom().var;
  }
  for (size_t ei = 0; ei < p_.eqns.size(); ++ei) {
    const Eqn& e = p_.eqns[ei];
    std::vector<Value> args;
    for (const Atom& a : e.in) args.push_back(fval(a));
    Task t;
    std::vector<Value> outs;
    size_t before = F.eqns().size();
    if (e.prim->has(kRemat)) {
      forward_checkpoint(e, args, t, outs);
    } else if (e.prim->has(kLoop)) {
      forward_scan(ei, e, args, t, outs);
    } else {
      outs = F.bind(e.prim->name, args, e.prim->vjp_forward_params ? e.prim->vjp_forward_params(e.params) : e.params);
      t.feqn = F.eqns().size() - 1;
    }
    mark_new(before);
    mark_active(args, outs);
    t.in = args;
    t.out = outs;
    for (size_t k = 0; k < e.out.size(); ++k) fenv[e.out[k]->id] = outs[k];  // outs may have more (a reserve)
    tasks.push_back(std::move(t));
  }
  for (const Atom& a : p_.out_vars) fouts.push_back(fval(a));
}

// A checkpoint: its body linearized, the body's forward inlined here. Its own policy rules
// only where no enclosing checkpoint (nor a top-level policy) does: under remat the
// enclosing policy decides inside it too, as JAX's partial evaluation passes the enclosing
// `saveable` down into a nested checkpoint ("outer policy wins"). Its operands no
// differentiated input reaches are not differentiated inside.
void Linearizer::forward_checkpoint(const Eqn& e, const std::vector<Value>& args, Task& t, std::vector<Value>& outs) {
  const Program& body = *e.params.get_program("body");
  Policy own = policy_from_string(e.params.get_string("policy", "nothing_saveable"));
  if (!opts_.in_remat) check_names(own, body);
  const Policy& inner_pol = opts_.in_remat ? pol_ : own;
  LevelOpts io;
  io.level = Level::checkpoint;
  io.in_remat = true;
  t.inner = std::make_shared<VjpProgram>(linearize(body, active_of(args), inner_pol, io));
  std::vector<Value> all = inline_program(F, t.inner->forward, args);
  outs.assign(all.begin(), all.begin() + int64_t(body.out_vars.size()));
  t.res.assign(all.begin() + int64_t(body.out_vars.size()), all.end());
  for (size_t j = 0; j < t.res.size(); ++j)
    if (!t.res[j].atom().is_literal() && !t.inner->residuals[j].is_argument)
      inner_res.emplace(t.res[j].atom().var->id, t.inner->residuals[j]);
}

// A scan: its body split under this level's policy (JAX recurses with the same policy), the
// forward scan stacking the residuals the body saves.
void Linearizer::forward_scan(size_t ei, const Eqn& e, const std::vector<Value>& args, Task& t,
                              std::vector<Value>& outs) {
  const Program& body = *e.params.get_program("body");
  const bool replay = opts_.in_remat && !fault_on(Fault::remat_scan_carries_stacked);  // fault: carries saved
  LevelOpts bo;
  bo.level = Level::scan_body;
  bo.in_remat = opts_.in_remat;
  bo.top_remat = opts_.top_remat;
  bo.carries = {size_t(e.params.get_int("num_consts")), replay ? size_t(e.params.get_int("num_carry")) : 0};
  if (auto n = needs_.find(ei); replay && n != needs_.end()) bo.rebuild = n->second;
  VjpProgram lin = linearize(body, scan_wrt(e, args), pol_, bo);
  // When the replay runs (it rebuilds a carry or an output), it also stacks what the backward
  // scan reads, which then recomputes nothing (JAX's transposed remat runs the primal scan
  // once). Without a replay the backward scan recomputes per step, once, and holds no stack.
  if (replay && split_scan(e.params, lin, true, bo.rebuild).replay() &&
      !fault_on(Fault::remat_scan_recomputes_twice)) {  // fault: the backward scan recomputes too
    bo.replayed = true;
    lin = linearize(body, scan_wrt(e, args), pol_, bo);
  }
  t.scan = std::make_shared<ScanSplit>(split_scan(e.params, std::move(lin), replay, bo.rebuild));
  const ScanSplit& s = *t.scan;
  if (s.hoist_forward.program) {  // the saved loop-invariant residuals, once, before the loop
    std::vector<Value> hc;
    for (size_t i : s.hoist_forward.consts) hc.push_back(args[i]);
    t.hoisted = inline_program(F, *s.hoist_forward.program, hc);
  }
  std::vector<Value> all = emit_forward_scan(s, args);
  t.feqn = F.eqns().size() - 1;
  t.replays = replay;
  scan_task.emplace(t.feqn, tasks.size());
  outs.assign(all.begin(), all.begin() + int64_t(e.out.size()));
  t.res.assign(all.begin() + int64_t(e.out.size()), all.end());
  for (size_t h = 0; h < t.hoisted.size(); ++h) {
    Residual res = s.body->residuals[s.hoisted[h]];
    res.source = cat(res.source, ", loop-invariant over ", s.length, " scan steps: saved once");
    if (!t.hoisted[h].atom().is_literal()) stacked.emplace(t.hoisted[h].atom().var->id, res);
  }
  for (size_t k = 0; k < t.res.size(); ++k) {
    Residual res = s.body->residuals[s.stacked[k]];
    res.type = t.res[k].type();
    res.is_argument = false;
    std::string what = s.body->residuals[s.stacked[k]].is_argument ? "the carry entering each step" : res.source;
    res.source = cat(what, ", stacked over ", s.length, " scan steps");
    stacked.emplace(t.res[k].atom().var->id, res);
  }
}

// A scan body's differentiated inputs: the consts and xs a differentiated input reaches, and
// every floating carry (a carry may become active inside the loop; an integer one, such as
// fori_loop's counter, gets no cotangent).
std::vector<bool> Linearizer::scan_wrt(const Eqn& e, const std::vector<Value>& args) const {
  const Program& body = *e.params.get_program("body");
  const size_t nc = size_t(e.params.get_int("num_consts")), nk = size_t(e.params.get_int("num_carry"));
  std::vector<bool> w = floating_inputs(body);
  for (size_t i = 0; i < w.size(); ++i)
    if (i < nc || i >= nc + nk) w[i] = w[i] && active(args[i]);
  return w;
}

// Buffers: an annotation (checkpoint_name) is the identity, so a value and its names are one
// buffer. The policy may save it under any of them (save_only_these_names(probs) saves the
// quotient a rule reads through its name), and it is saved once.
void Linearizer::group_buffers() {
  for (const Eqn& q : F.eqns())
    for (const Var& v : q.out) var_of[v->id] = v;
  for (auto& [id, v] : var_of) buffer[root_of(id)].push_back(id);
  for (auto& [root, ids] : buffer) std::sort(ids.begin(), ids.end());
}

int64_t Linearizer::root_of(int64_t id) const {
  for (int64_t k = producer.at(id); k >= 0 && F.eqns()[size_t(k)].prim->has(kAnnotation);) {
    const Atom& src = F.eqns()[size_t(k)].in[0];
    if (src.is_literal()) break;
    id = src.var->id;
    k = producer.at(id);
  }
  return id;
}

Remat Linearizer::decide(int64_t id) const {
  if (auto s = stacked.find(id); s != stacked.end()) return s->second.offloaded ? Remat::offload : Remat::save;
  int64_t k = producer.at(id);
  if (k < 0 || fault_on(Fault::remat_policy_saves_everything)) return Remat::save;  // fault: policy ignored
  return pol_(F.eqns()[size_t(k)]);
}

VjpProgram linearize(const Program& p, const std::vector<bool>& wrt, const Policy& pol, const LevelOpts& o) {
  ScanNeeds needs;
  for (;;) {
    ScanNeeds missed;
    VjpProgram r = Linearizer(p, wrt, pol, o, needs, missed).run();
    if (missed.empty()) return r;
    for (auto& [e, m] : missed) {
      std::vector<bool>& n = needs[e];
      n.resize(m.size());
      for (size_t i = 0; i < m.size(); ++i) n[i] = n[i] || m[i];
    }
  }
}
}  // namespace vjp_detail
using namespace vjp_detail;

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
