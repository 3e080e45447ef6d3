// Rewrite for hoist_scan_reductions. Partials keep the reduced axes as size-1 dims ("keepdims",
// as the seed's broadcast does), so each original reduce_sum stays valid with its own axes
// and output var: it only reads the small partial instead of the stacked ys. Operands the
// body lacks enter as extra consts (scalars) or extra xs (stacked along the scan axis).
#include "engine/passes/hoist_rewrite.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/ir/primitive.h"
#include "engine/passes/pass_typecheck.h"

namespace tandem::hoist {

Var emit(std::vector<Eqn>& eqns, const std::string& prim, std::vector<Atom> in, Params params, Var out) {
  Eqn e;
  e.prim = &primitive(prim);
  std::vector<AType> types;
  for (const Atom& a : in) types.push_back(a.type());
  std::vector<AType> outs = e.prim->shape(types, params);
  TANDEM_CHECK(outs.size() == 1, prim, " has ", outs.size(), " outputs");
  if (!out) out = new_var(outs[0]);
  TANDEM_CHECK(out->type == outs[0], prim, " gives ", outs[0].str(), ", expected ", out->type.str());
  e.in = std::move(in);
  e.out = {out};
  e.params = std::move(params);
  eqns.push_back(std::move(e));
  return out;
}

namespace {

Shape drop_first(const Shape& s) { return Shape(s.begin() + 1, s.end()); }
Shape prepend(int64_t d, const Shape& s) {
  Shape r{d};
  r.insert(r.end(), s.begin(), s.end());
  return r;
}

// What one scan gains: the pieces are spliced into the body and the scan eqn at the end.
struct Extension {
  const Eqn& scan;
  const Program& body;
  size_t nc, nk;
  int64_t length;
  std::unordered_map<int64_t, Atom> to_body;  // outer var id → what the body reads instead
  std::vector<Var> const_in, carry_in, x_in, carry_final, ys_outer;
  std::vector<Atom> const_outer, carry_init, carry_out, x_outer, ys_body;
  std::vector<Eqn> body_eqns, before_scan, after_scan;
  std::map<size_t, std::vector<Eqn>> replace;  // outer reduce_sum → what finishes it
  std::unordered_set<size_t> moved;            // outer chain eqns now in the body

  Extension(const Eqn& s, const Program& b)
      : scan(s), body(b), nc(size_t(s.params.get_int("num_consts"))),
        nk(size_t(s.params.get_int("num_carry"))), length(s.params.get_int("length")) {
    // What the body already reads: its xs (one step of a stacked value) and its scalar consts.
    // A const of higher rank is the whole value in the body, while a chain operand of that
    // rank means one step of it (body_atom adds it as an xs): it is not reused.
    for (size_t i = 0; i < s.in.size(); ++i) {
      const bool scalar_const = i < nc && s.in[i].type().rank() == 0;
      if ((scalar_const || i >= nc + nk) && !s.in[i].is_literal()) to_body.emplace(s.in[i].var->id, b.in_vars[i]);
    }
    for (size_t i = nk; i < s.out.size(); ++i) to_body.emplace(s.out[i]->id, b.out_vars[i]);
  }

  Atom body_atom(const Atom& a) {
    if (a.is_literal()) return a;
    if (auto it = to_body.find(a.var->id); it != to_body.end()) return it->second;
    const AType& t = a.var->type;
    Var v;
    if (t.rank() == 0) {  // a scalar from outside: one more const
      v = new_var(t);
      const_in.push_back(v);
      const_outer.push_back(a);
    } else {              // stacked along the scan axis (the analysis checked): one more xs
      v = new_var(AType{drop_first(t.shape), t.dtype});
      x_in.push_back(v);
      x_outer.push_back(a);
    }
    to_body.emplace(a.var->id, v);
    return v;
  }

