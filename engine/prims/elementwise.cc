// Elementwise primitives: unary math and binary arithmetic (one row each in unary_ops.def and
// binary_ops.def), integer_pow, compare, select and convert_element_type. Shape rules follow lax: operands share dtype and shape, except that
// a rank-0 operand (a literal, say) broadcasts against the other.
#include <cmath>
#include <limits>

#include "engine/cpu/dispatch.h"
#include "engine/cpu/vector_math.h"
#include "engine/cpu/vector_math_exp.h"
#include "engine/ir/fusion.h"

namespace tandem {
namespace {
using cpu::compute_t;
using cpu::load;
using cpu::store;

std::vector<AType> unary_shape(const char* op, bool float_only, const std::vector<AType>& in) {
  if (in.size() != 1) throw_bad_input(cat(op, " takes 1 operand, got ", in.size()));
  if (in[0].dtype == DType::pred || (float_only && !is_floating(in[0].dtype)))
    throw_bad_input(cat(op, " needs a floating operand, got ", in[0].str()),
                    "convert_element_type the operand first");
  return {in[0]};
}

Shape binary_out_shape(const char* op, const AType& a, const AType& b) {
  if (a.shape == b.shape || b.rank() == 0) return a.shape;
  if (a.rank() == 0) return b.shape;
  throw_bad_input(cat(op, ": operand shapes differ: ", a.str(), " vs ", b.str()),
                  "lax ops need equal shapes; use broadcast_in_dim first");
}

std::vector<AType> binary_shape(const char* op, bool float_only, const std::vector<AType>& in) {
  if (in.size() != 2) throw_bad_input(cat(op, " takes 2 operands, got ", in.size()));
  if (in[0].dtype != in[1].dtype)
    throw_bad_input(cat(op, ": operand dtypes differ: ", in[0].str(), " vs ", in[1].str()),
                    "convert_element_type one operand first");
  if (in[0].dtype == DType::pred) throw_bad_input(cat(op, " is not defined on bool"));
  if (float_only && !is_floating(in[0].dtype))
    throw_bad_input(cat(op, " needs floating operands, got ", in[0].str()), "convert_element_type the operands first");
  return {AType{binary_out_shape(op, in[0], in[1]), in[0].dtype}};
}

// f is a template parameter, not a std::function, so it inlines and the loop vectorizes.
template <class T, class F>
void map_unary(const ElementBlock& b, F f) {
  const T* px = static_cast<const T*>(b.in[0]);
  T* po = static_cast<T*>(b.out);
  for (int64_t i = 0; i < b.n; ++i) po[i] = store<T>(f(load(px[i])));
}

// Applies f over two operands where either may be rank-0 (stride 0). The three cases are
// separate loops because a runtime stride keeps the compiler from vectorizing.
template <class T, class R, class F>
void map_binary(const ElementBlock& b, F f) {
  const T* pa = static_cast<const T*>(b.in[0]);
  const T* pb = static_cast<const T*>(b.in[1]);
  R* po = static_cast<R*>(b.out);
  const int64_t n = b.n;
  if (!b.scalar[0] && !b.scalar[1]) {
    for (int64_t i = 0; i < n; ++i) po[i] = f(load(pa[i]), load(pb[i]));
  } else if (!b.scalar[0]) {
    const auto vb = load(pb[0]);
    for (int64_t i = 0; i < n; ++i) po[i] = f(load(pa[i]), vb);
  } else if (!b.scalar[1]) {
    const auto va = load(pa[0]);
    for (int64_t i = 0; i < n; ++i) po[i] = f(va, load(pb[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) po[i] = f(load(pa[0]), load(pb[0]));
  }
}

template <class C> C nan_max(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
  }
  return a > b ? a : b;
}
template <class C> C nan_min(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN();
  }
  return a < b ? a : b;
}

template <class C> C checked_div(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if (b == 0) throw_bad_input("div: integer division by zero");
  }
  return a / b;
}

// C's fmod; integers as XLA: x rem 0 is x, x rem -1 is 0 (INT32_MIN % -1 would trap).
template <class C> C int_or_fmod(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if (b == 0) return a;
    return b == -1 ? C(0) : C(a % b);
  } else {
    return std::fmod(a, b);
  }
}
template <class C> C float_pow(C a, C b) {
  if constexpr (std::is_integral_v<C>) throw_bad_input("pow needs floating operands");
  else return std::pow(a, b);
}

template <class C> C int_pow(C x, int64_t y) {
  // Square-and-multiply, as XLA expands integer_pow; negative y takes the reciprocal.
  C acc = C(1), base = x;
  for (int64_t e = y < 0 ? -y : y; e > 0; e >>= 1, base *= base)
    if (e & 1) acc *= base;
  if (y < 0) return C(1) / acc;
  return acc;
}

// f32_array, when given, computes a whole f32 array at once (a vectorized kernel); bf16
// and f16 go through f32_fn element by element, which must then compute the same function.
using F32Array = void (*)(const float*, float*, int64_t);

