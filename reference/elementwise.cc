// Elementwise reference ops (unary, integer_pow, binary, compare, select, convert): one plain
// loop each, f64 arithmetic, one rounding to the output dtype at the end.
#include "reference/elementwise.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "reference/rounding.h"

namespace tandem::ref {
namespace {

std::string name(DType t) { return std::string(dtype_name(t)); }

// Wraps an exact integer result into int32 the way two's-complement arithmetic does.
double wrap_i32(int64_t v) {
  return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(v)));
}


// Shape of an elementwise result of a and b: equal shapes, or a rank-0 side broadcasts.
std::vector<int64_t> broadcast_shape(const char* what, const Array& a, const Array& b) {
  check_array(a, what);
  check_array(b, what);
  require(a.dtype == b.dtype, std::string(what) + ": dtype mismatch " + name(a.dtype) + " vs " + name(b.dtype));
  if (a.shape == b.shape || b.shape.empty()) return a.shape;
  if (a.shape.empty()) return b.shape;
  throw std::invalid_argument(std::string(what) + ": shape mismatch " + shape_string(a.shape) +
                              " vs " + shape_string(b.shape));
}

// Element i of x when x is either full-size or rank 0 (broadcast).
double at(const Array& x, int64_t i) { return x.shape.empty() ? x.data[0] : x.data[i]; }

double nan_or(double a, double b, double r) {
  return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : r;
}

// max / min's backward: JAX's balanced rule: an operand equal to the result takes the
// cotangent times 1 (alone) or 1/2 (a tie), else times 0; a NaN result equals neither.
template <bool kMax>
void balanced_backward(double x, double y, double c, double& ga, double& gb) {
  const double r = std::isnan(x) || std::isnan(y) ? x + y : kMax ? std::fmax(x, y) : std::fmin(x, y);
  const double sa = x == r ? (y == r ? 0.5 : 1.0) : 0.0, sb = y == r ? (x == r ? 0.5 : 1.0) : 0.0;
  ga = c * sa, gb = c * sb;
}

// IEEE comparisons: every one involving NaN is false, except "ne".
bool compare_f64(const std::string& direction, double x, double y) {
  if (direction == "eq") return x == y;
  if (direction == "ne") return x != y;
  if (direction == "lt") return x < y;
  if (direction == "le") return x <= y;
  if (direction == "gt") return x > y;
  if (direction == "ge") return x >= y;
  throw std::invalid_argument("compare: unknown direction '" + direction + "'");
}

}  // namespace

// Values in f64 (libm); derivatives from y where that is the cheaper form.
const std::vector<UnaryOp>& unary_ops() {
  static const std::vector<UnaryOp> ops = {
      {"neg", [](double x) { return -x; }, [](double, double) { return -1.0; }},
      // No derivative: the tape treats it as a constant (grad_tape.cc).
      {"stop_gradient", [](double x) { return x; }, nullptr},
      {"exp", [](double x) { return std::exp(x); }, [](double, double y) { return y; }},
      {"log", [](double x) { return std::log(x); }, [](double x, double) { return 1 / x; }},
      {"sin", [](double x) { return std::sin(x); }, [](double x, double) { return std::cos(x); }},
      {"cos", [](double x) { return std::cos(x); }, [](double x, double) { return -std::sin(x); }},
      {"tanh", [](double x) { return std::tanh(x); }, [](double, double y) { return 1 - y * y; }},
      {"logistic", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, [](double, double y) { return y * (1 - y); }},
      {"sqrt", [](double x) { return std::sqrt(x); }, [](double, double y) { return 0.5 / y; }},
      {"erf", [](double x) { return std::erf(x); }, [](double x, double) { return 2 / std::sqrt(M_PI) * std::exp(-x * x); }},
      {"expm1", [](double x) { return std::expm1(x); }, [](double, double y) { return y + 1; }},
      // abs: JAX's derivative is +1 where x >= 0 (zero included), -1 elsewhere (NaN included).
      {"abs", [](double x) { return std::fabs(x); }, [](double x, double) { return x >= 0 ? 1.0 : -1.0; }},
      // sign keeps ±0 and NaN; no derivative (JAX's is a symbolic zero), as floor's.
      {"sign", [](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }, nullptr},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, [](double x, double y) { return -0.5 * y / x; }},
      {"log1p", [](double x) { return std::log1p(x); }, [](double x, double) { return 1 / (1 + x); }},
      {"erfc", [](double x) { return std::erfc(x); }, [](double x, double) { return -2 / std::sqrt(M_PI) * std::exp(-x * x); }},
      {"floor", [](double x) { return std::floor(x); }, nullptr},
  };
  return ops;
}

