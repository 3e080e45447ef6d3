// The remat policies stated from JAX's definitions (see policy_statement.h), one table row
// per policy, and the walk that checks a vjp's saved set against them.
#include "suites/remat/policy_statement.h"

#include <algorithm>
#include <functional>
#include <map>

#include "engine/core/error.h"

namespace tandem::remat {
namespace {
using Args = std::vector<std::string>;

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
// The pieces of `s` between top-level `sep`s (not inside parentheses).
Args split(const std::string& s, char sep) {
  Args out{""};
  int depth = 0;
  for (char c : s) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == sep && depth == 0) out.emplace_back();
    else out.back() += c;
  }
  for (auto& p : out) p = trim(p);
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}
bool in(const Args& names, const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); }

// JAX's `prim is name_p`: the value checkpoint_name gives a name ("" for other equations).
std::string name_of(const Eqn& e) {
  return e.prim->name == "checkpoint_name" ? e.params.get_string("name", "") : "";
}
// dots_saveable: `prim in {dot_general_p, conv_general_dilated_p}`.
bool is_dot(const Eqn& e) { return e.prim->name == "dot_general" || e.prim->name == "conv_general_dilated"; }
// dot_with_no_batch_dims_saveable: a dot_general with neither lhs nor rhs batch dims.
bool no_batch_dot(const Eqn& e) {
  return e.prim->name == "dot_general" && e.params.get_ints("lhs_batch_dimensions").empty() &&
         e.params.get_ints("rhs_batch_dimensions").empty();
}
May save_if(bool b) { return b ? May::save : May::recompute; }

// One row per policy: its name(s) as policy strings spell them, and its definition over the
// equation and the policy's arguments (the text between its parentheses).
using Rule = std::function<May(const Eqn&, const std::string& args)>;
const std::map<std::string, Rule>& table() {
  static const std::map<std::string, Rule> t = [] {
    std::map<std::string, Rule> m;
    m["everything_saveable"] = [](const Eqn&, const std::string&) { return May::save; };
    m["nothing_saveable"] = [](const Eqn&, const std::string&) { return May::recompute; };
    m["dots_saveable"] = [](const Eqn& e, const std::string&) { return save_if(is_dot(e)); };
    m["checkpoint_dots"] = m["dots_saveable"];
    m["dots_with_no_batch_dims_saveable"] = [](const Eqn& e, const std::string&) { return save_if(no_batch_dot(e)); };
    m["checkpoint_dots_with_no_batch_dims"] = m["dots_with_no_batch_dims_saveable"];
    m["save_anything_except_these_names"] = [](const Eqn& e, const std::string& a) {
      std::string n = name_of(e);  // anything not named is saveable
      return save_if(n.empty() || !in(split(a, ','), n));
    };
    m["save_any_names_but_these"] = [](const Eqn& e, const std::string& a) {
      std::string n = name_of(e);
      return save_if(!n.empty() && !in(split(a, ','), n));
    };
    m["save_only_these_names"] = [](const Eqn& e, const std::string& a) {
      std::string n = name_of(e);
      return save_if(!n.empty() && in(split(a, ','), n));
    };
    // save_and_offload_only_these_names(names_which_can_be_saved | names_which_can_be_offloaded)
    m["save_and_offload_only_these_names"] = [](const Eqn& e, const std::string& a) {
      Args lists = split(a, '|');
      std::string n = name_of(e);
      if (n.empty() || lists.size() != 2) return May::recompute;
      if (in(split(lists[0], ','), n)) return May::save;
      return in(split(lists[1], ','), n) ? May::offload : May::recompute;
    };
    m["save_from_both_policies"] = [](const Eqn& e, const std::string& a) {
      Args both = split(a, ';');
      bool any = false;
      for (const std::string& p : both) any |= permitted(p, e) == May::save;
      return save_if(any);
    };
    m["offload_dot_with_no_batch_dims"] = [](const Eqn& e, const std::string&) {
      return no_batch_dot(e) ? May::offload : May::recompute;
    };
    return m;
  }();
  return t;
}

std::string descriptor(const Eqn& e) {
  std::string n = name_of(e);
  return n.empty() ? cat("output of ", e.prim->name) : cat("named '", n, "'");
}

// Every output of every equation, with the policy it falls under and what that permits.
struct Entry {
  std::string descriptor, policy;
  AType type;
  May may;
};
// A checkpoint's outputs are values of the scope around it, under that scope's policy; the
// vjp names them by the body equation that computes them (the checkpoint is inlined).
void checkpoint_outputs(const Program& body, const std::string& outer, std::vector<Entry>& out) {
  for (const Atom& a : body.out_vars) {
    if (a.is_literal()) continue;
    for (const Eqn& e : body.eqns)
      if (std::find(e.out.begin(), e.out.end(), a.var) != e.out.end())
        out.push_back({descriptor(e), outer, a.var->type, permitted(outer, e)});
  }
}
void collect(const Program& p, const std::string& policy, std::vector<Entry>& out) {
  for (const Eqn& e : p.eqns) {
    const bool ckpt = e.prim->name == "checkpoint";
    const std::string inner = ckpt ? e.params.get_string("policy", "nothing_saveable") : policy;
    for (const Var& o : e.out) out.push_back({descriptor(e), policy, o->type, permitted(policy, e)});
    if (ckpt) checkpoint_outputs(*e.params.get_program("body"), policy, out);
    for (auto& [k, v] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&v)) collect(**sub, inner, out);
  }
}

