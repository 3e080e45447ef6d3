// Taped reference interpreter of the IR (see reference_vjp.h): one case per primitive, each
// a call to a ref::Tape op with the equation's params.
#include "suites/remat/reference_vjp.h"

#include <stdexcept>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "engine/prims/dot_general.h"
#include "reference/grad_tape.h"
#include "reference/structure.h"

namespace tandem {
namespace {
using Id = ref::Tape::Id;

std::vector<Id> run(ref::Tape& t, const Program& p, const std::vector<Id>& in);

std::vector<int64_t> index_values(const ref::Tape& t, const std::vector<Id>& in, size_t first) {
  std::vector<int64_t> s;
  for (size_t i = first; i < in.size(); ++i) s.push_back(int64_t(t.value(in[i]).data.at(0)));
  return s;
}

std::vector<int64_t> axes_of(const Params& p, size_t rank) {
  std::vector<int64_t> a = p.get_ints("axes");
  for (int64_t& x : a)
    if (x < 0) x += int64_t(rank);
  return a;
}

// lax.scan unrolled on the tape: x_t is a taped slice of xs, y_t's are stacked by a taped
// concatenate, so every step's values stay stored for the backward.
std::vector<Id> taped_scan(ref::Tape& t, const Eqn& e, const std::vector<Id>& in) {
  const Params& p = e.params;
  const Program& body = *p.get_program("body");
  size_t nc = size_t(p.get_int("num_consts")), nk = size_t(p.get_int("num_carry"));
  int64_t T = p.get_int("length");
  bool reverse = p.get_bool("reverse", false);
  std::vector<Id> consts(in.begin(), in.begin() + long(nc)), carry(in.begin() + long(nc), in.begin() + long(nc + nk));
  std::vector<Id> xs(in.begin() + long(nc + nk), in.end());
  size_t ny = e.out.size() - nk;
  std::vector<std::vector<Id>> ys(ny, std::vector<Id>(size_t(T), -1));
  for (int64_t s = 0; s < T; ++s) {
    int64_t step = reverse ? T - 1 - s : s;
    std::vector<Id> args = consts;
    args.insert(args.end(), carry.begin(), carry.end());
    for (Id x : xs) {
      std::vector<int64_t> shape = t.value(x).shape, lo(shape.size(), 0), hi = shape;
      lo[0] = step;
      hi[0] = step + 1;
      std::vector<int64_t> item(shape.begin() + 1, shape.end());
      args.push_back(t.reshape(t.slice(x, lo, hi, {}), item));
    }
    std::vector<Id> out = run(t, body, args);
    carry.assign(out.begin(), out.begin() + long(nk));
    for (size_t j = 0; j < ny; ++j) {
      std::vector<int64_t> shape = t.value(out[nk + j]).shape;
      shape.insert(shape.begin(), 1);
      ys[j][size_t(step)] = t.reshape(out[nk + j], shape);
    }
  }
  std::vector<Id> r = carry;
  for (size_t j = 0; j < ny; ++j) {
    const AType& ty = e.out[nk + j]->type;
    if (T == 0) r.push_back(t.constant(ref::Array{ty.shape, ty.dtype, {}}));
    else r.push_back(T == 1 ? ys[j][0] : t.concatenate(ys[j], 0));
  }
  return r;
}

std::vector<Id> eqn(ref::Tape& t, const Eqn& e, const std::vector<Id>& in) {
  const std::string& n = e.prim->name;
  const Params& p = e.params;
  static const std::vector<std::string> unary = {"neg", "exp", "log", "sin", "cos", "tanh", "logistic", "sqrt"};
  static const std::vector<std::string> binary = {"add", "sub", "mul", "div", "max", "min"};
  for (const auto& u : unary)
    if (n == u) return {t.unary(n, in[0])};
  for (const auto& b : binary)
    if (n == b) return {t.binary(n, in[0], in[1])};
  size_t rank0 = in.empty() ? 0 : t.value(in[0]).shape.size();
  if (n == "integer_pow") return {t.integer_pow(in[0], p.get_int("y"))};
  if (n == "compare") return {t.compare(in[0], in[1], p.get_string("direction", ""))};
  if (n == "select") return {t.select(in[0], in[1], in[2])};
  if (n == "convert_element_type") return {t.convert(in[0], p.get_dtype("new_dtype"))};
  if (n == "broadcast_in_dim") return {t.broadcast_in_dim(in[0], p.get_ints("shape"), p.get_ints("broadcast_dimensions"))};
  if (n == "reshape") return {t.reshape(in[0], p.get_ints("new_sizes"))};
  if (n == "transpose") return {t.transpose(in[0], p.get_ints("permutation"))};
  if (n == "slice")
    return {t.slice(in[0], p.get_ints("start_indices"), p.get_ints("limit_indices"),
                    p.has("strides") ? p.get_ints("strides") : std::vector<int64_t>{})};
  if (n == "dynamic_slice") return {t.dynamic_slice(in[0], index_values(t, in, 1), p.get_ints("slice_sizes"))};
  if (n == "dynamic_update_slice") return {t.dynamic_update_slice(in[0], in[1], index_values(t, in, 2))};
  if (n == "concatenate") {
    int64_t d = p.get_int("dimension");
    return {t.concatenate(in, d < 0 ? d + int64_t(rank0) : d)};
  }
  if (n == "iota") return {t.constant(ref::iota(p.get_dtype("dtype"), p.get_ints("shape"), p.get_int("dimension")))};
  if (n == "reduce_sum") return {t.reduce_sum(in[0], axes_of(p, rank0))};
  if (n == "reduce_max") return {t.reduce_max(in[0], axes_of(p, rank0))};
  if (n == "dot_general") {
    DotSignature s = dot_signature({e.in[0].type(), e.in[1].type()}, p);
    return {t.dot_general(in[0], in[1], ref::DotDims{s.lhs_contract, s.rhs_contract, s.lhs_batch, s.rhs_batch}, s.out_dtype)};
  }
  if (n == "checkpoint_name") return {in[0]};
  if (n == "checkpoint") return run(t, *p.get_program("body"), in);  // store everything: no remat
  if (n == "scan") return taped_scan(t, e, in);
  throw_unsupported(cat("the reference's reverse mode has no rule for primitive ", n),
                    "add it to reference/grad_tape.h and suites/remat/reference_vjp.cc");
}

std::vector<Id> run(ref::Tape& t, const Program& p, const std::vector<Id>& in) {
  std::unordered_map<int64_t, Id> env;
  for (size_t i = 0; i < p.in_vars.size(); ++i) env[p.in_vars[i]->id] = in.at(i);
  auto value = [&](const Atom& a) {
    return a.is_literal() ? t.constant(ref::scalar(a.literal->dtype, a.literal->value)) : env.at(a.var->id);
  };
  for (const Eqn& e : p.eqns) {
    std::vector<Id> args;
    for (const Atom& a : e.in) args.push_back(value(a));
    std::vector<Id> outs;
    try {
      outs = eqn(t, e, args);
    } catch (const std::invalid_argument& err) {
      throw_bad_input(cat("reference vjp, ", e.prim->name, ": ", err.what()));
    }
    for (size_t k = 0; k < e.out.size(); ++k) env[e.out[k]->id] = outs.at(k);
  }
  std::vector<Id> r;
  for (const Atom& a : p.out_vars) r.push_back(value(a));
  return r;
}
}  // namespace

std::vector<ref::Array> reference_vjp(const Program& program, const std::vector<ref::Array>& inputs,
                                      const std::vector<ref::Array>& out_cts) {
  if (inputs.size() != program.in_vars.size() || out_cts.size() != program.out_vars.size())
    throw_bad_input(cat("reference_vjp: ", inputs.size(), " inputs and ", out_cts.size(), " cotangents for a program of ",
                        program.in_vars.size(), " inputs and ", program.out_vars.size(), " outputs"));
  ref::Tape t;
  std::vector<Id> in, wrt;
  for (const ref::Array& a : inputs) {
    bool diff = is_floating(a.dtype);
    in.push_back(diff ? t.input(a) : t.constant(a));
    if (diff) wrt.push_back(in.back());
  }
  std::vector<Id> out = run(t, program, in);
  std::vector<std::pair<Id, ref::Array>> seeds;
  for (size_t k = 0; k < out.size(); ++k) seeds.push_back({out[k], out_cts[k]});
  return t.gradients(seeds, wrt);
}

}  // namespace tandem