// i32 values are exact in int64 and wrapped once; floats in f64, rounded once by binary().
const std::vector<BinaryOp>& binary_ops() {
  static const std::vector<BinaryOp> ops = {
      {"add", [](int64_t a, int64_t b) { return wrap_i32(a + b); }, [](double a, double b) { return a + b; }, false,
       [](double, double, double c, double& ga, double& gb) { ga = c, gb = c; }},
      {"sub", [](int64_t a, int64_t b) { return wrap_i32(a - b); }, [](double a, double b) { return a - b; }, false,
       [](double, double, double c, double& ga, double& gb) { ga = c, gb = -c; }},
      {"mul", [](int64_t a, int64_t b) { return wrap_i32(a * b); },  // |a*b| <= 2^62: exact in int64
       [](double a, double b) { return a * b; }, false,
       [](double x, double y, double c, double& ga, double& gb) { ga = c * y, gb = c * x; }},
      {"div",
       [](int64_t a, int64_t b) {
         require(b != 0, "binary: i32 division by zero");
         return wrap_i32(a / b);  // C++ '/' truncates toward zero; INT32_MIN / -1 wraps
       },
       [](double a, double b) { return a / b; }, false,
       // y's in the order of JAX's transpose of (-t·x)·y⁻²: c·y⁻² first, so that c·x never
       // overflows to inf / inf = NaN where y·y is inf (x = y = DBL_MAX: -0, as JAX).
       [](double x, double y, double c, double& ga, double& gb) { ga = c / y, gb = -((c * (1 / (y * y))) * x); }},
      {"max", [](int64_t a, int64_t b) { return static_cast<double>(a > b ? a : b); },
       [](double a, double b) { return nan_or(a, b, a > b ? a : b); }, true, balanced_backward<true>},
      {"min", [](int64_t a, int64_t b) { return static_cast<double>(a < b ? a : b); },
       [](double a, double b) { return nan_or(a, b, a < b ? a : b); }, true, balanced_backward<false>},
      // rem: the remainder of truncated division (C's fmod), the dividend's sign. i32 as XLA
      // defines it: x rem 0 = x, INT32_MIN rem -1 = 0. y's derivative: -sign(x/y)·floor(|x/y|).
      {"rem", [](int64_t a, int64_t b) { return b == 0 ? double(a) : double(a - (a / b) * b); },
       [](double a, double b) { return std::fmod(a, b); }, false,
       [](double x, double y, double c, double& ga, double& gb) {
         const double q = x / y;
         ga = c, gb = -c * (q > 0 ? 1.0 : q < 0 ? -1.0 : q) * std::floor(std::fabs(q));
       }},
      // pow: floats only. Derivatives as JAX writes them: y·x^(y-1) (NaN at x = y = 0) and
      // log(x)·x^y with log(1) = 0 taken where x = 0.
      {"pow", [](int64_t, int64_t) -> double { throw std::invalid_argument("binary pow: integer operands"); },
       [](double a, double b) { return std::pow(a, b); }, false,
       [](double x, double y, double c, double& ga, double& gb) {
         ga = c * (y * std::pow(x, y - 1)), gb = c * (std::log(x == 0 ? 1.0 : x) * std::pow(x, y));
       }},
  };
  return ops;
}

const BinaryOp& binary_op(const std::string& op) {
  for (const BinaryOp& o : binary_ops())
    if (op == o.name) return o;
  throw std::invalid_argument("binary: unknown op '" + op + "'");
}

const UnaryOp& unary_op(const std::string& op) {
  for (const UnaryOp& u : unary_ops())
    if (op == u.name) return u;
  throw std::invalid_argument("unary: unknown op '" + op + "'");
}

Array unary(const std::string& op, const Array& x) {
  check_array(x, "unary " + op);
  const UnaryOp& u = unary_op(op);  // rejects an unknown op before the dtype check
  // neg, abs and sign take i32 as in JAX (neg and abs wrap at INT_MIN: round_to wraps).
  const bool int_ok = (op == "neg" || op == "abs" || op == "sign") && x.dtype == DType::i32;
  require(is_floating(x.dtype) || int_ok, "unary " + op + ": unsupported dtype " + name(x.dtype));
  Array out{x.shape, x.dtype, std::vector<double>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) out.data[i] = round_to(x.dtype, u.value(x.data[i]));
  return out;
}

Array integer_pow(const Array& x, int64_t y) {
  check_array(x, "integer_pow");
  require(is_floating(x.dtype) || x.dtype == DType::i32, "integer_pow: unsupported dtype " + name(x.dtype));
  require(x.dtype != DType::i32 || y >= 0,
          "integer_pow: integers cannot be raised to a negative power (y = " + std::to_string(y) + ")");
  Array out{x.shape, x.dtype, std::vector<double>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) {
    if (x.dtype == DType::i32) {
      uint32_t base = static_cast<uint32_t>(static_cast<int32_t>(x.data[i]));
      uint32_t r = 1;  // unsigned arithmetic wraps modulo 2^32 without undefined behaviour
      for (int64_t k = y; k > 0; k >>= 1, base *= base)  // square-and-multiply
        if (k & 1) r *= base;
      out.data[i] = static_cast<double>(static_cast<int32_t>(r));
    } else {
      out.data[i] = round_to(x.dtype, y == 0 ? 1.0 : std::pow(x.data[i], static_cast<double>(y)));
    }
  }
  return out;
}

