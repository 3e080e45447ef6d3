// Dot cases that pin down two things the preset error classes cannot (docs/FAULTS.md):
//  - input_rounding: a rounded-input preset (TF32, BF16, F16 inputs, f32 accumulation) against
//    the exact dot of the inputs rounded to nearest by the reference itself. What is left is
//    accumulation error only (K·u_acc·Σ|ab|), ~2^7 times below the input rounding, so an
//    engine that truncates its inputs (or rounds them any other wrong way) fails, while the
//    error-class bound (2·u_in + K·u_acc)·Σ|ab| admits truncation. Inputs whose dropped bits
//    are an exact tie are nudged off it, so any round-to-nearest (ties even or away) passes.
//  - inf_exact_rhs: the split presets with +Inf against a right-hand side exactly
//    representable in one bf16 part (lo = 0), where a lost NaN guard turns Inf·0 cross terms
//    into NaN; random right-hand sides (dot/special/inf_nan) never have lo = 0.
#include <cmath>
#include <cstring>
#include <memory>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "reference/rounding.h"
#include "suites/common/case.h"
#include "suites/common/error_spec.h"
#include "suites/common/program_case.h"
#include "suites/common/reference_bridge.h"
#include "suites/dot/dot_cases.h"
#include "suites/dot/dot_tolerance.h"

namespace tandem {
namespace {

struct InputFormat {
  const char* preset;
  ref::FloatFormat format;  // the format the preset rounds its inputs to
  int dropped_bits;         // f32 mantissa bits the conversion drops (normal range)
};

// Moves x off an exact tie of the conversion (dropped bits = 100…0) by one f32 ulp.
float off_tie(float x, int dropped) {
  uint32_t u = f32_bits(x), mask = (1u << dropped) - 1u;
  if ((u & mask) == (1u << (dropped - 1))) ++u;
  return f32_from_bits(u);
}

Case input_rounding_case(const InputFormat& f) {
  constexpr int64_t M = 8, K = 64, N = 8;
  Case c;
  c.suite = "dot";
  c.name = cat("dot/input_rounding/M:", M, "/K:", K, "/N:", N, "/alg:", f.preset);
  c.params = {{"algorithm", f.preset}, {"m", M}, {"k", K}, {"n", N}};
  c.profiles = profiles_from("quick");
  c.instantiate = [f, name = c.name](Device dev) {
    auto in = std::make_shared<std::vector<Tensor>>();
    for (auto [shape, key] : {std::pair{Shape{M, K}, "/lhs"}, std::pair{Shape{K, N}, "/rhs"}}) {
      Tensor t = seeded_uniform(shape, DType::f32, name + key);
      for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = off_tie(t.data<float>()[i], f.dropped_bits);
      in->push_back(t);
    }
    // want: the exact dot of the inputs rounded to nearest by the reference.
    std::vector<ref::Array> rounded;
    for (const Tensor& t : *in) {
      ref::Array a = to_ref(t);
      for (double& v : a.data) v = ref::round_to_format(f.format, v);
      a.dtype = DType::f64;
      rounded.push_back(a);
    }
    ref::DotDims d{{1}, {0}, {}, {}};
    auto want = std::make_shared<std::vector<double>>(ref::dot_general(rounded[0], rounded[1], d, DType::f64).data);
    auto scale = std::make_shared<std::vector<double>>(dot_abs_scale(from_ref(rounded[0]), from_ref(rounded[1]), d));
    auto prog = std::make_shared<Program>(matmul(M, K, N, f.preset));
    auto in_dev = std::make_shared<std::vector<Tensor>>();
    for (const Tensor& t : *in) in_dev->push_back(t.to(dev));
    CaseInstance inst;
    inst.body = [prog, in_dev, dev] { Executor(dev).run(*prog, *in_dev); };
    inst.check = [prog, in_dev, dev, want, scale] {
      std::vector<double> got = Executor(dev).run(*prog, *in_dev)[0].to(Device::cpu()).to_f64();
      // f32 accumulation of exact products (K terms) and the f32 output rounding.
      ErrorSpec spec{0, 0x1p-24, double(K) * 0x1p-24,
                     "K*u_acc*sum|a~||b~| + u_out*|want|, want = exact dot of the RNE-rounded inputs, u_acc=u_out=2^-24"};
      CaseResult r;
      CompareReport rep = compare(*want, got, spec, scale.get());
      r.correctness["out"] = rep.to_json();
      r.correctness["out"]["tolerance"] = {{"abs", spec.abs}, {"rel", spec.rel}, {"scaled", spec.scaled}, {"why", spec.why}};
      if (!rep.pass) {
        r.verdict = Verdict::fail;
        r.message = "inputs not rounded to nearest: " + rep.text();
      }
      return r;
    };
    return inst;
  };
  return c;
}

// Row 0 of lhs is +Inf, the rest finite; rhs holds multiples of 2^-7 in [0.5, 1], exact in
// bf16 and tf32, so every split's lo part of rhs is 0. Exact result: +Inf in row 0.
Case inf_exact_rhs_case(const std::string& preset) {
  return special_inputs_case("inf_exact_rhs", preset, [](float* lhs, float* rhs) {
    lhs[2] = INFINITY;
    for (int64_t i = 0; i < 8 * 4; ++i) rhs[i] = std::round(rhs[i] * 128) / 128;
  });
}

}  // namespace

void register_dot_rounding_cases(Registry& r) {
  const ref::FloatFormat tf32{11, -126, 127};
  for (const InputFormat& f : {InputFormat{"TF32_TF32_F32", tf32, 13},
                               InputFormat{"BF16_BF16_F32", ref::float_format(DType::bf16), 16},
                               InputFormat{"F16_F16_F32", ref::float_format(DType::f16), 13}})
    r.add(input_rounding_case(f));
  for (const char* p : {"BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32_X3"})
    r.add(inf_exact_rhs_case(p));
}

}  // namespace tandem
