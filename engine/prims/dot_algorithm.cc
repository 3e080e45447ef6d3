// DotAlgorithm resolution and backend support (the preset table: engine/core/dot_algorithm_types.cc).
#include "engine/prims/dot_algorithm.h"

#include "engine/core/error.h"

namespace tandem {

static std::string known_names() {
  std::string r = "HIGH, HIGHEST";
  for (const auto& i : all_algorithms()) r += std::string(", ") + i.name;
  return r;
}

SupportEntry algorithm_support(DotAlgorithm a, DeviceKind backend) {
  using A = DotAlgorithm;
  bool cpu = backend == DeviceKind::cpu;
  switch (a) {
    case A::ANY_F8_ANY_F8_F32:
    case A::ANY_F8_ANY_F8_ANY:
      return cpu ? SupportEntry{Support::emulated, "operands rounded to f8 (e4m3fn or e5m2, nearest even as JAX converts), "
                                                   "exact products, sgemm (f32 accumulation)"}
                 : SupportEntry{Support::unsupported, "tandem has no cuBLASLt FP8 path (the CPU emulates the preset)"};
    case A::ANY_F8_ANY_F8_F32_FAST_ACCUM:
    case A::ANY_F8_ANY_F8_ANY_FAST_ACCUM:
      // cuBLASLt's fast FP8 accumulation keeps fewer bits than f32 in hardware-specific,
      // undocumented ways: the CPU does not model it and says it runs the full f32 sum.
      return cpu ? SupportEntry{Support::emulated, "as the non-FAST preset: f8 operands, full f32 accumulation "
                                                   "(cuBLASLt's reduced-precision fast accumulation is not modelled)"}
                 : SupportEntry{Support::unsupported, "tandem has no cuBLASLt FP8 path (the CPU emulates the preset)"};
    case A::DEFAULT: return {Support::native, "resolved from precision and input dtype"};
    case A::F32_F32_F32: return {Support::native, cpu ? "sgemm" : "cuBLAS CUBLAS_COMPUTE_32F_PEDANTIC"};
    case A::F64_F64_F64: return {Support::native, cpu ? "dgemm" : "cuBLAS CUBLAS_COMPUTE_64F"};
    case A::TF32_TF32_F32:
      return cpu ? SupportEntry{Support::emulated, "inputs rounded to tf32 (RNE), sgemm"}
                 : SupportEntry{Support::native, "inputs rounded to tf32 (RNE) by tandem, cuBLAS CUBLAS_COMPUTE_32F_FAST_TF32"};
    case A::BF16_BF16_F32:
      return cpu ? SupportEntry{Support::emulated, "inputs rounded to bf16 (RNE), sgemm"}
                 : SupportEntry{Support::native, "cuBLAS bf16 inputs, CUBLAS_COMPUTE_32F"};
    case A::F16_F16_F32:
      return cpu ? SupportEntry{Support::emulated, "inputs rounded to f16 (RNE), sgemm"}
                 : SupportEntry{Support::native, "cuBLAS f16 inputs, CUBLAS_COMPUTE_32F"};
    case A::F16_F16_F16:
      return cpu ? SupportEntry{Support::emulated, "f16 inputs, f16 accumulator rounded after every add (slow loop)"}
                 : SupportEntry{Support::native, "cuBLAS CUBLAS_COMPUTE_16F"};
    case A::BF16_BF16_BF16:
      return cpu ? SupportEntry{Support::emulated, "bf16 inputs, bf16 accumulator rounded after every add (slow loop)"}
                 : SupportEntry{Support::emulated, "device loop, bf16 accumulator rounded after every add (cuBLAS has no bf16 compute type)"};
    case A::BF16_BF16_F32_X3:
    case A::BF16_BF16_F32_X6:
    case A::BF16_BF16_F32_X9:
      return {Support::emulated, cat(algorithm_info(a).products,
                                     " bf16 partial GEMMs (hi=trunc, lo=RNE), small terms first",
                                     cpu ? ", sgemm" : ", cuBLAS bf16 inputs / 32F compute")};
    case A::TF32_TF32_F32_X3:
      return {Support::emulated, cat("3 tf32 partial GEMMs, small terms first",
                                     cpu ? ", sgemm" : ", cuBLAS 32F_FAST_TF32")};
  }
  return {Support::unsupported, "unknown"};
}

const char* support_name(Support s) {
  switch (s) {
    case Support::native: return "native";
    case Support::emulated: return "emulated";
    case Support::unsupported: return "unsupported";
  }
  return "?";
}

DotAlgorithm resolve_dot_algorithm(const std::string& precision, DType in, DeviceKind backend) {
  using A = DotAlgorithm;
  std::optional<DotAlgorithm> a = parse_algorithm(precision);
  if (a && *a != A::DEFAULT) {
    SupportEntry s = algorithm_support(*a, backend);
    if (s.support == Support::unsupported)
      throw_unsupported(cat("dot_general: algorithm ", precision, " is unsupported on ",
                            backend == DeviceKind::cpu ? "cpu" : "cuda", ": ", s.how),
                        "pick another preset (tandem list --algorithms)");
    if (in == DType::i32 || in == DType::pred)
      throw_bad_input(cat("dot_general: algorithm ", precision, " needs floating inputs, got ", dtype_name(in)));
    return *a;
  }
  std::optional<Precision> p = a ? Precision::DEFAULT : parse_precision(precision);
  if (!p)
    throw_bad_input(cat("dot_general: unknown precision or algorithm '", precision, "'"),
                    "one of DEFAULT, " + known_names());
  switch (in) {
    case DType::f64: return A::F64_F64_F64;
    case DType::bf16: return A::BF16_BF16_F32;
    case DType::f16: return A::F16_F16_F32;
    case DType::f32:
      // XLA:CPU runs every precision as plain f32; XLA:GPU lets DEFAULT and HIGH use TF32.
      if (backend == DeviceKind::cuda && *p != Precision::HIGHEST) return A::TF32_TF32_F32;
      return A::F32_F32_F32;
    default: return A::DEFAULT;  // integers: exact integer product, no float algorithm
  }
}

DotAlgorithm resolve_dot_algorithm(const std::string& precision, DType in, DType out, DeviceKind backend) {
  DotAlgorithm a = resolve_dot_algorithm(precision, in, backend);
  // Without a preset, JAX's preferred_element_type is the accumulation type ("a hint to the
  // compiler to accumulate the dot product using this data type"): f32 operands with an f64
  // result are accumulated in f64 (XLA:CPU does; tools/oracles/dot_vs_jax.py checks it).
  const std::optional<DotAlgorithm> preset = parse_algorithm(precision);
  if ((!preset || *preset == DotAlgorithm::DEFAULT) && out == DType::f64 && is_floating(in)) return DotAlgorithm::F64_F64_F64;
  return a;
}

DType promote_dot_inputs(DType l, DType r) {
  if (l == r) return l;
  if (l == DType::pred || r == DType::pred)
    throw_bad_input("dot_general: bool operands are not supported", "convert to a numeric dtype");
  if (l == DType::i32) return r;
  if (r == DType::i32) return l;
  if (l == DType::f64 || r == DType::f64) return DType::f64;
  return DType::f32;  // f32 with bf16/f16, or bf16 with f16
}

}  // namespace tandem