Array binary(const std::string& op, const Array& a, const Array& b) {
  std::vector<int64_t> shape = broadcast_shape("binary", a, b);
  const BinaryOp& o = binary_op(op);  // rejects an unknown op
  const DType t = a.dtype;
  require(t != DType::pred || o.on_pred, "binary " + op + ": unsupported dtype pred");
  Array out{std::move(shape), t, {}};
  const int64_t n = out.numel();
  out.data.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double x = at(a, i), y = at(b, i);
    out.data[i] = t == DType::i32 ? o.i32(static_cast<int64_t>(x), static_cast<int64_t>(y)) : round_to(t, o.f64(x, y));
  }
  return out;
}

Array compare(const Array& a, const Array& b, const std::string& direction) {
  std::vector<int64_t> shape = broadcast_shape("compare", a, b);
  compare_f64(direction, 0.0, 0.0);  // rejects an unknown direction
  Array out{std::move(shape), DType::pred, {}};
  const int64_t n = out.numel();
  out.data.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.data[i] = compare_f64(direction, at(a, i), at(b, i)) ? 1.0 : 0.0;
  return out;
}

Array is_finite(const Array& x) {
  check_array(x, "is_finite");
  require(is_floating(x.dtype), "is_finite: unsupported dtype " + name(x.dtype));
  Array out{x.shape, DType::pred, std::vector<double>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) out.data[i] = std::isfinite(x.data[i]) ? 1.0 : 0.0;
  return out;
}

Array select(const Array& pred, const Array& on_true, const Array& on_false) {
  check_array(pred, "select");
  check_array(on_true, "select");
  check_array(on_false, "select");
  require(pred.dtype == DType::pred, "select: predicate must be pred, got " + name(pred.dtype));
  require(on_true.dtype == on_false.dtype && on_true.shape == on_false.shape,
          "select: branches differ: " + name(on_true.dtype) + shape_string(on_true.shape) + " vs " +
              name(on_false.dtype) + shape_string(on_false.shape));
  require(pred.shape.empty() || pred.shape == on_true.shape,
          "select: predicate shape " + shape_string(pred.shape) + " is neither rank 0 nor " +
              shape_string(on_true.shape));
  Array out = on_true;
  for (size_t i = 0; i < out.data.size(); ++i)
    if (at(pred, static_cast<int64_t>(i)) == 0.0) out.data[i] = on_false.data[i];
  return out;
}

Array convert(const Array& x, DType to) {
  check_array(x, "convert");
  Array out{x.shape, to, std::vector<double>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) {
    const double v = x.data[i];
    if (to == DType::i32 && is_floating(x.dtype)) {
      out.data[i] = std::isnan(v) ? 0.0 : std::trunc(std::fmin(std::fmax(v, -2147483648.0), 2147483647.0)) + 0.0;
    } else {
      out.data[i] = round_to(to, v);  // pred -> number: the stored 0 / 1 is exact
    }
  }
  return out;
}

Array bitwise(const std::string& op, const Array& a, const Array& b) {
  std::vector<int64_t> shape = broadcast_shape("bitwise", a, b);
  require(a.dtype == DType::pred || a.dtype == DType::i32, "bitwise " + op + ": unsupported dtype " + name(a.dtype));
  require(op == "not" || op == "and" || op == "or" || op == "xor", "bitwise: unknown op '" + op + "'");
  // bool as the bits 0 / 1, i32 as its 32 bits: "not" flips exactly those bits.
  const uint32_t ones = a.dtype == DType::pred ? 1u : 0xffffffffu;
  Array out{std::move(shape), a.dtype, {}};
  out.data.resize(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    const uint32_t x = static_cast<uint32_t>(static_cast<int64_t>(at(a, i)));
    const uint32_t y = static_cast<uint32_t>(static_cast<int64_t>(at(b, i)));
    const uint32_t r = op == "not" ? x ^ ones : op == "and" ? x & y : op == "or" ? x | y : x ^ y;
    out.data[i] = a.dtype == DType::pred ? double(r) : double(static_cast<int32_t>(r));
  }
  return out;
}

Array round(const Array& x, const std::string& rounding_method) {
  check_array(x, "round");
  require(is_floating(x.dtype), "round: unsupported dtype " + name(x.dtype));
  const bool even = rounding_method == "TO_NEAREST_EVEN";
  require(even || rounding_method == "AWAY_FROM_ZERO", "round: unknown rounding_method '" + rounding_method + "'");
  Array out{x.shape, x.dtype, std::vector<double>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) {
    const double v = x.data[i];
    double r = std::round(v);  // half-way away from zero
    // A half-way case rounds to the even neighbour: twice the rounded half (exact in binary).
    if (even && std::fabs(v - std::trunc(v)) == 0.5) r = 2.0 * std::round(v / 2.0);
    out.data[i] = round_to(x.dtype, r);
  }
  return out;
}

}  // namespace tandem::ref
