// Dot cases that pin down two things the preset error classes cannot (docs/FAULTS.md):
//  - input_rounding: a rounded-input preset (TF32, BF16, F16 inputs, f32 accumulation) against
//    the exact dot of the inputs rounded to nearest by the reference itself. What is left is
//    accumulation error only (K·u_acc·Σ|ab|), ~2^7 times below the input rounding, so an
//    engine that truncates its inputs (or rounds them any other wrong way) fails, while the
//    error-class bound (2·u_in + K·u_acc)·Σ|ab| admits truncation. Inputs whose dropped bits
//    are an exact tie are nudged off it, so any round-to-nearest (ties even or away) passes.
//  - ties: the inputs are the exact ties of the format the preset rounds its inputs to (or of
//    the output dtype the result is rounded to), times 1, so the result is that one rounding,
//    compared exactly with round-to-nearest-even (reference/rounding, reference/f8; JAX's
//    converts, runners/cli/dot_ties_vs_ml_dtypes_test.py): the cases input_rounding nudges
//    off the tie, where round-half-away passes every tolerance.
//  - inf_exact_rhs: the split presets with +Inf against a right-hand side exactly
//    representable in one bf16 part (lo = 0), where a lost NaN guard turns Inf·0 cross terms
//    into NaN; random right-hand sides (dot/special/inf_nan) never have lo = 0.
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "bridge/error_spec.h"
#include "bridge/reference_bridge.h"
#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/prims/dot_algorithm.h"
#include "harness/case.h"
#include "harness/program_case.h"
#include "reference/f8.h"
#include "reference/rounding.h"
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

// The instance of a case whose lhs [N, 1] = x (dtype in) times rhs [[1]] through p must give want exactly (`why`, the
// record's reason); a miss names the first wrong input, `wrong`, and how many of x are `counted`.
CaseInstance times_one(Device dev, const Program& p, DType in, const std::vector<double>& x,
                       const std::vector<double>& want, const char* why, const char* wrong, const char* counted) {
  auto prog = std::make_shared<Program>(p);
  auto args = std::make_shared<std::vector<Tensor>>(std::vector<Tensor>{
      Tensor::from_f64(x, {int64_t(x.size()), 1}, in).to(dev), Tensor::from_f64({1.0}, {1, 1}, in).to(dev)});
  CaseInstance inst;
  inst.body = [prog, args, dev] { Executor(dev).run(*prog, *args); };
  inst.check = [prog, args, dev, want, x, why, wrong, counted] {
    std::vector<double> got = Executor(dev).run(*prog, *args)[0].to(Device::cpu()).to_f64();
    CompareReport rep = compare(want, got, ErrorSpec{0, 0, 0, why});
    CaseResult r;
    r.correctness["out"] = rep.to_json();
    if (!rep.pass) {
      r.verdict = Verdict::fail;
      r.message = cat(wrong, ": ", x[size_t(rep.first_bad)], " gave ", rep.got, ", want ", rep.expected, " (",
                      rep.bad, " of ", x.size(), " ", counted, ")");
    }
    return r;
  };
  return inst;
}

// What a tie case rounds: the preset's inputs (f8 / TF32 / bf16 / f16) and then the result into out.
struct TieRounding {
  std::string preset;
  DType in = DType::f32, out = DType::f32;
  std::optional<F8Format> f8{};      // the lhs's f8 format under an ANY_F8 preset
  std::optional<DType> pref{};       // preferred_element_type, when the output is rounded
};

// The ties of the format the case rounds to: the f8 format, TF32, the preset's storage, else out.
std::vector<double> ties_for(const TieRounding& t, const AlgorithmInfo& info) {
  if (t.f8) {
    const F8Info& f = f8_info(*t.f8);
    std::vector<double> x = ref::tie_points(f.mantissa_bits + 1, f.min_exponent, f.max_finite);
    // Past the finite range, both signs: e4m3fn has no Inf (what rounds past its largest
    // finite value is NaN), e5m2 overflows to Inf; the boundary is half an ulp above the largest.
    // Its f32 neighbours, as the f32 operand holds them (e4m3fn: 464 is a tie to 448's even).
    const float edge = float(f.max_finite + std::ldexp(1.0, std::ilogb(f.max_finite) - f.mantissa_bits - 1));
    for (double v : {f.max_finite, double(std::nextafter(edge, 0.0f)), double(edge), double(std::nextafter(edge, INFINITY)),
                     2 * f.max_finite, 1e30})
      x.push_back(v), x.push_back(-v);
    return x;
  }
  if (info.tf32_inputs) return ref::tie_points(11, -126, std::ldexp(2.0 - 0x1p-10, 127));  // TF32: f32's range, 11 bits
  if (info.storage == DType::bf16 || info.storage == DType::f16) return ref::tie_points(info.storage);
  return ref::tie_points(t.out);
}

