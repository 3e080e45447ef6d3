// hoist_scan_accumulations (see the header): per scan, match each carry against the pattern
// c_out = add(c_in, dot_general(x, y)) (either order), check the cost estimate, then rebuild
// the scan without the matched carries and finish each sum with one dot_general outside.
// Uses hoist_scan_reductions' helpers: the use lists (hoist::compute_uses), emit (typed by
// the primitive's shape rule) and dead-eqn removal.
#include "engine/passes/hoist_scan_accumulations.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "engine/passes/hoist_analysis.h"
#include "engine/passes/hoist_rewrite.h"
#include "engine/prims/dot_general.h"

namespace tandem {
namespace {

using hoist::emit;

// One matched accumulator carry of the scan.
struct Accumulator {
  size_t carry = 0;          // index among the carries
  size_t add = 0, dot = 0;   // body eqn indices
  std::optional<size_t> transpose;  // a transpose between the dot and the add (as dot's VJP emits)
  bool carry_first = true;   // add(c, dot) rather than add(dot, c)
  int64_t stacked = 0;       // elements per step the body must newly stack for it
};

PassNote decline(const char* reason, std::string detail) { return PassNote{false, reason, "", std::move(detail)}; }

struct ScanView {
  const Eqn& scan;
  const Program& body;
  size_t nc, nk;
  int64_t length;
  hoist::Uses uses;
  explicit ScanView(const Eqn& s)
      : scan(s), body(*s.params.get_program("body")), nc(size_t(s.params.get_int("num_consts"))),
        nk(size_t(s.params.get_int("num_carry"))), length(s.params.get_int("length")),
        uses(hoist::compute_uses(body)) {}

