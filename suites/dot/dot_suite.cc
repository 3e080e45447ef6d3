// The dot_general suite: every DotAlgorithm preset × input dtype × shape (batch dims, K from
// 1 to 4096, sizes off multiples of 16, zero-size dims) against the exact reference, each
// checked against its preset's error class; output dtypes; Inf/NaN through the splits; the
// accuracy ordering of presets on shared inputs; GFLOP/s against the BLAS called directly.
#include <algorithm>
#include <cmath>

#include "bridge/reference_bridge.h"
#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/prims/dot_algorithm.h"
#include "harness/case.h"
#include "harness/program_case.h"
#include "suites/dot/dot_cases.h"
#include "suites/dot/dot_tolerance.h"

namespace tandem {

// Σ_k |a||b| per output element: the scale of the dot's rounding errors.
std::vector<double> dot_abs_scale(const Tensor& lhs, const Tensor& rhs, const ref::DotDims& d) {
  ref::Array a = to_ref(lhs), b = to_ref(rhs);
  a.dtype = b.dtype = DType::f64;
  for (double& v : a.data) v = std::abs(v);
  for (double& v : b.data) v = std::abs(v);
  return ref::dot_general(a, b, d, DType::f64).data;
}

namespace {

// Why a dot check can show headroom above 10^4: the cancellation of the data (the bound
// scales with Σ|a||b|, the result and its rounding with |Σ a·b|) times the K-roundings model.
std::string dot_headroom_reason(const ErrorSpec& spec, const std::vector<double>& scale,
                                const std::vector<double>& want, int64_t k) {
  double cond = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (want[i] != 0) cond = std::max(cond, scale[i] / std::abs(want[i]));
  bool worst = spec.why.rfind("K*u_acc > 0.1", 0) == 0;
  return cat("sum|a||b| / |exact| up to ", cond, " (cancellation: the bound scales with sum|a||b|, the result does not); ",
             worst ? cat("K = ", k, " roundings in a narrow accumulator: K*u_acc > 0.1, so the check is the worst case, "
                         "which a wider or blocked accumulation never approaches")
                   : cat("lambda*sqrt(K) = ", probabilistic_roundings(k), " roundings allowed per term (P(fail) <= 1e-9), "
                         "while a blocked BLAS sum keeps its partial sums near the result"));
}

struct DotShape {
  int64_t batch, m, k, n;
};

std::string shape_name(const DotShape& s) {
  return cat("B:", s.batch, "/M:", s.m, "/K:", s.k, "/N:", s.n);
}

// lhs [B?, M, K] · rhs [B?, K, N]; batch dims only when B > 1.
Program dot_program(const DotShape& s, DType in, const std::string& precision,
                    std::optional<DType> pref, std::optional<F8Operands> f8) {
  Builder b;
  bool batched = s.batch > 1;
  Shape ls = batched ? Shape{s.batch, s.m, s.k} : Shape{s.m, s.k};
  Shape rs = batched ? Shape{s.batch, s.k, s.n} : Shape{s.k, s.n};
  Value x = b.input(ls, in), y = b.input(rs, in);
  DotDims d = batched ? DotDims{{2}, {1}, {0}, {0}} : DotDims{{1}, {0}, {}, {}};
  return b.build({dot_general(x, y, d, precision, pref, f8)});
}

ref::DotDims ref_dims(const DotShape& s) {
  return s.batch > 1 ? ref::DotDims{{2}, {1}, {0}, {0}} : ref::DotDims{{1}, {0}, {}, {}};
}

// f8: the operands' formats under an ANY_F8 preset, when not the default e4m3fn for both.
Case accuracy_case(const DotShape& s, DType in, const std::string& preset, std::optional<DType> pref,
                   const std::string& profile, const std::string& tag, std::optional<F8Operands> f8 = std::nullopt) {
  Case c;
  c.suite = "dot";
  const std::string f8_name = f8 ? cat(f8_info(f8->lhs).name, ",", f8_info(f8->rhs).name) : "";
  c.name = cat("dot/", tag, shape_name(s), "/in:", dtype_name(in), "/alg:", preset,
               pref ? cat("/out:", dtype_name(*pref)) : std::string(), f8 ? cat("/f8:", f8_name) : std::string());
  c.params = {{"batch", s.batch}, {"m", s.m}, {"k", s.k}, {"n", s.n},
              {"input_dtype", dtype_name(in)}, {"algorithm", preset}};
  if (pref) c.params["preferred_element_type"] = dtype_name(*pref);
  const std::optional<DotAlgorithm> named = parse_algorithm(preset);
  if (named && algorithm_info(*named).f8_inputs) c.params["f8_formats"] = f8 ? f8_name : "e4m3fn,e4m3fn";
  c.profiles = profiles_from(profile);
  c.flops = 2.0 * double(s.batch * s.m * s.k * s.n);
  c.instantiate = [s, in, preset, pref, f8, name = c.name](Device dev) {
    DType out = pref.value_or(in);
    DotAlgorithm alg = resolve_dot_algorithm(preset, in, out, dev.kind);  // unsupported → skip
    Program p = dot_program(s, in, preset, pref, f8);
    Shape ls = p.in_vars[0]->type.shape, rs = p.in_vars[1]->type.shape;
    std::vector<Tensor> inputs{seeded_uniform(ls, in, name + "/lhs"), seeded_uniform(rs, in, name + "/rhs")};
    ErrorSpec spec = dot_error_spec(alg, in, out, s.k), worst = dot_worst_case_spec(alg, in, out, s.k);
    CaseInstance inst = program_instance(p, inputs, dev, [s, spec, worst](const std::vector<Tensor>& in,
                                                                          const std::vector<ref::Array>& want) {
      std::vector<double> scale = dot_abs_scale(in[0], in[1], ref_dims(s));
      return std::vector<OutputCheck>{{"out", spec, scale, worst, dot_headroom_reason(spec, scale, want[0].data, s.k)}};
    });
    inst.info = {{"algorithm_run", algorithm_info(alg).name},
                 {"support", support_name(algorithm_support(alg, dev.kind).support)}};
    return inst;
  };
  return c;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> r;
  for (const auto& i : all_algorithms()) r.push_back(i.name);
  return r;
}

}  // namespace

void register_dot_suite(Registry& r) {
  const std::vector<DotShape> quick_shapes = {
      {1, 4, 1, 3},      // K = 1
      {1, 17, 33, 9},    // nothing a multiple of 16
      {3, 5, 48, 7},     // batch dimension
      {1, 3, 4096, 2},   // long reduction
      {1, 0, 8, 4},      // zero-size output
      {1, 4, 0, 3},      // zero-size contraction: zeros
  };
  const std::vector<DotShape> nightly_shapes = {{1, 64, 1024, 64}, {4, 32, 512, 48}};
  for (const std::string& preset : preset_names())
    for (DType in : {DType::f64, DType::f32, DType::bf16, DType::f16}) {
      for (const DotShape& s : quick_shapes) r.add(accuracy_case(s, in, preset, std::nullopt, "quick", ""));
      for (const DotShape& s : nightly_shapes) r.add(accuracy_case(s, in, preset, std::nullopt, "nightly", ""));
    }
  // Output dtypes: preferred_element_type wider and narrower than the inputs.
  for (const char* preset : {"DEFAULT", "F32_F32_F32", "BF16_BF16_F32", "BF16_BF16_F32_X3"}) {
    r.add(accuracy_case({1, 9, 40, 11}, DType::bf16, preset, DType::f32, "quick", ""));
    r.add(accuracy_case({1, 9, 40, 11}, DType::f32, preset, DType::bf16, "quick", ""));
    r.add(accuracy_case({1, 9, 40, 11}, DType::f16, preset, DType::f64, "quick", ""));
    // Without a preset an f64 result means f64 accumulation, as in JAX (tools/oracles/dot_vs_jax.py).
    r.add(accuracy_case({1, 9, 40, 11}, DType::f32, preset, DType::f64, "quick", ""));
  }
  // f8 formats other than e4m3fn: e5m2 on both sides, and the e4m3fn × e5m2 mix of FP8 training.
  for (const auto& info : all_algorithms())
    if (info.f8_inputs)
      for (F8Operands f8 : {F8Operands{F8Format::e5m2, F8Format::e5m2}, F8Operands{F8Format::e4m3fn, F8Format::e5m2}})
        r.add(accuracy_case({3, 5, 48, 7}, DType::f32, info.name, std::nullopt, "quick", "", f8));
  register_dot_special_cases(r);
  register_dot_rounding_cases(r);
  register_dot_perf_cases(r);
}

}  // namespace tandem
