// Remat policies as predicates, and the small parser from policy strings.
#include "engine/ir/remat_policy.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"

namespace tandem {
namespace {
bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string r;
  for (size_t i = 0; i < v.size(); ++i) r += (i ? sep : "") + v[i];
  return r;
}
bool is_dot(const Eqn& e) { return e.prim && e.prim->name == "dot_general"; }
// JAX's dots_saveable saves conv_general_dilated too (DotsSaveable without only_if_no_batch_dims).
bool is_dot_or_conv(const Eqn& e) { return is_dot(e) || (e.prim && e.prim->name == "conv_general_dilated"); }
Remat yes(bool b) { return b ? Remat::save : Remat::recompute; }

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
// Splits at top-level occurrences of `sep` (not inside parentheses).
std::vector<std::string> split_top(const std::string& s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == sep && depth == 0) { out.push_back(trim(cur)); cur.clear(); continue; }
    cur += c;
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}
std::vector<std::string> name_list(const std::string& s) {
  std::vector<std::string> r;
  for (auto& n : split_top(s, ','))
    if (!n.empty()) r.push_back(n);
  return r;
}
}  // namespace

std::string eqn_name(const Eqn& e) {
  if (!e.prim || e.prim->name != "checkpoint_name") return "";
  return e.params.get_string("name", "");
}

std::vector<std::string> names_in(const Program& p) {
  std::vector<std::string> r;
  for (const Eqn& e : p.eqns) {
    if (std::string n = eqn_name(e); !n.empty()) r.push_back(n);
    for (auto& [k, v] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&v))
        for (auto& n : names_in(**sub)) r.push_back(n);
  }
  return r;
}

Policy everything_saveable() { return {"everything_saveable", [](const Eqn&) { return Remat::save; }, {}}; }
Policy nothing_saveable() { return {"nothing_saveable", [](const Eqn&) { return Remat::recompute; }, {}}; }
Policy dots_saveable() { return {"dots_saveable", [](const Eqn& e) { return yes(is_dot_or_conv(e)); }, {}}; }
Policy dots_with_no_batch_dims_saveable() {
  return {"dots_with_no_batch_dims_saveable", [](const Eqn& e) {
            return yes(is_dot(e) && e.params.get_ints("lhs_batch_dimensions").empty());
          }, {}};
}
Policy save_anything_except_these_names(const std::vector<std::string>& names) {
  // Everything is saveable except the named values (unnamed values are saved too).
  return {"save_anything_except_these_names(" + join(names) + ")",
          [names](const Eqn& e) { return yes(!has(names, eqn_name(e))); }, names};
}
Policy save_any_names_but_these(const std::vector<std::string>& names) {
  // Only named values are saveable, and not these.
  return {"save_any_names_but_these(" + join(names) + ")", [names](const Eqn& e) {
            std::string n = eqn_name(e);
            return yes(!n.empty() && !has(names, n));
          }, names};
}
Policy save_only_these_names(const std::vector<std::string>& names) {
  return {"save_only_these_names(" + join(names) + ")", [names](const Eqn& e) {
            std::string n = eqn_name(e);
            return yes(!n.empty() && has(names, n));
          }, names};
}
Policy save_and_offload_only_these_names(const std::vector<std::string>& saved,
                                         const std::vector<std::string>& offloaded) {
  std::vector<std::string> all = saved;
  all.insert(all.end(), offloaded.begin(), offloaded.end());
  Policy p{"save_and_offload_only_these_names(" + join(saved) + "|" + join(offloaded) + ")",
           [saved, offloaded](const Eqn& e) {
             std::string n = eqn_name(e);
             if (n.empty()) return Remat::recompute;
             if (has(saved, n)) return Remat::save;
             if (has(offloaded, n)) return Remat::offload;
             return Remat::recompute;
           }, all};
  p.may_offload = true;
  return p;
}
Policy save_from_both_policies(const Policy& a, const Policy& b) {
  for (const Policy* p : {&a, &b})
    if (p->may_offload)
      throw_bad_input(cat("save_from_both_policies: ", p->spec, " offloads; the combinator takes only "
                          "policies that save or recompute (as JAX's)"),
                      "combine save/recompute policies, or write one offloading policy");
  std::vector<std::string> names = a.names;
  names.insert(names.end(), b.names.begin(), b.names.end());
  std::string spec = "save_from_both_policies(" + a.spec + ";" + b.spec + ")";
  return {spec, [a, b, spec](const Eqn& e) {
            Remat ra = a(e), rb = b(e);
            if (ra == Remat::offload || rb == Remat::offload)
              throw_bad_input(cat(spec, ": a policy answered offload for ", e.prim->name),
                              "combine only policies that save or recompute");
            return ra == Remat::save || rb == Remat::save ? Remat::save : Remat::recompute;
          }, names};
}

