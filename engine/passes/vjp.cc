// The vjp pass: linearize one level (a program under one policy), recursing into checkpoint
// bodies. See vjp.h for the forward/backward split and how residuals are chosen.
#include "engine/passes/vjp.h"

#include <algorithm>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/passes/pass_typecheck.h"

namespace tandem {

void RecomputeStats::add(const RecomputeStats& o) {
  eqns += o.eqns;
  flops += o.flops;
  for (auto& [k, v] : o.by_prim) by_prim[k] += v;
}

Value zeros(Builder& b, const AType& t) {
  Value z = b.literal(0, t.dtype);
  return t.rank() == 0 ? z : broadcast_in_dim(z, t.shape, {});
}

Value VjpArgs::ct(size_t i) const { return cts.at(i) ? *cts[i] : zeros(*builder, out_types.at(i)); }

double eqn_flops(const Eqn& e) {
  double n = 0;
  for (const Var& v : e.out) n += double(num_elements(v->type.shape));
  if (e.prim->name == "dot_general") {
    double k = 1;
    for (int64_t d : e.params.get_ints("lhs_contracting_dimensions")) k *= double(e.in[0].type().shape[size_t(d)]);
    return 2 * n * k;
  }
  return n;
}

std::vector<Value> inline_program(Builder& b, const Program& p, const std::vector<Value>& in) {
  TANDEM_CHECK(in.size() == p.in_vars.size(), "inline_program: arity");
  std::unordered_map<int64_t, Value> env;
  for (size_t i = 0; i < in.size(); ++i) env[p.in_vars[i]->id] = in[i];
  auto val = [&](const Atom& a) { return a.is_literal() ? b.literal(a.literal->value, a.literal->dtype) : env.at(a.var->id); };
  for (const Eqn& e : p.eqns) {
    std::vector<Value> args;
    for (const Atom& a : e.in) args.push_back(val(a));
    std::vector<Value> outs = b.bind(e.prim->name, args, e.params);
    for (size_t k = 0; k < outs.size(); ++k) env[e.out[k]->id] = outs[k];
  }
  std::vector<Value> r;
  for (const Atom& a : p.out_vars) r.push_back(val(a));
  return r;
}

namespace {

struct Task {
  size_t feqn = 0;                       // regular: index of its forward eqn
  std::shared_ptr<VjpProgram> inner;     // checkpoint: the body's linearization
  std::vector<Value> in, out, res;       // checkpoint: forward operands, outputs, residuals
};

std::vector<bool> floating_inputs(const Program& p) {
  std::vector<bool> w;
  for (const Var& v : p.in_vars) w.push_back(is_floating(v->type.dtype));
  return w;
}

void check_names(const Policy& pol, const Program& body) {
  if (pol.names.empty()) return;
  std::vector<std::string> have = names_in(body);
  for (const std::string& n : pol.names)
    if (std::find(have.begin(), have.end(), n) == have.end())
      throw_bad_input(cat("checkpoint policy ", pol.spec, " names '", n, "' but the body has ",
                          have.empty() ? std::string("no named values") : cat(have.size(), " named values, none so named")),
                      "name values with checkpoint_name(x, \"name\") inside the checkpointed body");
}

VjpProgram linearize(const Program& p, const std::vector<bool>& wrt, const Policy& pol, bool top,
                     const VjpOptions& opt) {
  for (size_t i = 0; i < p.out_vars.size(); ++i)
    if (!is_floating(p.out_vars[i].type().dtype))
      throw_bad_input(cat(top ? "vjp" : "checkpoint", ": output ", i, " is ", p.out_vars[i].type().str(),
                          ", which is not differentiable"),
                      "differentiate only floating outputs (move integer/bool results out of the checkpoint)");
  // ---- forward: copy the equations, inlining each checkpoint's own forward -------------
  Builder F;
  std::unordered_map<int64_t, Value> fenv;
  std::unordered_map<int64_t, int64_t> producer;  // forward var id -> eqn index (-1-i: input i)
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    Value v = F.input(p.in_vars[i]->type.shape, p.in_vars[i]->type.dtype);
    fenv[p.in_vars[i]->id] = v;
    producer[v.atom().var->id] = -1 - int64_t(i);
  }
  auto fval = [&](const Atom& a) { return a.is_literal() ? F.literal(a.literal->value, a.literal->dtype) : fenv.at(a.var->id); };
  std::vector<Task> tasks;
  std::unordered_map<int64_t, Residual> inner_res;  // inner residuals keep their name and pool
  for (const Eqn& e : p.eqns) {
    std::vector<Value> args;
    for (const Atom& a : e.in) args.push_back(fval(a));
    Task t;
    std::vector<Value> outs;
    if (e.prim->name == "checkpoint") {
      const Program& body = *e.params.get_program("body");
      Policy inner_pol = policy_from_string(e.params.get_string("policy", "nothing_saveable"));
      check_names(inner_pol, body);
      t.inner = std::make_shared<VjpProgram>(linearize(body, floating_inputs(body), inner_pol, false, opt));
      size_t before = F.eqns().size();
      std::vector<Value> all = inline_program(F, t.inner->forward, args);
      for (size_t k = before; k < F.eqns().size(); ++k)
        for (const Var& v : F.eqns()[k].out) producer[v->id] = int64_t(k);
      outs.assign(all.begin(), all.begin() + int64_t(body.out_vars.size()));
      t.res.assign(all.begin() + int64_t(body.out_vars.size()), all.end());
      for (size_t j = 0; j < t.res.size(); ++j)
        if (!t.res[j].atom().is_literal() && !t.inner->residuals[j].is_argument)
          inner_res.emplace(t.res[j].atom().var->id, t.inner->residuals[j]);
      t.in = args;
      t.out = outs;
    } else {
      outs = F.bind(e.prim->name, args, e.params);
      t.feqn = F.eqns().size() - 1;
      for (const Value& v : outs) producer[v.atom().var->id] = int64_t(t.feqn);
    }
    for (size_t k = 0; k < outs.size(); ++k) fenv[e.out[k]->id] = outs[k];
    tasks.push_back(std::move(t));
  }
  std::vector<Value> fouts;
  for (const Atom& a : p.out_vars) fouts.push_back(fval(a));