  std::string add_group(const Program& p, size_t ys, const Group& g, const HoistOptions& opts) {
    Atom value = body.out_vars[nk + ys];
    std::string moved_ops;
    for (size_t e : g.chain) {
      const Eqn& eqn = p.eqns[e];
      std::vector<Atom> in;
      for (const Atom& a : eqn.in) in.push_back(body_atom(a));
      value = emit(body_eqns, eqn.prim->name, in, eqn.params);
      to_body[eqn.out[0]->id] = value;
      moved.insert(e);
      moved_ops += eqn.prim->name + ", ";
    }
    DType vt = value.type().dtype, acc = vt;
    if (opts.accumulate_dtype && is_floating(vt) && is_floating(*opts.accumulate_dtype)) acc = *opts.accumulate_dtype;
    if (acc != vt) value = emit(body_eqns, "convert_element_type", {value}, {{"new_dtype", acc}});
    Shape keep = value.type().shape;
    for (int64_t a : g.body_axes) keep[size_t(a)] = 1;
    if (!g.body_axes.empty()) {
      value = emit(body_eqns, "reduce_sum", {value}, {{"axes", g.body_axes}});
      value = emit(body_eqns, "reshape", {value}, {{"new_sizes", keep}});
    }
    Atom partial;  // outer value with the ys' rank that the reductions now read
    std::string where;
    if (g.in_carry) {
      Var acc_in = new_var(AType{keep, acc});
      carry_in.push_back(acc_in);
      carry_out.push_back(emit(body_eqns, "add", {acc_in, value}, {}));
      carry_init.push_back(emit(before_scan, "broadcast_in_dim", {Literal{0.0, acc}},
                                {{"shape", keep}, {"broadcast_dimensions", std::vector<int64_t>{}}}));
      Var fin = new_var(AType{keep, acc});
      carry_final.push_back(fin);
      partial = emit(after_scan, "reshape", {fin}, {{"new_sizes", prepend(1, keep)}});
      where = cat("accumulates ", fin->type.str(), " in a carry");
    } else {
      ys_body.push_back(value);
      Var st = new_var(AType{prepend(length, keep), acc});
      ys_outer.push_back(st);
      partial = st;
      where = cat("stacks ", st->type.str());
    }
    for (size_t r : g.reductions) {
      const Eqn& red = p.eqns[r];
      const Var& out = red.out[0];
      std::vector<Eqn>& rep = replace[r];
      if (acc == out->type.dtype) {
        emit(rep, "reduce_sum", {partial}, red.params, out);
      } else {
        Var wide = emit(rep, "reduce_sum", {partial}, red.params);
        emit(rep, "convert_element_type", {wide}, {{"new_dtype", out->type.dtype}}, out);
      }
    }
    std::string per_step = g.body_axes.empty() ? "nothing reduced per step"
                                               : cat("reduce_sum over body axes {", shape_str(g.body_axes), "}");
    return cat("moved ", moved_ops, per_step, " into the body; ", where, " instead of ", scan.out[nk + ys]->type.str(),
               "; ", g.reductions.size(), " reduce_sum(s) finish outside");
  }
};

// Fault hoist_drops_final_scaling: a mul/div that scales a hoisted reduction's result becomes
// the identity (a rewrite that forgot the mean's 1/n). True when `e` is such a scaling.
bool dropped_scaling(const Program& p, const Extension& x, const Eqn& e, Eqn& identity) {
  if ((e.prim->name != "div" && e.prim->name != "mul") || e.in[0].is_literal() || e.in[0].type() != e.out[0]->type)
    return false;
  bool scales_reduction = false;
  for (const auto& [r, finish] : x.replace) scales_reduction |= p.eqns[r].out[0]->id == e.in[0].var->id;
  if (!scales_reduction) return false;
  identity = e;
  identity.prim = &primitive("convert_element_type");
  identity.in = {e.in[0]};
  identity.params = {{"new_dtype", e.in[0].type().dtype}};
  return true;
}

template <class T>
void append(std::vector<T>& dst, const std::vector<T>& src) { dst.insert(dst.end(), src.begin(), src.end()); }

}  // namespace

Program remove_dead_eqns(const Program& p) {
  std::unordered_set<int64_t> live;
  for (const Atom& a : p.out_vars)
    if (!a.is_literal()) live.insert(a.var->id);
  std::vector<bool> keep(p.eqns.size(), false);
  for (size_t e = p.eqns.size(); e-- > 0;) {
    for (const Var& v : p.eqns[e].out) keep[e] = keep[e] || live.count(v->id) > 0;
    if (!keep[e]) continue;
    for (const Atom& a : p.eqns[e].in)
      if (!a.is_literal()) live.insert(a.var->id);
  }
  Program r{p.in_vars, {}, p.out_vars};
  for (size_t e = 0; e < p.eqns.size(); ++e)
    if (keep[e]) r.eqns.push_back(p.eqns[e]);
  return r;
}

ScanRewrite rewrite_scan(const Program& p, size_t s, const std::vector<YsPlan>& plans, const HoistOptions& opts) {
  const Eqn& scan = p.eqns[s];
  const Program& body = *scan.params.get_program("body");
  Extension x(scan, body);
  ScanRewrite r;
  for (const YsPlan& plan : plans)
    for (const Group& g : plan.groups) r.details.push_back(x.add_group(p, plan.ys, g, opts));

  // Outer equations after the scan: chains gone, reductions finished from the partials.
  std::vector<Eqn> post;
  const bool drop_scaling = fault_on(Fault::hoist_drops_final_scaling);
  for (size_t e = s + 1; e < p.eqns.size(); ++e) {
    Eqn identity;
    if (x.moved.count(e)) continue;
    if (auto it = x.replace.find(e); it != x.replace.end()) append(post, it->second);
    else if (drop_scaling && dropped_scaling(p, x, p.eqns[e], identity)) post.push_back(identity);  // fault
    else post.push_back(p.eqns[e]);
  }
  // A ys nobody reads any more is dropped, so the scan no longer allocates L × its size.
  std::unordered_set<int64_t> read;
  for (const Eqn& e : post)
    for (const Atom& a : e.in)
      if (!a.is_literal()) read.insert(a.var->id);
  for (const Atom& a : p.out_vars)
    if (!a.is_literal()) read.insert(a.var->id);

  // The body's inputs and the scan's, each group (consts, carries, xs) followed by the new ones of its kind.
  auto splice = [&](auto& dst, const auto& old, const auto& consts, const auto& carries, const auto& xs) {
    const auto at = [&](size_t i) { return old.begin() + long(i); };
    dst.insert(dst.end(), at(0), at(x.nc));
    append(dst, consts);
    dst.insert(dst.end(), at(x.nc), at(x.nc + x.nk));
    append(dst, carries);
    dst.insert(dst.end(), at(x.nc + x.nk), old.end());
    append(dst, xs);
  };
  Program nb;
  splice(nb.in_vars, body.in_vars, x.const_in, x.carry_in, x.x_in);
  nb.eqns = body.eqns;
  append(nb.eqns, x.body_eqns);
  Eqn ns;
  ns.prim = scan.prim;
  splice(ns.in, scan.in, x.const_outer, x.carry_init, x.x_outer);
  nb.out_vars.assign(body.out_vars.begin(), body.out_vars.begin() + long(x.nk));
  append(nb.out_vars, x.carry_out);
  ns.out.assign(scan.out.begin(), scan.out.begin() + long(x.nk));
  append(ns.out, x.carry_final);
  for (size_t i = x.nk; i < scan.out.size(); ++i)
    if (read.count(scan.out[i]->id)) {
      nb.out_vars.push_back(body.out_vars[i]);
      ns.out.push_back(scan.out[i]);
    }
  append(nb.out_vars, x.ys_body);
  append(ns.out, x.ys_outer);
  ns.params = scan.params;
  ns.params.set("body", std::make_shared<const Program>(remove_dead_eqns(nb)));
  ns.params.set("num_consts", int64_t(x.nc + x.const_in.size()));
  ns.params.set("num_carry", int64_t(x.nk + x.carry_in.size()));

  r.program.in_vars = p.in_vars;
  r.program.out_vars = p.out_vars;
  r.program.eqns.assign(p.eqns.begin(), p.eqns.begin() + long(s));
  append(r.program.eqns, x.before_scan);
  r.scan_index = r.program.eqns.size();
  r.program.eqns.push_back(std::move(ns));
  append(r.program.eqns, x.after_scan);
  append(r.program.eqns, post);
  return r;
}

// The enclosing level goes first: hoisting an outer scan moves work into its body, where an inner scan may take it.
static void hoist_levels(Program& p, bool recurse, const std::string& path, HoistResult& r, const HoistLevel& level) {
  level(p, path, r);
  if (!recurse) return;
  int scan_number = 0;
  for (size_t i = 0; i < p.eqns.size(); ++i) {
    Eqn& e = p.eqns[i];
    std::string label = e.prim->name == "scan" ? cat("scan#", scan_number++) : cat(e.prim->name, "@", i);
    std::vector<std::pair<std::string, ProgramPtr>> subs;
    for (const auto& [key, param] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&param)) subs.emplace_back(key, *sub);
    for (auto& [key, sub] : subs) {
      Program inner = *sub;
      const int before = r.rewrites;
      hoist_levels(inner, recurse, cat(path, label, "/", key, ": "), r, level);
      if (r.rewrites != before) e.params.set(key, std::make_shared<const Program>(std::move(inner)));
    }
  }
}

HoistResult run_hoist_pass(const Program& program, bool recurse, const std::string& pass, const HoistLevel& level) {
  HoistResult r;
  r.program = program;
  hoist_levels(r.program, recurse, "", r, level);
  typecheck_after_pass(r.program, pass);
  r.log = note_strings(r.notes);
  return r;
}

}  // namespace tandem::hoist
