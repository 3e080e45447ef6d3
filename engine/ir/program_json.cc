// Program → JSON (see program_json.h for the format).
#include "engine/ir/program_json.h"

#include <cmath>

#include "engine/ir/primitive.h"

namespace tandem {
namespace {

using nlohmann::json;

json typed_var(const Var& v) {
  return {{"id", v->id}, {"dtype", std::string(dtype_name(v->type.dtype))}, {"shape", v->type.shape}};
}

json atom(const Atom& a) {
  if (a.is_literal())
    return {{"literal", json_number(a.literal->value)}, {"dtype", std::string(dtype_name(a.literal->dtype))}};
  return {{"var", a.var->id}};
}

json program_body(const Program& p);

json param(const Param& p) {
  return std::visit([](const auto& v) -> json {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, DType>) return {{"dtype", std::string(dtype_name(v))}};
    else if constexpr (std::is_same_v<T, ProgramPtr>) return {{"program", program_body(*v)}};
    // A non-finite float param is tagged: a bare "nan" would read back as a string param.
    else if constexpr (std::is_same_v<T, double>) return std::isfinite(v) ? json(v) : json{{"float", json_number(v)}};
    else return v;  // int64_t, bool, std::string, std::vector<int64_t>
  }, p);
}

// A program without the schema version, which only the top level carries.
json program_body(const Program& p) {
  json j = {{"invars", json::array()}, {"eqns", json::array()}, {"outvars", json::array()}};
  for (const Var& v : p.in_vars) j["invars"].push_back(typed_var(v));
  for (const Eqn& e : p.eqns) {
    json eq = {{"primitive", e.prim->name}, {"in", json::array()}, {"out", json::array()}, {"params", json::object()}};
    for (const Atom& a : e.in) eq["in"].push_back(atom(a));
    for (const Var& v : e.out) eq["out"].push_back(typed_var(v));
    for (const auto& [k, v] : e.params.items()) eq["params"][k] = param(v);
    j["eqns"].push_back(std::move(eq));
  }
  for (const Atom& a : p.out_vars) j["outvars"].push_back(atom(a));
  return j;
}

}  // namespace

json program_to_json(const Program& p) {
  json j = program_body(p);
  j["schema_version"] = kProgramJsonSchemaVersion;
  return j;
}

json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace tandem
