// The reference side of a fuzz case: the widened program, the perturbed interpreter, the
// per-example loop of vmap and the stacking of its results.
#include "suites/program_fuzz/fuzz_oracle.h"

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

#include "bridge/reference_bridge.h"
#include "bridge/reference_collectives.h"
#include "bridge/reference_rules.h"
#include "bridge/reference_vjp.h"
#include "engine/core/error.h"
#include "reference/dot.h"
#include "reference/rounding.h"
#include "suites/program_fuzz/fuzz_exact.h"
#include "suites/program_fuzz/fuzz_limits.h"
#include "suites/program_fuzz/fuzz_rounding.h"

namespace tandem::fuzz {
namespace {

DType wide(DType t) { return is_floating(t) ? DType::f64 : t; }

class Widener {
 public:
  Program run(const Program& p) {
    Program r;
    for (const Var& v : p.in_vars) r.in_vars.push_back(var(v));
    for (const Eqn& e : p.eqns) add(r, e);
    for (const Atom& a : p.out_vars) r.out_vars.push_back(atom(a));
    return r;
  }

 private:
  std::unordered_map<int64_t, Var> vars_;

  Var var(const Var& v) {
    auto it = vars_.find(v->id);
    if (it != vars_.end()) return it->second;
    Var n = new_var(AType{v->type.shape, wide(v->type.dtype)});
    vars_.emplace(v->id, n);
    return n;
  }
  Atom atom(const Atom& a) {
    if (!a.is_literal()) return Atom(var(a.var));
    // The literal's value as the program holds it (rounded to its dtype), then widened.
    return Atom(Literal{ref::round_to(a.literal->dtype, a.literal->value), wide(a.literal->dtype)});
  }
  Params params(const Eqn& e) {
    Params r;
    for (const auto& [key, value] : e.params.items()) {
      if (auto* t = std::get_if<DType>(&value)) r.set(key, wide(*t));
      else if (auto* sub = std::get_if<ProgramPtr>(&value)) r.set(key, std::make_shared<const Program>(run(**sub)));
      else r.set(key, value);
    }
    // The reference's dot is exact whatever the precision, except that f8 presets round
    // their operands (the values JAX would hold): keep those, drop the rest (a preset may
    // not take f64 operands).
    if (e.prim->name == "dot_general" && e.params.has("precision") &&
        e.params.get_string("precision", "").find("F8") == std::string::npos)
      r.set("precision", std::string("DEFAULT"));
    return r;
  }
  void add(Program& r, const Eqn& e) {
    Eqn n;
    n.prim = e.prim;
    for (const Atom& a : e.in) n.in.push_back(atom(a));
    n.params = params(e);
    const DType to = e.prim->name == "convert_element_type" ? e.params.get_dtype("new_dtype") : DType::f64;
    if (is_floating(to) && to != DType::f64) {
      // Keep the narrowing: convert to `to`, then widen the rounded value.
      Var narrow = new_var(AType{e.out[0]->type.shape, to});
      Eqn round = n;
      round.params.set("new_dtype", to);
      round.out = {narrow};
      r.eqns.push_back(round);
      n.in = {Atom(narrow)};
      n.params.set("new_dtype", DType::f64);
    }
    for (const Var& v : e.out) n.out.push_back(var(v));
    r.eqns.push_back(n);
  }
};

ref::Array abs_of(ref::Array a) {
  for (double& x : a.data) x = std::fabs(x);
  return a;
}

double at(const ref::Array& a, size_t i) { return a.data.size() == 1 ? a.data[0] : a.data[i]; }

// How the own-dtype interpreter treats rounding: not at all beyond the reference's own (a
// preset's formats only), or by the error bound of each equation, signed at random per
// element or all upward.
enum class ErrorModel { none, signed_at_random, upward };

std::vector<ref::Array> own_eval(const Program& p, std::vector<ref::Array> in, Rng& rng,
                                 const std::vector<std::string>& axes, ErrorModel model, bool& nonfinite,
                                 bool top_level = false) {
  const std::unordered_set<int64_t> exact_vars = top_level ? exact_values(p) : std::unordered_set<int64_t>{};
  RefEvalContext ctx{[&](const Program& sub, std::vector<ref::Array> x) {
                       return own_eval(sub, std::move(x), rng, axes, model, nonfinite);
                     },
                     axes};
  auto sign = [&] { return model == ErrorModel::upward || rng.chance(0.5) ? 1.0 : -1.0; };
  return walk_program(
      p, std::move(in), [](const Literal& l) { return ref::scalar(l.dtype, l.value); },
      [&](const Eqn& e, std::vector<ref::Array> args) {
        Rounding r = rounding_of(e);
        if (f8_dot_of_exact_values(e, exact_vars)) r.in = std::max(unit_roundoff(e.in[0].type().dtype), 0x1p-24);
        const ReferenceRule& rule = reference_rule(e.prim->name);
        if (r.input_format)
          for (ref::Array& a : args)  // in place: make's rounding without its two copies of the operand
            ref::round_each_recurring(*r.input_format, a.data);
        std::vector<ref::Array> outs = rule.eval(e, args, ctx);
        // A function of one operand is as accurate as its operand: cos of a large argument
        // moves by u·|x| when x moves by u. Its operand moves by one unit of roundoff too,
        // unless the function is exact here (neg: every result is ± its operand).
        if (model != ErrorModel::none && r.out > 0 && e.prim->has(kElementwiseUnary)) {
          bool exact = true;
          for (size_t i = 0; i < outs[0].data.size() && exact; ++i) exact = std::fabs(outs[0].data[i]) == std::fabs(args[0].data[i]);
          if (!exact) {
            for (double& x : args[0].data) x *= 1 + sign() * std::max(r.out, 0x1p-52);
            outs = rule.eval(e, args, ctx);
          }
        }
        if (r.accumulator_format)
          ref::round_each(*r.accumulator_format, outs[0].data);
        for (const ref::Array& o : outs)
          for (double x : o.data) nonfinite |= !std::isfinite(x) || square_leaves_range(x, o.dtype);
        if (model == ErrorModel::none) return outs;
        if (r.terms > 0) {
          // |fl(Σ a·b) − Σ a·b| ≤ (2·in + K·acc) · Σ |a|·|b|, whatever the summation order.
          std::vector<ref::Array> abs_args;
          for (const ref::Array& a : args)  // scatter_add's indices stay as they are
            abs_args.push_back(a.dtype == DType::i32 && e.prim->name == "scatter_add" ? a : abs_of(a));
          const ref::Array bound = rule.eval(e, abs_args, ctx)[0];
          const double rel = 2 * r.in + double(r.terms) * r.acc;
          for (size_t i = 0; i < outs[0].data.size(); ++i) outs[0].data[i] += sign() * rel * bound.data[i];
        } else if (r.out > 0) {
          // One rounding of each result, except where it equals an operand (max, min, neg, x·1:
          // exact), so an exact tie downstream stays a tie. A function of one operand is a
          // library call within 2 ulps (engine/cpu/vector_math*.h), not correctly rounded: two
          // units, or a result an ulp from a discontinuity (logistic → 1.0 → convert to i32)
          // jumps where no perturbed run does.
          const double u = std::max(r.out, 0x1p-52) * (e.prim->has(kElementwiseUnary) ? 2 : 1);  // 1 + 2^-53 is 1 in f64
          for (size_t i = 0; i < outs[0].data.size(); ++i) {
            bool exact = false;
            for (const ref::Array& a : args) exact |= std::fabs(at(a, i)) == std::fabs(outs[0].data[i]);
            exact |= power_of_two_product(e, args, i, outs[0].data[i], e.out[0]->type.dtype);
            if (!exact) outs[0].data[i] *= 1 + sign() * u;
          }
        }
        return outs;
      },
      "reference (own dtypes)");
}

int64_t normalized(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// Example b of x along axis (rank drops by one).
ref::Array take(const ref::Array& x, int64_t axis, int64_t b) {
  ref::Array r;
  r.dtype = x.dtype;
  r.shape = x.shape;
  r.shape.erase(r.shape.begin() + axis);
  const int64_t outer = ref::shape_numel(std::vector<int64_t>(x.shape.begin(), x.shape.begin() + axis));
  const int64_t inner = ref::shape_numel(std::vector<int64_t>(x.shape.begin() + axis + 1, x.shape.end()));
  const int64_t n = x.shape[size_t(axis)];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) r.data.push_back(x.data[size_t((o * n + b) * inner + i)]);
  return r;
}

// The examples stacked along axis (of the result).
ref::Array stack_along(const std::vector<ref::Array>& xs, int64_t axis) {
  ref::Array r;
  r.dtype = xs[0].dtype;
  r.shape = xs[0].shape;
  r.shape.insert(r.shape.begin() + axis, int64_t(xs.size()));
  const int64_t outer = ref::shape_numel(std::vector<int64_t>(xs[0].shape.begin(), xs[0].shape.begin() + axis));
  const int64_t inner = ref::shape_numel(std::vector<int64_t>(xs[0].shape.begin() + axis, xs[0].shape.end()));
  for (int64_t o = 0; o < outer; ++o)
    for (const ref::Array& x : xs)
      for (int64_t i = 0; i < inner; ++i) r.data.push_back(x.data[size_t(o * inner + i)]);
  return r;
}

ref::Array as_variant(const Tensor& t, RefVariant v) {
  ref::Array a = to_ref(t);
  if (v == RefVariant::wide) a.dtype = wide(a.dtype);
  return a;
}

struct Interpreter {
  Program program;  // widened for the wide variant
  RefVariant variant;
  Rng rng;
  bool nonfinite = false;
  std::vector<bool> wrt{};  // the inputs differentiated (empty: every floating one)
  std::vector<ref::Array> eval(const std::vector<ref::Array>& x) {
    const std::vector<std::string> axes = {kCollectiveAxis};
    if (variant == RefVariant::wide) return reference_eval(program, x, axes);
    const ErrorModel m = variant == RefVariant::own ? ErrorModel::none
                         : variant == RefVariant::perturbed ? ErrorModel::signed_at_random : ErrorModel::upward;
    return own_eval(program, x, rng, axes, m, nonfinite, true);
  }
  // The backward held in the primal dtypes: each value's cotangent rounded to its dtype
  // (own) or moved by one unit of its roundoff (perturbed); exact for the wide variant.
  ref::Tape::Hold hold() {
    if (variant == RefVariant::wide) return {};
    if (variant == RefVariant::own)
      return [](ref::Array& ct, DType t) {  // rounded in place, kept f64 for the tape
        ref::round_each(t, ct.data);
        ct.dtype = DType::f64;
      };
    // Signs at random (perturbed) or alternating from one contribution to the next (scaled):
    // all upward would cancel exactly in a cotangent that is a difference of two terms.
    return [this, flip = std::make_shared<bool>(false)](ref::Array& ct, DType t) {
      const double u = std::max(unit_roundoff(t), 0x1p-52);
      *flip = !*flip;
      for (double& x : ct.data) x *= 1 + ((variant == RefVariant::scaled ? *flip : rng.chance(0.5)) ? u : -u);
    };
  }
  // Outputs, then (when differentiating) the differentiated inputs' cotangents.
  std::vector<ref::Array> example(const std::vector<ref::Array>& x, const std::vector<ref::Array>& ct, bool diff,
                                  const std::vector<ref::Array>* forward = nullptr) {
    std::vector<ref::Array> r = forward ? *forward : eval(x);
    if (!diff) return r;
    // The tape's cotangents are f64 whatever the primal dtype; the engine's are in the
    // input's dtype: the own-dtype runs round them once, as the engine's result is rounded.
    std::vector<ref::Array> grads = reference_vjp(program, x, ct, hold());
    size_t g = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const ref::Array& in = x[i];
      if (!is_floating(in.dtype)) continue;
      ref::Array& d = grads.at(g++);
      if (!wrt.empty() && !wrt.at(i)) continue;  // the tape gives every floating input's
      if (variant != RefVariant::wide) d = ref::make(d.shape, in.dtype, d.data);
      r.push_back(std::move(d));
    }
    return r;
  }
};

std::vector<ref::Array> vmapped_results(const FuzzCase& c, Interpreter& it, RefVariant v) {
  const bool diff = c.chain.kind == ChainKind::vmap_of_vjp;
  const size_t nx = c.program.in_vars.size();
  std::vector<std::vector<ref::Array>> per_example;
  for (int64_t b = 0; b < c.chain.axis_size; ++b) {
    std::vector<ref::Array> args;
    for (size_t i = 0; i < c.args.size(); ++i) {
      ref::Array a = as_variant(c.args[i], v);
      const auto& ax = c.chain.in_axes[i];
      args.push_back(ax ? take(a, normalized(*ax, a.rank()), b) : a);
    }
    per_example.push_back(args);
  }
  std::vector<std::vector<ref::Array>> outs;
  if (!diff && has_collective(c.program)) {
    // The collectives over the vmapped axis: every example is a member of one mesh.
    outs = reference_eval_mesh(it.program, per_example, RefMesh{{{kCollectiveAxis, int(c.chain.axis_size)}}});
  } else {
    for (const auto& args : per_example) {
      std::vector<ref::Array> x(args.begin(), args.begin() + long(nx)), ct(args.begin() + long(nx), args.end());
      outs.push_back(it.example(x, ct, diff));
    }
  }
  std::vector<ref::Array> r;
  const size_t num_out = c.chain.out_axes.size();
  for (size_t k = 0; k < num_out; ++k) {
    std::vector<ref::Array> column;
    for (const auto& o : outs) column.push_back(o.at(k));
    const int64_t axis = normalized(*c.chain.out_axes[k], column.empty() ? 1 : column[0].rank() + 1);
    if (column.empty()) throw_unsupported("fuzz: a vmap of axis size 0 has no examples to stack");
    r.push_back(stack_along(column, axis));
  }
  return r;
}

// Whether p (sub-programs included) computes any value in f64.
bool computes_in_f64(const Program& p) {
  for (const Var& v : p.in_vars)
    if (v->type.dtype == DType::f64) return true;
  for (const Eqn& e : p.eqns) {
    for (const Var& v : e.out)
      if (v->type.dtype == DType::f64) return true;
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value); sub && computes_in_f64(**sub)) return true;
  }
  return false;
}

}  // namespace

