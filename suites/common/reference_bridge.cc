// Reference interpreter: one case per primitive, each a call into tandem::ref.
#include "suites/common/reference_bridge.h"

#include <stdexcept>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "engine/prims/dot_general.h"

namespace tandem {

ref::Array to_ref(const Tensor& t) {
  ref::Array a;
  a.shape = t.shape();
  a.dtype = t.dtype();
  a.data = t.to_f64();
  return a;
}

Tensor from_ref(const ref::Array& a) { return Tensor::from_f64(a.data, a.shape, a.dtype); }

namespace {

std::vector<ref::Array> eval_eqn(const Eqn& e, const std::vector<ref::Array>& in) {
  const std::string& n = e.prim->name;
  const Params& p = e.params;
  static const std::vector<std::string> unary = {"neg", "exp", "log", "sin", "cos", "tanh", "logistic", "sqrt"};
  static const std::vector<std::string> binary = {"add", "sub", "mul", "div", "max", "min"};
  for (const auto& u : unary) if (n == u) return {ref::unary(n, in[0])};
  for (const auto& b : binary) if (n == b) return {ref::binary(n, in[0], in[1])};
  if (n == "integer_pow") return {ref::integer_pow(in[0], p.get_int("y"))};
  if (n == "compare") return {ref::compare(in[0], in[1], p.get_string("direction", ""))};
  if (n == "select") return {ref::select(in[0], in[1], in[2])};
  if (n == "convert_element_type") return {ref::convert(in[0], p.get_dtype("new_dtype"))};
  if (n == "broadcast_in_dim") return {ref::broadcast_in_dim(in[0], p.get_ints("shape"), p.get_ints("broadcast_dimensions"))};
  if (n == "reshape") return {ref::reshape(in[0], p.get_ints("new_sizes"))};
  if (n == "transpose") return {ref::transpose(in[0], p.get_ints("permutation"))};
  if (n == "slice")
    return {ref::slice(in[0], p.get_ints("start_indices"), p.get_ints("limit_indices"),
                       p.has("strides") ? p.get_ints("strides") : std::vector<int64_t>{})};
  auto starts = [&](size_t first) {
    std::vector<int64_t> s;
    for (size_t i = first; i < in.size(); ++i) s.push_back(int64_t(in[i].data.at(0)));
    return s;
  };
  if (n == "dynamic_slice") return {ref::dynamic_slice(in[0], starts(1), p.get_ints("slice_sizes"))};
  if (n == "dynamic_update_slice") return {ref::dynamic_update_slice(in[0], in[1], starts(2))};
  if (n == "concatenate") {
    int64_t d = p.get_int("dimension");
    if (d < 0) d += int64_t(in[0].shape.size());
    return {ref::concatenate(in, d)};
  }
  if (n == "iota") return {ref::iota(p.get_dtype("dtype"), p.get_ints("shape"), p.get_int("dimension"))};
  auto axes = [&] {
    std::vector<int64_t> a = p.get_ints("axes");
    for (int64_t& x : a) if (x < 0) x += int64_t(in[0].shape.size());
    return a;
  };
  if (n == "reduce_sum") return {ref::reduce_sum(in[0], axes())};
  if (n == "reduce_max") return {ref::reduce_max(in[0], axes())};
  if (n == "dot_general") {
    DotSignature s = dot_signature({e.in[0].type(), e.in[1].type()}, p);
    ref::DotDims d{s.lhs_contract, s.rhs_contract, s.lhs_batch, s.rhs_batch};
    return {ref::dot_general(in[0], in[1], d, s.out_dtype)};
  }
  if (n == "checkpoint_name") return {in[0]};
  if (n == "checkpoint") return reference_eval(*p.get_program("body"), in);
  if (n == "scan") {
    const Program& body = *p.get_program("body");
    size_t nc = size_t(p.get_int("num_consts")), nk = size_t(p.get_int("num_carry"));
    std::vector<ref::Array> consts(in.begin(), in.begin() + long(nc));
    std::vector<ref::Array> init(in.begin() + long(nc), in.begin() + long(nc + nk));
    std::vector<ref::Array> xs(in.begin() + long(nc + nk), in.end());
    auto fn = [&](const std::vector<ref::Array>& c, const std::vector<ref::Array>& carry,
                  const std::vector<ref::Array>& x) {
      std::vector<ref::Array> args = c;
      args.insert(args.end(), carry.begin(), carry.end());
      args.insert(args.end(), x.begin(), x.end());
      std::vector<ref::Array> out = reference_eval(body, args);
      return std::pair{std::vector<ref::Array>(out.begin(), out.begin() + long(nk)),
                       std::vector<ref::Array>(out.begin() + long(nk), out.end())};
    };
    auto [carry, ys] = ref::scan(fn, consts, init, xs, p.get_int("length"), p.get_bool("reverse", false));
    // A zero-length scan gives the reference no body output to learn ys' shapes from.
    std::vector<AType> out_types;
    for (const Var& v : e.out) out_types.push_back(v->type);
    for (size_t i = nk; i < out_types.size(); ++i)
      if (ys.size() < out_types.size() - nk)
        ys.push_back(ref::Array{out_types[i].shape, out_types[i].dtype, {}});
    carry.insert(carry.end(), ys.begin(), ys.end());
    return carry;
  }
  throw_unsupported(cat("the reference has no rule for primitive ", n));
}
}  // namespace

std::vector<ref::Array> reference_eval(const Program& prog, const std::vector<ref::Array>& inputs) {
  std::unordered_map<int64_t, ref::Array> env;
  for (size_t i = 0; i < prog.in_vars.size(); ++i) env[prog.in_vars[i]->id] = inputs.at(i);
  auto value = [&](const Atom& a) {
    if (a.is_literal()) return ref::scalar(a.literal->dtype, a.literal->value);
    return env.at(a.var->id);
  };
  for (const Eqn& e : prog.eqns) {
    std::vector<ref::Array> args;
    for (const Atom& a : e.in) args.push_back(value(a));
    std::vector<ref::Array> outs;
    try {
      outs = eval_eqn(e, args);
    } catch (const std::invalid_argument& err) {
      throw_bad_input(cat("reference ", e.prim->name, ": ", err.what()));
    }
    for (size_t k = 0; k < e.out.size(); ++k) env[e.out[k]->id] = std::move(outs.at(k));
  }
  std::vector<ref::Array> r;
  for (const Atom& a : prog.out_vars) r.push_back(value(a));
  return r;
}

}  // namespace tandem