  // ---- backward ----------------------------------------------------------------------
  VjpProgram r;
  r.wrt = wrt;
  r.num_outputs = fouts.size();
  Builder B;
  std::vector<Var> ct_vars, res_vars;
  std::vector<Value> res_fvals;
  std::unordered_map<int64_t, Value> bvals, cts;  // keyed by forward var id
  std::unordered_map<int64_t, int> roots;         // buffer root -> first residual holding it
  // A primal value in the backward: saved (a new residual) or recomputed from its inputs.
  std::function<Value(const Value&)> need = [&](const Value& fv) -> Value {
    const Atom& a = fv.atom();
    if (a.is_literal()) return B.literal(a.literal->value, a.literal->dtype);
    int64_t id = a.var->id;
    if (auto it = bvals.find(id); it != bvals.end()) return it->second;
    int64_t k = producer.at(id);
    const Eqn* pe = k >= 0 ? &F.eqns()[size_t(k)] : nullptr;
    Remat how = pe ? pol(*pe) : Remat::save;
    if (how != Remat::recompute) {
      Value bv = B.input(a.var->type.shape, a.var->type.dtype);
      Residual res{a.var->type, "", !pe, how == Remat::offload};
      if (!pe) res.source = cat(top ? "from the argument " : "checkpoint input ", -1 - k);
      else if (std::string n = eqn_name(*pe); !n.empty()) res.source = cat("named '", n, "'");
      else res.source = cat("output of ", pe->prim->name);
      if (auto in = inner_res.find(id); in != inner_res.end()) {
        res.source = in->second.source;
        res.offloaded = res.offloaded || in->second.offloaded;
      }
      int64_t root = id;  // checkpoint_name is the identity: its output is its input's buffer
      for (int64_t pk = k; pk >= 0 && F.eqns()[size_t(pk)].prim->name == "checkpoint_name";) {
        const Atom& src = F.eqns()[size_t(pk)].in[0];
        if (src.is_literal()) break;
        root = src.var->id;
        pk = producer.at(root);
      }
      if (auto al = roots.find(root); al != roots.end()) res.alias_of = al->second;
      else roots[root] = int(r.residuals.size());
      r.residuals.push_back(res);
      res_vars.push_back(bv.atom().var);
      res_fvals.push_back(fv);
      return bvals[id] = bv;
    }
    std::vector<Value> args;
    for (const Atom& in : pe->in) args.push_back(need(Value(&F, in)));
    std::vector<Value> outs = B.bind(pe->prim->name, args, pe->params);
    r.recompute.eqns += 1;
    r.recompute.flops += eqn_flops(*pe);
    r.recompute.by_prim[pe->prim->name] += 1;
    for (size_t j = 0; j < outs.size(); ++j) bvals[pe->out[j]->id] = outs[j];
    return bvals.at(id);
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
    if (fv.atom().is_literal()) return std::nullopt;
    auto it = cts.find(fv.atom().var->id);
    return it == cts.end() ? std::nullopt : std::optional<Value>(it->second);
  };
  // Opt-in full re-run of a checkpointed body: every equation the policy leaves to
  // recompute is re-emitted up front, in forward order, whether its cotangent path is dead
  // or not (see VjpOptions). The lazy `need` below then finds them all already rebuilt.
  if (!top && opt.rerun_whole_checkpoint_body)
    for (const Eqn& fe : F.eqns())
      if (!fe.out.empty() && pol(fe) == Remat::recompute) need(Value(&F, Atom(fe.out[0])));
  for (size_t ti = tasks.size(); ti-- > 0;) {
    Task& t = tasks[ti];
    if (t.inner) {  // checkpoint: its residuals (saved or recomputed here), then its backward
      std::vector<std::optional<Value>> oc;
      bool any = false;
      for (const Value& o : t.out) any |= oc.emplace_back(ct_of(o)).has_value();
      if (!any) continue;
      std::vector<Value> bargs;
      for (const Value& v : t.res) bargs.push_back(need(v));
      for (size_t j = 0; j < t.out.size(); ++j) bargs.push_back(oc[j] ? *oc[j] : zeros(B, t.out[j].type()));
      std::vector<Value> ins_ct = inline_program(B, t.inner->backward, bargs);
      for (size_t j = 0, c = 0; j < t.in.size(); ++j)
        if (t.inner->wrt[j]) accumulate(t.in[j], ins_ct[c++]);
      r.recompute.add(t.inner->recompute);
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
}  // namespace

VjpProgram vjp(const Program& p, std::vector<bool> wrt, const Policy& top_policy,
               const VjpOptions& options) {
  if (wrt.empty()) wrt = floating_inputs(p);
  if (wrt.size() != p.in_vars.size())
    throw_bad_input(cat("vjp: ", wrt.size(), " wrt flags for ", p.in_vars.size(), " inputs"));
  VjpProgram r = linearize(p, wrt, top_policy, true, options);
  typecheck_after_pass(r.forward, "vjp");
  typecheck_after_pass(r.backward, "vjp");
  return r;
}

Program vjp_joint(const Program& p, std::vector<bool> wrt) {
  VjpProgram v = vjp(p, std::move(wrt));
  Builder J;
  std::vector<Value> ins, cts;
  for (const Var& x : p.in_vars) ins.push_back(J.input(x->type.shape, x->type.dtype));
  for (const AType& t : p.out_types()) cts.push_back(J.input(t.shape, t.dtype));
  std::vector<Value> f = inline_program(J, v.forward, ins);
  std::vector<Value> bargs(f.begin() + int64_t(v.num_outputs), f.end());
  bargs.insert(bargs.end(), cts.begin(), cts.end());
  std::vector<Value> g = inline_program(J, v.backward, bargs);
  std::vector<Value> outs(f.begin(), f.begin() + int64_t(v.num_outputs));
  outs.insert(outs.end(), g.begin(), g.end());
  Program joint = J.build(outs);
  typecheck_after_pass(joint, "vjp_joint");
  return joint;
}

VjpRun run_vjp(const VjpProgram& v, const std::vector<Tensor>& inputs,
               const std::vector<Tensor>& output_cts, Device device) {
  Executor ex(device);
  std::vector<Tensor> f = ex.run(v.forward, inputs);
  VjpRun r;
  r.outputs.assign(f.begin(), f.begin() + int64_t(v.num_outputs));
  r.residuals.assign(f.begin() + int64_t(v.num_outputs), f.end());
  f.clear();
  std::vector<Tensor> bargs = r.residuals;
  bargs.insert(bargs.end(), output_cts.begin(), output_cts.end());
  r.cotangents = ex.run(v.backward, bargs);
  return r;
}

}  // namespace tandem