Program widen(const Program& p) { return Widener().run(p); }

double program_roundoff(const Program& p) {
  double u = 0;
  for (const Eqn& e : p.eqns) {
    const Rounding r = rounding_of(e);
    u = std::max({u, r.out, 2 * r.in + double(r.terms) * r.acc});
    for (const Var& v : e.out) u = std::max(u, unit_roundoff(v->type.dtype));  // cotangents pass through it
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value)) u = std::max(u, program_roundoff(**sub));
  }
  return u;
}

std::vector<ref::Array> reference_results(const FuzzCase& c, RefVariant v, uint64_t perturb_seed, bool* nonfinite_forward,
                                          const std::vector<ref::Array>* forward) {
  if (forward && (v == RefVariant::perturbed || v == RefVariant::scaled || !differentiates(c.chain.kind) || vmaps(c.chain.kind)))
    throw Error(ErrorKind::internal, "reference_results: a forward is shared only with the wide or own run of a vjp");
  const bool widened = v == RefVariant::wide;
  // The own-dtype model runs of a program computing nothing in f64 round every dot result to
  // f32 or narrower and move it by (2·u_in + K·u_acc)·Σ|a||b| (K·2^-24 and up): their sums may
  // accumulate in double (ref::Accumulation::f64, ~10x faster: vectorised), which moves them by
  // at most K·2^-53·Σ|a||b|, 2^-29 of that bound. The wide truth keeps long double.
  std::optional<ref::ScopedAccumulation> fast;
  if (!widened && !computes_in_f64(c.program)) fast.emplace(ref::Accumulation::f64);
  // vmap_of_vjp needs no joint program here: per example it is the outputs and the gradients.
  Interpreter it{widened ? widen(c.program) : c.program, v, Rng(perturb_seed)};
  it.wrt = c.wrt;
  std::vector<ref::Array> r;
  if (vmaps(c.chain.kind)) {
    r = vmapped_results(c, it, v);
  } else {
    std::vector<ref::Array> x, ct;
    for (const Tensor& t : c.args) x.push_back(as_variant(t, v));
    for (const Tensor& t : c.cotangents) ct.push_back(as_variant(t, v));
    r = it.example(x, ct, differentiates(c.chain.kind), forward);
  }
  if (nonfinite_forward) *nonfinite_forward = it.nonfinite;
  return r;
}

}  // namespace tandem::fuzz