// lhs [N, 1] of ties times rhs [[1]]: one exact product per output, so out[i] is the preset's
// rounding of lhs[i] and then the output's, nothing else: checked exactly.
Case ties_case(const TieRounding& t) {
  Case c;
  c.suite = "dot";
  c.name = cat("dot/ties/alg:", t.preset, t.f8 ? cat("/f8:", f8_info(*t.f8).name) : std::string(),
               "/in:", dtype_name(t.in), t.pref ? cat("/out:", dtype_name(*t.pref)) : std::string());
  c.params = {{"algorithm", t.preset}, {"input_dtype", dtype_name(t.in)}, {"output_dtype", dtype_name(t.out)}};
  c.profiles = profiles_from("quick");
  c.instantiate = [t](Device dev) {
    const AlgorithmInfo& info = algorithm_info(resolve_dot_algorithm(t.preset, t.in, t.out, dev.kind));
    std::vector<double> x = ties_for(t, info);
    const int64_t n = int64_t(x.size());
    Builder b;
    Value lhs = b.input({n, 1}, t.in), rhs = b.input({1, 1}, t.in);
    std::optional<F8Operands> f8;
    if (t.f8) f8 = F8Operands{*t.f8, F8Format::e4m3fn};  // rhs = 1 is exact in both
    Program p = b.build({dot_general(lhs, rhs, DotDims{{1}, {0}, {}, {}}, t.preset, t.pref, f8)});
    std::vector<double> want;
    for (double v : x) {
      if (t.f8) v = ref::round_to_f8(f8_info(*t.f8).name, v);
      else if (info.tf32_inputs) v = ref::round_to_format({11, -126, 127}, v);
      else if (info.storage == DType::bf16 || info.storage == DType::f16) v = ref::round_to(info.storage, v);
      want.push_back(ref::round_to(t.out, v));
    }
    return times_one(dev, p, t.in, x, want, "exact: one rounding to nearest, ties to even, of each tie",
                     "a tie not rounded to even", "ties wrong");
  };
  return c;
}

// A split preset's parts isolated: lhs = H + T times rhs = 1, H exact in the part format
// (precision p: bf16 8, tf32 11) with its last bit set, T below H's last bit and an exact tie
// at precision p. The split's hi part is H (a truncation), its last part T rounded to nearest
// even at p; every product with rhs's zero lo part vanishes, so out = H + round_p(T), exact
// in f32. A last part rounded at another width, or a split at another width, changes it.
Case split_ties_case(const char* preset, const ref::FloatFormat& part) {
  Case c;
  c.suite = "dot";
  c.name = cat("dot/ties/alg:", preset, "/parts/in:f32");
  c.params = {{"algorithm", preset}, {"input_dtype", "f32"}, {"output_dtype", "f32"}};
  c.profiles = profiles_from("quick");
  c.instantiate = [preset, part](Device dev) {
    const int p = part.precision;
    const double H = 1 + std::ldexp(1.0, 1 - p);  // p significant bits, the last one set
    std::vector<double> x, want;
    for (double scale : {0x1p-6, 1.0, 0x1p+9})
      for (double sign : {1.0, -1.0})
        for (int j = 0; j < 8; ++j) {
          const double t = std::ldexp(double((1 << p) + 2 * j + 1), -2 * p - 1);  // p+1 bits, odd: a tie
          x.push_back(sign * scale * (H + t));
          want.push_back(sign * scale * (H + ref::round_to_format(part, t)));
        }
    const int64_t n = int64_t(x.size());
    Builder b;
    Value lhs = b.input({n, 1}, DType::f32), rhs = b.input({1, 1}, DType::f32);
    return times_one(dev, b.build({dot_general(lhs, rhs, DotDims{{1}, {0}, {}, {}}, preset)}), DType::f32, x, want,
                     "exact: H + the last part's tie to even", "a split part rounded wrong", "wrong");
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
  // Ties of every rounding a preset applies: its inputs (each narrowing preset, both f8
  // formats), and its output (f32 -> bf16 / f16, f64 -> f32).
  for (const AlgorithmInfo& info : all_algorithms())
    if (info.split == SplitFormat::none && (info.tf32_inputs || info.storage == DType::bf16 || info.storage == DType::f16))
      r.add(ties_case({info.name}));
  for (F8Format f : {F8Format::e4m3fn, F8Format::e5m2}) r.add(ties_case({"ANY_F8_ANY_F8_F32", DType::f32, DType::f32, f}));
  for (const char* p : {"DEFAULT", "F32_F32_F32"})
    for (DType out : {DType::bf16, DType::f16}) r.add(ties_case({p, DType::f32, out, std::nullopt, out}));
  r.add(ties_case({"DEFAULT", DType::f64, DType::f32, std::nullopt, DType::f32}));
  for (const char* p : {"BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32_X3"})
    r.add(inf_exact_rhs_case(p));
  // The two-part splits' last part (X6 and X9 split f32 in three, whose last part is exact).
  r.add(split_ties_case("BF16_BF16_F32_X3", ref::float_format(DType::bf16)));
  r.add(split_ties_case("TF32_TF32_F32_X3", tf32));
}

}  // namespace tandem