template <class F64, class F32>
void register_unary(const char* name, bool float_only, F64 f64_fn, F32 f32_fn, F32Array f32_array) {
  Primitive p;
  p.name = name;
  p.traits = kElementwise | kElementwiseUnary;
  p.shape = [name, float_only](const std::vector<AType>& in, const Params&) {
    return unary_shape(name, float_only, in);
  };
  const BlockKernel kernel = [name, f64_fn, f32_fn, f32_array](const ElementBlock& b, const Params&) {
    cpu::dispatch_numeric(b.types[0], name, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, double>) map_unary<T>(b, f64_fn);
      else if constexpr (std::is_same_v<T, int32_t>) map_unary<T>(b, [&](int32_t v) { return int32_t(f64_fn(v)); });
      else if constexpr (std::is_same_v<T, float>) {
        if (f32_array) f32_array(static_cast<const float*>(b.in[0]), static_cast<float*>(b.out), b.n);
        else map_unary<T>(b, f32_fn);
      } else {
        map_unary<T>(b, f32_fn);
      }
    });
  };
  register_elementwise(std::move(p), kernel);
}

template <class Op>
void register_binary(const char* name, bool float_only, Op op) {
  Primitive p;
  p.name = name;
  p.traits = kElementwise | kElementwiseBinary;
  p.shape = [name, float_only](const std::vector<AType>& in, const Params&) { return binary_shape(name, float_only, in); };
  const BlockKernel kernel = [name, op](const ElementBlock& b, const Params&) {
    cpu::dispatch_numeric(b.types[0], name, [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      map_binary<T, T>(b, [&](C x, C y) { return store<T>(op(x, y)); });
    });
  };
  register_elementwise(std::move(p), kernel);
}

template <class C> bool compare_values(C a, C b, const std::string& d) {
  if (d == "eq") return a == b;
  if (d == "ne") return a != b;
  if (d == "lt") return a < b;
  if (d == "le") return a <= b;
  if (d == "gt") return a > b;
  return a >= b;
}

void check_direction(const std::string& d) {
  for (const char* ok : {"eq", "ne", "lt", "le", "gt", "ge"})
    if (d == ok) return;
  throw_bad_input(cat("compare: unknown direction '", d, "'"), "use eq ne lt le gt ge");
}

void register_compare() {
  Primitive p;
  p.name = "compare";
  p.traits = kElementwise;
  p.params = {"direction"};
  p.shape = [](const std::vector<AType>& in, const Params& params) {
    check_direction(params.get_string("direction", ""));
    if (in.size() != 2) throw_bad_input("compare takes 2 operands");
    if (in[0].dtype != in[1].dtype)
      throw_bad_input(cat("compare: operand dtypes differ: ", in[0].str(), " vs ", in[1].str()));
    return std::vector<AType>{AType{binary_out_shape("compare", in[0], in[1]), DType::pred}};
  };
  const BlockKernel kernel = [](const ElementBlock& b, const Params& params) {
    std::string d = params.get_string("direction", "");
    cpu::dispatch_any(b.types[0], "compare", [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      map_binary<T, uint8_t>(b, [&](C x, C y) { return uint8_t(compare_values(x, y, d)); });
    });
  };
  register_elementwise(std::move(p), kernel);
}

// is_finite: floating operand -> bool, false for ±Inf and NaN (jax.lax.is_finite). Not a row of
// unary_ops.def: its output dtype is not its operand's.
void register_is_finite() {
  Primitive p;
  p.name = "is_finite";
  p.traits = kElementwise;
  p.shape = [](const std::vector<AType>& in, const Params&) {
    if (in.size() != 1) throw_bad_input(cat("is_finite takes 1 operand, got ", in.size()));
    if (!is_floating(in[0].dtype))
      throw_bad_input(cat("is_finite needs a floating operand, got ", in[0].str()),
                      "an integer is always finite: use a literal true, or convert_element_type first");
    return std::vector<AType>{AType{in[0].shape, DType::pred}};
  };
  const BlockKernel kernel = [](const ElementBlock& b, const Params&) {
    cpu::dispatch_float(b.types[0], "is_finite", [&](auto tag) {
      using T = decltype(tag);
      const T* px = static_cast<const T*>(b.in[0]);
      uint8_t* po = static_cast<uint8_t*>(b.out);
      for (int64_t i = 0; i < b.n; ++i) po[i] = uint8_t(std::isfinite(double(load(px[i]))));
    });
  };
  register_elementwise(std::move(p), kernel);
}

