// JSON → Program (see program_json_read.h; the schema: docs/PROGRAM_JSON.md). One function per schema element; each
// takes `at`, the place it reads ("eqn 3 (add, source m.py:42) input 1"), which every message starts with.
#include "engine/ir/program_json_read.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "engine/ir/primitive_rewrites.h"
#include "engine/ir/program_json.h"
#include "engine/ir/typecheck.h"

namespace tandem {
namespace {

using nlohmann::json;
using Names = std::initializer_list<const char*>;
constexpr const char* kSchemaHint = "docs/PROGRAM_JSON.md describes the schema";

[[noreturn]] void bad(const std::string& at, const std::string& what, const std::string& hint = kSchemaHint) {
  throw_bad_input(cat("program JSON: ", at, ": ", what), hint);
}

// At most `budget` characters of j's text, three levels deep at most: a message quotes an
// offending value briefly, never the whole of a large or deeply nested one.
void brief(const json& j, int levels, size_t budget, std::string& out) {
  if (out.size() >= budget) return;
  if (!j.is_structured()) { out += j.dump(); return; }
  if (levels == 0 || j.empty()) { out += j.is_array() ? (j.empty() ? "[]" : "[...]") : (j.empty() ? "{}" : "{...}"); return; }
  out += j.is_array() ? '[' : '{';
  for (auto it = j.begin(); it != j.end() && out.size() < budget; ++it) {
    if (it != j.begin()) out += ',';
    if (j.is_object()) out += json(it.key()).dump() + ":";
    brief(*it, levels - 1, budget, out);
  }
  out += j.is_array() ? ']' : '}';
}

// The offending value, short: `string "f33"`, `array [1,-2]`.
std::string shown(const json& j) {
  if (j.is_null()) return "null";
  std::string s;
  brief(j, 3, 60, s);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return cat(j.type_name(), " ", s);
}

template <class List>
std::string joined(const List& names) {
  std::string r;
  for (const auto& n : names) r += (r.empty() ? "" : ", ") + std::string(n);
  return r;
}

// An object with every required field and none the schema lacks: an exporter's misspelt
// "parms" is an error, not a silently empty field.
void check_fields(const json& j, const std::string& at, const std::string& what, Names required, Names optional = {}) {
  if (!j.is_object()) bad(at, cat("expected ", what, " (a JSON object), got ", shown(j)));
  for (const char* k : required)
    if (!j.contains(k)) bad(at, cat("missing required field '", k, "' of ", what));
  for (const auto& item : j.items()) {
    auto is = [&](const char* f) { return item.key() == f; };
    if (std::none_of(required.begin(), required.end(), is) && std::none_of(optional.begin(), optional.end(), is))
      bad(at, cat("unknown field '", item.key(), "' in ", what, "; its fields are ", joined(required),
                  optional.size() ? cat(" and optionally ", joined(optional)) : ""));
  }
}

const json& list_field(const json& j, const char* key, const std::string& at) {
  const json& v = j[key];
  if (!v.is_array()) bad(at, cat("field '", key, "' is a list, got ", shown(v)));
  return v;
}

// An integer as JSON writes one: not 2.0, not true, not beyond int64.
std::optional<int64_t> as_int(const json& j) {
  if (j.is_number_unsigned()) {
    auto u = j.get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return int64_t(u);
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  return std::nullopt;
}

DType read_dtype(const json& j, const std::string& at) {
  if (j.is_string())
    if (auto d = parse_dtype(j.get<std::string>())) return *d;
  std::vector<std::string_view> names;
  for (DType t : kAllDTypes) names.push_back(dtype_name(t));
  bad(at, cat("unknown dtype ", shown(j), "; tandem's dtypes are ", joined(names)));
}

// Bad input when the shape's non-zero dimensions multiply past kMaxElements, the product formed without overflow. Zero
// dimensions count as 1: an empty value of shape [0, 2^62, 2^62] holds nothing, but its strides would still wrap.
void check_element_count(const Shape& s, const std::string& at) {
  int64_t n = 1;
  for (int64_t dim : s) {
    const int64_t d = std::max<int64_t>(dim, 1);
    if (d > kMaxElements / n)  // n * d > kMaxElements, decided before the product could wrap
      bad(at, cat("shape [", shape_str(s), "] holds more than 2^40 elements (kMaxElements; zero dimensions counted as 1)"),
          "no machine holds such a value; check the exporter's shapes (docs/PROGRAM_JSON.md, limits)");
    n *= d;
  }
}

Shape read_shape(const json& j, const std::string& at) {
  if (!j.is_array()) bad(at, cat("a shape is a list of non-negative integers, got ", shown(j)));
  Shape s;
  for (size_t i = 0; i < j.size(); ++i) {
    std::optional<int64_t> d = as_int(j[i]);
    if (!d || *d < 0) bad(at, cat("a shape is a list of non-negative integers; dimension ", i, " is ", shown(j[i])));
    s.push_back(*d);
  }
  check_element_count(s, at);
  return s;
}

// One program's variables by id. Each program is a scope of its own: a sub-program, like a closed jaxpr, sees only its
// own inputs. Nor may it share an id with a program enclosing it: passes relate a body's variables to its equation's by
// id (hoist_rewrite). Sibling sub-programs may repeat ids (one body bound by two scans).
struct Scope {
  std::unordered_map<int64_t, Var> vars;
  Scope* outer = nullptr;
  std::unordered_set<int64_t> nested{};  // ids the sub-programs read so far define
  bool encloses(int64_t id) const { return outer && (outer->vars.count(id) || outer->encloses(id)); }
};

int64_t read_id(const json& j, const std::string& at) {
  std::optional<int64_t> id = as_int(j);
  if (!id || *id < 0) bad(at, cat("a variable id is a non-negative integer, got ", shown(j)));
  return *id;
}

Var define(Scope& scope, const json& j, const std::string& at) {
  check_fields(j, at, "a typed variable", {"id", "dtype", "shape"});
  const int64_t id = read_id(j["id"], at);
  if (scope.vars.count(id))
    bad(at, cat("variable ", id, " is defined twice"),
        "each id is defined once in its program: as a program input or as one equation output");
  if (scope.encloses(id) || scope.nested.count(id))
    bad(at, cat("variable ", id, " is also defined in ", scope.nested.count(id) ? "a sub-program" : "an enclosing program"),
        "give a sub-program's variables ids of their own");
  AType type{read_shape(j["shape"], at), read_dtype(j["dtype"], at)};
  return scope.vars[id] = var_with_id(std::move(type), id);
}

Literal read_literal(const json& j, const std::string& at) {
  check_fields(j, at, "an atom ({\"var\": ID} or {\"literal\": NUMBER, \"dtype\": NAME})", {"literal", "dtype"});
  std::optional<double> v = number_from_json(j["literal"]);
  if (!v) bad(at, cat("a literal is a number or \"nan\", \"inf\", \"-inf\", got ", shown(j["literal"])));
  Literal lit{*v, read_dtype(j["dtype"], at)};
  const bool whole = std::isfinite(*v) && std::trunc(*v) == *v;
  if (lit.dtype == DType::i32 && !(whole && std::abs(*v) <= 2147483647.0))
    bad(at, cat("an i32 literal is a whole number within int32, got ", shown(j["literal"])));
  if (lit.dtype == DType::pred && *v != 0 && *v != 1)
    bad(at, cat("a bool literal is 0 or 1, got ", shown(j["literal"])));
  return lit;
}

Atom read_atom(const Scope& scope, const json& j, const std::string& at) {
  if (!j.is_object() || !j.contains("var")) return read_literal(j, at);
  check_fields(j, at, "a variable use", {"var"});
  const int64_t id = read_id(j["var"], at);
  auto it = scope.vars.find(id);
  if (it == scope.vars.end() && scope.encloses(id))
    bad(at, cat("variable ", id, " belongs to an enclosing program; a sub-program sees only its own inputs"),
        "pass it into the sub-program as an operand (a scan const, a checkpoint input)");
  if (it == scope.vars.end())
    bad(at, cat("variable ", id, " is used before it is defined"),
        "a variable is a program input or an output of an earlier equation of the same program "
        "(a sub-program sees only its own inputs)");
  return it->second;
}

Program read_program(const json& j, const std::string& ctx, Scope* outer);

Param read_float_tag(const json& j, const std::string& at) {
  std::optional<double> v = j.is_string() ? number_from_json(j) : std::nullopt;
  if (!v) bad(at, cat("{\"float\": ...} holds \"nan\", \"inf\" or \"-inf\", got ", shown(j)));
  return *v;
}

// JSON → the Param alternative program_to_json wrote it from: an integer is int64 and a
// number with a decimal point or an exponent a double (so 2 and 2.0 stay apart).
Param read_param(const json& j, const std::string& at, Scope& scope) {
  if (j.is_boolean()) return j.get<bool>();
  if (std::optional<int64_t> i = as_int(j)) return *i;
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_array()) {
    std::vector<int64_t> ints;
    for (size_t k = 0; k < j.size(); ++k) {
      std::optional<int64_t> i = as_int(j[k]);
      if (!i) bad(at, cat("a list param holds integers only; element ", k, " is ", shown(j[k])));
      ints.push_back(*i);
    }
    return ints;
  }
  if (j.is_object() && j.size() == 1) {
    if (j.contains("dtype")) return read_dtype(j["dtype"], at);
    if (j.contains("float")) return read_float_tag(j["float"], at);
    if (j.contains("program")) return std::make_shared<const Program>(read_program(j["program"], cat(at, ", "), &scope));
  }
  bad(at, cat("a param is an integer, a number with a decimal point, a bool, a string, a list of integers, "
              "{\"dtype\": NAME}, {\"float\": \"nan\"|\"inf\"|\"-inf\"} or {\"program\": {...}}; got ", shown(j)));
}

const Primitive& read_primitive(const json& j, const std::string& at) {
  if (!j.is_string()) bad(at, cat("field 'primitive' is a primitive's name, got ", shown(j)));
  const std::vector<std::string> names = primitive_names();
  if (std::find(names.begin(), names.end(), j.get<std::string>()) == names.end()) {
    const std::optional<std::string> rewrite = primitive_rewrite(j.get<std::string>());
    bad(at, cat("unknown primitive '", j.get<std::string>(), "'; tandem has: ", joined(names)),
        rewrite ? cat("write instead: ", *rewrite)
                : "a primitive tandem lacks is added as docs/DESIGN.md (\"How to add a primitive\") says");
  }
  return primitive(j.get<std::string>());
}

Eqn read_eqn(Scope& scope, const json& j, size_t index, const std::string& ctx) {
  std::string at = cat(ctx, "eqn ", index);
  std::string source;
  if (j.is_object() && j.contains("source")) {
    if (!j["source"].is_string()) bad(at, cat("field 'source' is a string (\"model.py:42\"), got ", shown(j["source"])));
    source = j["source"].get<std::string>();
    at = cat(at, " (source ", source, ")");
  }
  check_fields(j, at, "an equation", {"primitive", "in", "out"}, {"params", "source"});
  Eqn e;
  e.prim = &read_primitive(j["primitive"], at);
  at = cat(ctx, "eqn ", index, " (", e.prim->name, source.empty() ? "" : cat(", source ", source), ")");
  const json& in = list_field(j, "in", at);
  for (size_t k = 0; k < in.size(); ++k) e.in.push_back(read_atom(scope, in[k], cat(at, " input ", k)));
  if (j.contains("params")) {
    if (!j["params"].is_object()) bad(at, cat("field 'params' is an object, got ", shown(j["params"])));
    for (const auto& item : j["params"].items()) {
      const std::vector<std::string>& known = e.prim->params;
      if (std::find(known.begin(), known.end(), item.key()) == known.end())
        bad(at, cat("unknown param '", item.key(), "' of ", e.prim->name, "; it takes ",
                    known.empty() ? std::string("none") : joined(known)),
            "an exporter writes only the params tandem's primitive reads (docs/PROGRAM_JSON.md lists them)");
      e.params.set(item.key(), read_param(item.value(), cat(at, " param '", item.key(), "'"), scope));
    }
  }
  const json& out = list_field(j, "out", at);
  for (size_t k = 0; k < out.size(); ++k) e.out.push_back(define(scope, out[k], cat(at, " output ", k)));
  try {
    typecheck_eqn(e, at);
  } catch (const Error& err) {
    throw_bad_input(cat("program JSON: ", err.message()), err.hint().empty() ? kSchemaHint : err.hint());
  } catch (const std::exception& err) {  // a shape rule tripping over params it did not expect
    bad(at, cat("does not typecheck: ", err.what()));
  }
  return e;
}

size_t nesting(const Scope* s) { return s ? 1 + nesting(s->outer) : 0; }

Program read_program(const json& j, const std::string& ctx, Scope* outer) {
  const std::string at = cat(ctx, "program");
  if (nesting(outer) > kMaxSubProgramDepth)
    bad(at, cat("sub-programs nest more than ", kMaxSubProgramDepth, " deep"),
        "a body within a body within ...: JAX's own programs nest a few levels; flatten the nesting (docs/PROGRAM_JSON.md, limits)");
  if (!outer) check_fields(j, at, "a program", {"schema_version", "invars", "eqns", "outvars"});
  else check_fields(j, at, "a program", {"invars", "eqns", "outvars"});
  Program p;
  Scope scope{{}, outer};
  const json& invars = list_field(j, "invars", at);
  for (size_t i = 0; i < invars.size(); ++i) p.in_vars.push_back(define(scope, invars[i], cat(ctx, "invar ", i)));
  const json& eqns = list_field(j, "eqns", at);
  for (size_t i = 0; i < eqns.size(); ++i) p.eqns.push_back(read_eqn(scope, eqns[i], i, ctx));
  const json& outvars = list_field(j, "outvars", at);
  for (size_t i = 0; i < outvars.size(); ++i) p.out_vars.push_back(read_atom(scope, outvars[i], cat(ctx, "outvar ", i)));
  if (outer) {
    outer->nested.insert(scope.nested.begin(), scope.nested.end());
    for (const auto& [id, v] : scope.vars) outer->nested.insert(id);
  }
  return p;
}

}  // namespace

void check_json_depth(const json& j, const std::string& what) {
  std::vector<std::pair<const json*, size_t>> todo{{&j, 1}};  // no recursion: any depth is safe to walk
  while (!todo.empty()) {
    auto [v, depth] = todo.back();
    todo.pop_back();
    if (!v->is_structured()) continue;
    if (depth > kMaxJsonDepth)
      throw_bad_input(cat(what, ": JSON nested more than ", kMaxJsonDepth, " levels deep"),
                      "no schema tandem reads nests that deep: the file is damaged or not what it claims "
                      "(docs/PROGRAM_JSON.md, limits)");
    for (const json& item : *v) todo.push_back({&item, depth + 1});
  }
}

Program program_from_json(const json& j) {
  check_json_depth(j, "program JSON");
  if (j.is_object() && j.contains("schema_version")) {
    std::optional<int64_t> v = as_int(j["schema_version"]);
    if (v != kProgramJsonSchemaVersion)
      bad("program", cat("schema_version ", shown(j["schema_version"]), " is not the one this tandem reads (",
                         kProgramJsonSchemaVersion, ")"),
          "write the file for this schema version (docs/PROGRAM_JSON.md), or use the tandem that reads it");
  }
  return read_program(j, "", nullptr);
}

Program read_program_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw_bad_input(cat("cannot open program JSON '", path, "'"), "`tandem dump-programs DIR` writes program.json files");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw_bad_input(cat(path, ": not valid JSON: ", e.what()), kSchemaHint);
  }
  try {
    return program_from_json(j);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::bad_input) throw;
    throw_bad_input(cat(path, ": ", e.message()), e.hint());
  }
}

std::optional<double> number_from_json(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

}  // namespace tandem