  // Position of `v` among the body's inputs, or -1 when the body computes it.
  int input_index(const Var& v) const {
    for (size_t i = 0; i < body.in_vars.size(); ++i)
      if (body.in_vars[i]->id == v->id) return int(i);
    return -1;
  }
  bool is_xs(const Var& v) const { return input_index(v) >= int(nc + nk); }
  size_t times_output(const Var& v) const {
    return size_t(std::count_if(body.out_vars.begin(), body.out_vars.end(),
                                [&](const Atom& a) { return !a.is_literal() && a.var->id == v->id; }));
  }
};

std::optional<PassNote> match(const ScanView& sv, size_t k, Accumulator& acc) {
  const Var& c_in = sv.body.in_vars[sv.nc + k];
  const Atom& c_out = sv.body.out_vars[k];
  auto def = c_out.is_literal() ? sv.uses.def_eqn.end() : sv.uses.def_eqn.find(c_out.var->id);
  if (def == sv.uses.def_eqn.end()) return decline(kAccNotAnAccumulator, "its new value is not computed by the body");
  const Eqn& add = sv.body.eqns[def->second];
  const bool first = add.in.size() == 2 && !add.in[0].is_literal() && add.in[0].var->id == c_in->id;
  const bool second = add.in.size() == 2 && !add.in[1].is_literal() && add.in[1].var->id == c_in->id;
  if (add.prim->name != "add")
    return decline(kAccNotAnAccumulator, cat("its new value is ", add.prim->name, ", not c + (something)"));
  if (first == second)
    return decline(kAccNotAnAccumulator, first ? "its new value is c + c" : "its new value is an add without c in it");
  const Atom& term = add.in[first ? 1 : 0];
  if (sv.uses.readers_of(c_in).size() != 1 || sv.uses.outputs.count(c_in->id))
    return decline(kAccCarryReadElsewhere, cat("the carry ", c_in->type.str(), " has other readers"));
  if (!sv.uses.readers_of(c_out.var).empty() || sv.times_output(c_out.var) != 1)
    return decline(kAccCarryReadElsewhere, "the updated carry is read in the body or output twice");
  if (term.type() != c_in->type)
    return decline(kAccNotAnAccumulator, cat("the term gives ", term.type().str(), ", the carry is ", c_in->type.str()));
  // term = dot_general(x, y), or transpose(dot_general(x, y)): Σ_t commutes with the transpose.
  std::optional<size_t> transpose;
  Atom d = term;
  for (int hop = 0; hop < 2; ++hop) {
    auto tdef = d.is_literal() ? sv.uses.def_eqn.end() : sv.uses.def_eqn.find(d.var->id);
    if (tdef == sv.uses.def_eqn.end())
      return decline(kAccNotAnAccumulator, "the term added is not a dot_general result");
    if (sv.uses.readers_of(d.var).size() != 1 || sv.uses.outputs.count(d.var->id))
      return decline(kAccDotUsedTwice, "the dot result is read by more than the accumulation");
    const std::string& prim = sv.body.eqns[tdef->second].prim->name;
    if (prim == "dot_general") {
      acc = Accumulator{k, def->second, tdef->second, transpose, first, 0};
      break;
    }
    if (prim != "transpose" || hop == 1)
      return decline(kAccNotAnAccumulator, cat("the term added is ", prim, ", not a dot_general result"));
    transpose = tdef->second;
    d = sv.body.eqns[tdef->second].in[0];
  }
  const Eqn& dot = sv.body.eqns[acc.dot];
  for (size_t o = 0; o < 2; ++o) {
    const Atom& a = dot.in[o];
    if (a.is_literal()) return decline(kAccOperand, "a dot operand is a literal");
    int in = sv.input_index(a.var);
    if (in >= 0 && size_t(in) < sv.nc)
      return decline(kAccOperand, cat("dot operand ", a.var->type.str(), " is a loop-invariant const"));
    if (in < 0 || size_t(in) < sv.nc + sv.nk)  // computed per step, or a carry entering the step
      if (o == 0 || dot.in[1].var->id != dot.in[0].var->id) acc.stacked += num_elements(a.var->type.shape);
  }
  return std::nullopt;
}

std::vector<int64_t> shifted(const std::vector<int64_t>& axes, bool with_scan_axis) {
  std::vector<int64_t> r;
  if (with_scan_axis) r.push_back(0);
  for (int64_t a : axes) r.push_back(a + 1);
  return r;
}

// Rebuilds the scan at `s` without the matched carries; the dots and adds go after it.
Program rewrite(const Program& p, size_t s, const ScanView& sv, const std::vector<Accumulator>& accs) {
  std::vector<bool> dropped(sv.nk, false);
  std::vector<bool> drop_eqn(sv.body.eqns.size(), false);
  for (const Accumulator& a : accs) dropped[a.carry] = true, drop_eqn[a.add] = true;
  // The stacked operand (outside) that each dot operand becomes: an xs operand as it is,
  // anything else a new ys of the body (once per var).
  std::unordered_map<int64_t, Atom> outer;
  std::vector<Atom> new_ys_body;
  std::vector<Var> new_ys_outer;
  auto stacked = [&](const Var& v) -> Atom {
    if (auto it = outer.find(v->id); it != outer.end()) return it->second;
    int in = sv.input_index(v);
    Atom o;
    if (sv.is_xs(v)) {
      o = sv.scan.in[size_t(in)];
    } else {
      Shape sh{sv.length};
      sh.insert(sh.end(), v->type.shape.begin(), v->type.shape.end());
      Var st = new_var(AType{sh, v->type.dtype});
      new_ys_body.push_back(v);
      new_ys_outer.push_back(st);
      o = st;
    }
    outer.emplace(v->id, o);
    return o;
  };
  std::vector<Eqn> after;
  for (const Accumulator& a : accs) {
    const Eqn& dot = sv.body.eqns[a.dot];
    Atom x = stacked(dot.in[0].var), y = stacked(dot.in[1].var);
    DotSignature sig = dot_signature({dot.in[0].type(), dot.in[1].type()}, dot.params);
    Params dp = dot.params;
    dp.set("lhs_contracting_dimensions", shifted(sig.lhs_contract, true));
    dp.set("rhs_contracting_dimensions", shifted(sig.rhs_contract, true));
    dp.set("lhs_batch_dimensions", shifted(sig.lhs_batch, false));
    dp.set("rhs_batch_dimensions", shifted(sig.rhs_batch, false));
    Var sum = emit(after, "dot_general", {x, y}, dp);
    if (a.transpose) sum = emit(after, "transpose", {sum}, sv.body.eqns[*a.transpose].params);
    const Atom& init = sv.scan.in[sv.nc + a.carry];
    std::vector<Atom> terms = a.carry_first ? std::vector<Atom>{init, sum} : std::vector<Atom>{sum, init};
    emit(after, "add", terms, {}, sv.scan.out[a.carry]);  // the scan's old output var, so readers stay
  }
  Program nb;
  Eqn ns;
  ns.prim = sv.scan.prim;
  ns.params = sv.scan.params;
  for (size_t i = 0; i < sv.body.in_vars.size(); ++i) {
    if (i >= sv.nc && i < sv.nc + sv.nk && dropped[i - sv.nc]) continue;
    nb.in_vars.push_back(sv.body.in_vars[i]);
    ns.in.push_back(sv.scan.in[i]);
  }
  for (size_t e = 0; e < sv.body.eqns.size(); ++e)
    if (!drop_eqn[e]) nb.eqns.push_back(sv.body.eqns[e]);
  for (size_t i = 0; i < sv.body.out_vars.size(); ++i) {
    if (i < sv.nk && dropped[i]) continue;
    nb.out_vars.push_back(sv.body.out_vars[i]);
    ns.out.push_back(sv.scan.out[i]);
  }
  nb.out_vars.insert(nb.out_vars.end(), new_ys_body.begin(), new_ys_body.end());
  ns.out.insert(ns.out.end(), new_ys_outer.begin(), new_ys_outer.end());
  ns.params.set("body", std::make_shared<const Program>(hoist::remove_dead_eqns(nb)));
  ns.params.set("num_carry", int64_t(sv.nk - accs.size()));
  Program r{p.in_vars, {}, p.out_vars};
  r.eqns.assign(p.eqns.begin(), p.eqns.begin() + long(s));
  r.eqns.push_back(std::move(ns));
  r.eqns.insert(r.eqns.end(), after.begin(), after.end());
  r.eqns.insert(r.eqns.end(), p.eqns.begin() + long(s) + 1, p.eqns.end());
  return r;
}

void hoist_level(Program& p, const AccumulationHoistOptions& opts, const std::string& path, HoistResult& out) {
  int scan_number = 0;
  for (size_t i = 0; i < p.eqns.size(); ++i) {
    if (p.eqns[i].prim->name != "scan") continue;
    const std::string where = cat(path, "scan#", scan_number++);
    ScanView sv(p.eqns[i]);
    std::vector<Accumulator> accs;
    std::vector<PassNote> done;
    int64_t bytes = 0;
    for (size_t k = 0; k < sv.nk; ++k) {
      Accumulator a;
      std::optional<PassNote> bad = match(sv, k, a);
      const AType& t = sv.body.in_vars[sv.nc + k]->type;
      const int64_t mn = num_elements(t.shape), b = sv.length * a.stacked * int64_t(dtype_size(t.dtype));
      if (!bad && double(a.stacked) > opts.max_stacked_per_accumulator * double(mn))
        bad = decline(kAccNotThin, cat("stacking ", a.stacked, " elements per step for a ", t.str(),
                                       " accumulator: more than ", opts.max_stacked_per_accumulator, " × its size"));
      if (!bad && bytes + b > opts.max_stacked_bytes)
        bad = decline(kAccMemory, cat("stacking ", bytes + b, " bytes > max_stacked_bytes ", opts.max_stacked_bytes));
      if (bad) {
        bad->where = cat(where, " carry ", k);
        out.notes.push_back(*bad);
        continue;
      }
      bytes += b;
      accs.push_back(a);
      done.push_back(PassNote{true, "", cat(where, " carry ", k),
                              cat("Σ_t dot_general(", sv.body.eqns[a.dot].in[0].type().str(), ", ",
                                  sv.body.eqns[a.dot].in[1].type().str(), ") over ", sv.length,
                                  " steps → one dot_general after the scan (", a.stacked, " elements stacked per step)")});
    }
    if (accs.empty()) continue;
    p = rewrite(p, i, sv, accs);  // the new eqns follow the scan and contain no scan
    out.notes.insert(out.notes.end(), done.begin(), done.end());
    out.rewrites += int(accs.size());
  }
}

}  // namespace

HoistResult hoist_scan_accumulations(const Program& program, const AccumulationHoistOptions& options) {
  auto level = [&](Program& p, const std::string& path, HoistResult& r) { hoist_level(p, options, path, r); };
  return hoist::run_hoist_pass(program, options.recurse, "hoist_scan_accumulations", level);
}

VjpProgram hoist_backward_accumulations(VjpProgram v, const AccumulationHoistOptions& options,
                                        std::vector<std::string>* log) {
  HoistResult h = hoist_scan_accumulations(v.backward, options);
  v.backward = std::move(h.program);
  if (log) log->insert(log->end(), h.log.begin(), h.log.end());
  return v;
}

}  // namespace tandem