void register_select() {
  Primitive p;
  p.name = "select";
  p.traits = kElementwise;
  p.shape = [](const std::vector<AType>& in, const Params&) {
    if (in.size() != 3) throw_bad_input("select takes 3 operands (pred, on_true, on_false)");
    if (in[0].dtype != DType::pred)
      throw_bad_input(cat("select: predicate must be bool, got ", in[0].str()));
    if (in[1] != in[2])
      throw_bad_input(cat("select: branch types differ: ", in[1].str(), " vs ", in[2].str()));
    if (in[0].rank() != 0 && in[0].shape != in[1].shape)
      throw_bad_input(cat("select: predicate shape ", in[0].str(), " vs operands ", in[1].str()),
                      "the predicate is rank-0 or has the operands' shape");
    return std::vector<AType>{in[1]};
  };
  const BlockKernel kernel = [](const ElementBlock& b, const Params&) {
    const uint8_t* pp = static_cast<const uint8_t*>(b.in[0]);
    const int64_t sp = b.scalar[0] ? 0 : 1;
    const size_t es = dtype_size(b.types[1]);
    auto* po = static_cast<char*>(b.out);
    auto* pt = static_cast<const char*>(b.in[1]);
    auto* pf = static_cast<const char*>(b.in[2]);
    for (int64_t i = 0; i < b.n; ++i) std::memcpy(po + i * es, (pp[i * sp] ? pt : pf) + i * es, es);
  };
  register_elementwise(std::move(p), kernel);
}

template <class To, class From> To convert_one(From v) {
  auto c = load(v);
  if constexpr (std::is_same_v<To, int32_t>) {
    if constexpr (std::is_floating_point_v<decltype(c)>) {
      // Float→int truncates toward zero; NaN → 0 and out-of-range values saturate.
      if (std::isnan(c)) return 0;
      if (c >= 2147483647.0) return std::numeric_limits<int32_t>::max();
      if (c <= -2147483648.0) return std::numeric_limits<int32_t>::min();
    }
    return int32_t(c);
  } else if constexpr (std::is_same_v<To, uint8_t>) {
    return uint8_t(c != 0);
  } else if constexpr (std::is_same_v<To, bf16> && std::is_same_v<From, double>) {
    return to_bf16(float(c));  // note: f64→f32→bf16; see tensor.cc on double rounding
  } else {
    return store<To>(compute_t<To>(c));
  }
}

void register_convert() {
  Primitive p;
  p.name = "convert_element_type";
  p.traits = kElementwise;
  p.params = {"new_dtype"};
  p.shape = [](const std::vector<AType>& in, const Params& params) {
    if (in.size() != 1) throw_bad_input("convert_element_type takes 1 operand");
    return std::vector<AType>{AType{in[0].shape, params.get_dtype("new_dtype")}};
  };
  const BlockKernel kernel = [](const ElementBlock& b, const Params& params) {
    cpu::dispatch_any(b.types[0], "convert", [&](auto from_tag) {
      using From = decltype(from_tag);
      cpu::dispatch_any(params.get_dtype("new_dtype"), "convert", [&](auto to_tag) {
        using To = decltype(to_tag);
        const From* src = static_cast<const From*>(b.in[0]);
        To* dst = static_cast<To*>(b.out);
        if constexpr (std::is_same_v<From, To>) std::memcpy(dst, src, size_t(b.n) * sizeof(To));  // the bits, as the impl's alias
        else for (int64_t i = 0; i < b.n; ++i) dst[i] = convert_one<To>(src[i]);
      });
    });
  };
  p.cpu = [whole = whole_array_impl(p.shape, kernel)](const std::vector<Tensor>& in, const Params& params,
                                                       EvalContext& ctx) {
    if (params.get_dtype("new_dtype") == in[0].dtype()) return std::vector<Tensor>{in[0]};  // no copy
    return whole(in, params, ctx);
  };
  register_elementwise(std::move(p), kernel);
}

void register_integer_pow() {
  Primitive p;
  p.name = "integer_pow";
  p.traits = kElementwise;
  p.params = {"y"};
  p.shape = [](const std::vector<AType>& in, const Params& params) {
    params.get_int("y");
    return unary_shape("integer_pow", false, in);
  };
  const BlockKernel kernel = [](const ElementBlock& b, const Params& params) {
    int64_t y = params.get_int("y");
    if (b.types[0] == DType::i32 && y < 0) throw_bad_input("integer_pow: negative exponent on an integer operand");
    cpu::dispatch_numeric(b.types[0], "integer_pow", [&](auto tag) {
      using T = decltype(tag);
      // x² is int_pow's result bit for bit (1·(x·x)); as its own loop it vectorizes.
      if (y == 2) map_unary<T>(b, [](compute_t<T> v) { return v * v; });
      else map_unary<T>(b, [&](compute_t<T> v) { return int_pow(v, y); });
    });
  };
  register_elementwise(std::move(p), kernel);
}

}  // namespace

void register_elementwise_primitives() {
#define TANDEM_UNARY(name, float_only, host_f64, host_f32, host_f32_array, ...)                 \
  register_unary(#name, float_only, [](double x) { return host_f64; }, [](float x) { return host_f32; }, \
                 host_f32_array);
#include "engine/prims/unary_ops.def"
  register_integer_pow();
#define TANDEM_BINARY(name, float_only, host, ...) register_binary(#name, float_only, [](auto a, auto b) { return host; });
#include "engine/prims/binary_ops.def"
  register_compare();
  register_is_finite();
  register_select();
  register_convert();
}

}  // namespace tandem
