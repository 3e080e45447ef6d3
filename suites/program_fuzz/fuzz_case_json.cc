// Writing a fuzz case as JSON.
#include "suites/program_fuzz/fuzz_case_json.h"

#include <cmath>

#include "engine/ir/program_json.h"

namespace tandem::fuzz {
namespace {
using nlohmann::json;

json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json axes_json(const std::vector<VmapAxis>& axes) {
  json j = json::array();
  for (const VmapAxis& a : axes) j.push_back(a ? json(*a) : json(nullptr));
  return j;
}
}  // namespace

json tensor_to_json(const Tensor& t) {
  json data = json::array();
  for (double v : t.to_f64()) data.push_back(number(v));
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

}  // namespace tandem::fuzz