namespace {
const char* kMemoryKinds[] = {"device", "pinned_host", "unpinned_host"};
void check_memory_kind(const std::string& k) {
  for (const char* m : kMemoryKinds)
    if (k == m) return;
  throw_bad_input(cat("offload memory kind '", k, "' is unknown"), "use device, pinned_host or unpinned_host");
}
std::map<std::string, PolicyFn>& user_policies() {
  static std::map<std::string, PolicyFn> t;
  return t;
}
std::mutex& user_policies_mu() {
  static std::mutex m;
  return m;
}
}  // namespace

Policy offload_dot_with_no_batch_dims(const std::string& src, const std::string& dst) {
  check_memory_kind(src);
  check_memory_kind(dst);
  Policy p{"offload_dot_with_no_batch_dims(" + src + "," + dst + ")", [](const Eqn& e) {
             bool no_batch = is_dot(e) && e.params.get_ints("lhs_batch_dimensions").empty();
             return no_batch ? Remat::offload : Remat::recompute;
           }, {}};
  p.may_offload = true;
  return p;
}

Policy user_policy(const std::string& name, PolicyFn fn) {
  if (!fn) throw_bad_input(cat("user policy '", name, "' has no predicate"), "pass a callable");
  Policy p{name, [fn](const Eqn& e) { return fn(*e.prim, e.params); }, {}};
  p.may_offload = false;  // unknown until it answers: save_from_both checks every answer
  return p;
}

void register_policy(const std::string& name, PolicyFn fn) {
  if (name.empty() || name.find_first_of("(),;|") != std::string::npos)
    throw_bad_input(cat("policy name '", name, "' is empty or has ( ) , ; |"), "use a plain identifier");
  std::lock_guard<std::mutex> lock(user_policies_mu());
  user_policies()[name] = std::move(fn);
}

Policy policy_from_string(const std::string& raw) {
  std::string s = trim(raw);
  std::string head = s, args;
  bool has_args = false;
  if (auto open = s.find('('); open != std::string::npos) {
    if (s.back() != ')')
      throw_bad_input(cat("remat policy '", s, "': unbalanced parentheses"), "write e.g. save_only_these_names(y,z)");
    head = trim(s.substr(0, open));
    args = s.substr(open + 1, s.size() - open - 2);
    has_args = true;
  }
  if (head == "everything_saveable" && !has_args) return everything_saveable();
  if ((head == "nothing_saveable" || head.empty()) && !has_args) return nothing_saveable();
  if ((head == "dots_saveable" || head == "checkpoint_dots") && !has_args) return dots_saveable();
  if ((head == "dots_with_no_batch_dims_saveable" || head == "checkpoint_dots_with_no_batch_dims") && !has_args)
    return dots_with_no_batch_dims_saveable();
  if (head == "save_anything_except_these_names") return save_anything_except_these_names(name_list(args));
  if (head == "save_any_names_but_these") return save_any_names_but_these(name_list(args));
  if (head == "save_only_these_names") return save_only_these_names(name_list(args));
  // The two arguments of a policy that takes two, split at `sep`.
  auto two = [&](char sep, const char* what, const char* example) {
    auto parts = split_top(args, sep);
    if (parts.size() != 2) throw_bad_input(cat("remat policy '", s, "': needs ", what), cat("write ", example));
    return parts;
  };
  if (head == "save_and_offload_only_these_names") {
    auto parts = two('|', "saved|offloaded name lists", "save_and_offload_only_these_names(a,b|c)");
    return save_and_offload_only_these_names(name_list(parts[0]), name_list(parts[1]));
  }
  if (head == "offload_dot_with_no_batch_dims") {
    auto parts = two(',', "the source and destination memory kinds", "offload_dot_with_no_batch_dims(device,pinned_host)");
    return offload_dot_with_no_batch_dims(parts[0], parts[1]);
  }
  if (head == "save_from_both_policies") {
    auto parts = two(';', "two policies separated by ';'", "save_from_both_policies(dots_saveable;save_only_these_names(y))");
    return save_from_both_policies(policy_from_string(parts[0]), policy_from_string(parts[1]));
  }
  if (!has_args) {
    std::lock_guard<std::mutex> lock(user_policies_mu());
    if (auto it = user_policies().find(head); it != user_policies().end()) return user_policy(head, it->second);
  }
  throw_bad_input(cat("unknown remat policy '", s, "'"),
                  "known: everything_saveable nothing_saveable dots_saveable "
                  "dots_with_no_batch_dims_saveable save_anything_except_these_names(...) "
                  "save_any_names_but_these(...) save_only_these_names(...) "
                  "save_and_offload_only_these_names(a|b) save_from_both_policies(p;q) "
                  "offload_dot_with_no_batch_dims(src,dst), or a name given to register_policy");
}

}  // namespace tandem
