// A fuzz case as JSON, both ways.
#include "suites/program_fuzz/fuzz_case_json.h"

#include <cmath>
#include <fstream>

#include "engine/core/error.h"
#include "engine/ir/program_json.h"
#include "engine/ir/program_json_read.h"

namespace tandem::fuzz {
namespace {
using nlohmann::json;


json axes_json(const std::vector<VmapAxis>& axes) {
  json j = json::array();
  for (const VmapAxis& a : axes) j.push_back(a ? json(*a) : json(nullptr));
  return j;
}
}  // namespace

json tensor_to_json(const Tensor& t) {
  json data = json::array();
  for (double v : t.to_f64()) data.push_back(json_number(v));
  return {{"dtype", std::string(dtype_name(t.dtype()))}, {"shape", t.shape()}, {"data", data}};
}

json case_to_json(const FuzzCase& c, const std::string& disagreement) {
  json args = json::array(), cts = json::array();
  for (const Tensor& t : c.args) args.push_back(tensor_to_json(t));
  for (const Tensor& t : c.cotangents) cts.push_back(tensor_to_json(t));
  return {{"format", "tandem-fuzz-case"},
          {"version", 1},
          {"seed", c.seed},
          {"chain",
           {{"kind", chain_name(c.chain.kind)},
            {"in_axes", axes_json(c.chain.in_axes)},
            {"out_axes", axes_json(c.chain.out_axes)},
            {"axis_size", c.chain.axis_size},
            {"accumulate_in_carry", c.chain.accumulate_in_carry},
            {"top_policy", c.chain.top_policy}}},
          {"program", program_to_json(c.program)},
          {"equations", int64_t(c.program.eqns.size())},
          {"args", args},
          {"cotangents", cts},
          {"disagreement", disagreement}};
}

namespace {

double number_of(const json& v, const std::string& what) {
  if (std::optional<double> x = number_from_json(v)) return *x;
  throw_bad_input(cat(what, ": ", v.dump(), " is not a number"), "numbers, or \"nan\", \"inf\", \"-inf\"");
}

const json& field(const json& j, const char* key, const std::string& what) {
  if (!j.is_object() || !j.contains(key)) throw_bad_input(cat(what, ": no \"", key, "\""), "see suites/program_fuzz/fuzz_case_json.h");
  return j.at(key);
}

std::vector<VmapAxis> axes_of(const json& j, const std::string& what) {
  std::vector<VmapAxis> r;
  if (!j.is_array()) throw_bad_input(cat(what, " is not a list"));
  for (const json& a : j) r.push_back(a.is_null() ? VmapAxis{} : VmapAxis{a.get<int64_t>()});
  return r;
}

}  // namespace

Tensor tensor_from_json(const json& j, const std::string& what) {
  const auto dtype = parse_dtype(field(j, "dtype", what).get<std::string>());
  if (!dtype) throw_bad_input(cat(what, ": unknown dtype ", j.at("dtype").dump()));
  const Shape shape = field(j, "shape", what).get<Shape>();
  std::vector<double> data;
  for (const json& v : field(j, "data", what)) data.push_back(number_of(v, what));
  if (int64_t(data.size()) != num_elements(shape))
    throw_bad_input(cat(what, ": ", data.size(), " values for shape [", shape_str(shape), "]"));
  return Tensor::from_f64(data, shape, *dtype);
}

FuzzCase case_from_json(const json& j) {
  if (!j.is_object() || j.value("format", "") != "tandem-fuzz-case")
    throw_bad_input("not a tandem fuzz case (no \"format\": \"tandem-fuzz-case\")", "`tandem fuzz --out DIR` writes them");
  FuzzCase c;
  c.seed = j.value("seed", uint64_t(0));
  const json& ch = field(j, "chain", "case");
  c.chain.kind = parse_chain(field(ch, "kind", "chain").get<std::string>());
  c.chain.in_axes = axes_of(ch.value("in_axes", json::array()), "chain.in_axes");
  c.chain.out_axes = axes_of(ch.value("out_axes", json::array()), "chain.out_axes");
  c.chain.axis_size = ch.value("axis_size", int64_t(1));
  c.chain.accumulate_in_carry = ch.value("accumulate_in_carry", false);
  c.chain.top_policy = ch.value("top_policy", std::string("everything_saveable"));
  c.program = program_from_json(field(j, "program", "case"));
  for (const json& t : field(j, "args", "case")) c.args.push_back(tensor_from_json(t, cat("args[", c.args.size(), "]")));
  for (const json& t : j.value("cotangents", json::array()))
    c.cotangents.push_back(tensor_from_json(t, cat("cotangents[", c.cotangents.size(), "]")));
  return c;
}

FuzzCase read_case(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw_bad_input(cat("cannot read ", path), "give a case file `tandem fuzz --out DIR` wrote");
  try {
    return case_from_json(json::parse(in));
  } catch (const json::exception& e) {
    throw_bad_input(cat(path, ": ", e.what()), "give a case file `tandem fuzz --out DIR` wrote");
  }
}

}  // namespace tandem::fuzz