// The source a residual's value has, with the scan stacking (or hoisting of a loop-invariant
// value, saved once) it went through taken off.
struct Source {
  std::string what;
  int stacked = 0;
};
Source parse_source(std::string s) {
  Source r;
  for (size_t at; (at = s.rfind(", stacked over ")) != std::string::npos; ++r.stacked) s.erase(at);
  if (size_t at = s.find(", loop-invariant over "); at != std::string::npos) s.erase(at);
  r.what = s;
  return r;
}
bool is_input(const std::string& what) {
  for (const char* p : {"from the argument", "vjp input", "checkpoint input", "scan body input"})
    if (what.rfind(p, 0) == 0) return true;
  return false;
}
constexpr const char* kCarry = "the carry entering each step";
// Whether a scan runs outside every checkpoint: JAX's scan partial evaluation saves the
// carry entering each step (stacked) there, but inside a checkpoint its rule for
// partial_eval_jaxpr_custom saves only what the policy saves and the backward re-runs the
// forward scan to rebuild the carries.
bool scan_outside_checkpoints(const Program& p) {
  for (const Eqn& e : p.eqns) {
    if (e.prim->name == "scan") return true;
    if (e.prim->name == "checkpoint") continue;
    for (auto& [k, v] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&v); sub && scan_outside_checkpoints(**sub)) return true;
  }
  return false;
}
bool same_unstacked(const AType& entry, const AType& res, int stacked) {
  if (entry.dtype != res.dtype || res.shape.size() != entry.shape.size() + size_t(stacked)) return false;
  return std::equal(entry.shape.begin(), entry.shape.end(), res.shape.begin() + stacked);
}
}  // namespace

May permitted(const std::string& policy, const Eqn& e) {
  std::string s = trim(policy), head = s, args;
  if (auto open = s.find('('); open != std::string::npos && s.back() == ')') {
    head = trim(s.substr(0, open));
    args = s.substr(open + 1, s.size() - open - 2);
  }
  if (head.empty()) head = "nothing_saveable";
  auto it = table().find(head);
  if (it == table().end())
    throw_bad_input(cat("remat policy statement: no statement of '", policy, "'"),
                    "add its JAX definition to suites/remat/policy_statement.cc");
  return it->second(e, args);
}

std::vector<Unpermitted> unpermitted_residuals(const Program& model, const VjpProgram& v) {
  std::vector<Entry> entries;
  collect(model, "everything_saveable", entries);
  std::vector<Unpermitted> bad;
  const bool carries_saved = scan_outside_checkpoints(model);
  for (const Residual& r : v.residuals) {
    Source src = parse_source(r.source);
    if (r.is_argument || is_input(src.what) || (carries_saved && src.what == kCarry)) continue;
    if (src.what == kCarry) {
      bad.push_back({cat(r.type.str(), " ", r.source), "scan (inside a checkpoint, whose backward rebuilds its carries)",
                     "", r.bytes(), r.offloaded});
      continue;
    }
    const May how = r.offloaded ? May::offload : May::save;
    const Entry* same = nullptr;  // an equation this value could come from
    bool ok = false;
    for (const Entry& e : entries) {
      if (e.descriptor != src.what || !same_unstacked(e.type, r.type, src.stacked)) continue;
      ok |= e.may == how;
      if (!same || e.may != how) same = &e;
    }
    if (ok) continue;
    std::string producer = src.what.rfind("output of ", 0) == 0 ? src.what.substr(10) : "checkpoint_name " + src.what.substr(6);
    bad.push_back({cat(r.type.str(), " ", r.source), producer, same ? same->policy : "", r.bytes(), r.offloaded});
  }
  return bad;
}

namespace {
// Per primitive inside checkpoint bodies: whether the statement says to recompute any of its
// equations there.
void recompute_prims(const Program& p, const std::string& pol, bool inside, std::map<std::string, bool>& out) {
  for (const Eqn& e : p.eqns) {
    const bool ckpt = e.prim->name == "checkpoint";
    if (inside) out[e.prim->name] |= permitted(pol, e) == May::recompute;
    const std::string inner = ckpt ? e.params.get_string("policy", "nothing_saveable") : pol;
    for (auto& [k, v] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&v)) recompute_prims(**sub, inner, inside || ckpt, out);
  }
}
}  // namespace

std::vector<std::string> recomputed_but_saveable(const Program& model, const VjpProgram& v) {
  std::map<std::string, bool> may_recompute;
  recompute_prims(model, "everything_saveable", false, may_recompute);
  std::vector<std::string> bad;
  for (auto& [prim, n] : v.recompute.by_prim)
    if (n > 0 && !may_recompute[prim]) bad.push_back(prim);
  return bad;
}

int64_t statement_recomputes(const Program& model) {
  int64_t n = 0;
  std::function<void(const Program&, const std::string&, bool)> walk = [&](const Program& p, const std::string& pol,
                                                                          bool inside) {
    for (const Eqn& e : p.eqns) {
      const std::string& prim = e.prim->name;
      const bool ckpt = prim == "checkpoint";
      if (inside && !ckpt && prim != "scan" && prim != "checkpoint_name" && permitted(pol, e) == May::recompute) ++n;
      const std::string inner = ckpt ? e.params.get_string("policy", "nothing_saveable") : pol;
      for (auto& [k, v] : e.params.items())
        if (auto* sub = std::get_if<ProgramPtr>(&v)) walk(**sub, inner, inside || ckpt);
    }
  };
  walk(model, "everything_saveable", false);
  return n;
}

}  // namespace tandem::remat
