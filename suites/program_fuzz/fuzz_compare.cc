// compare_results: shapes and dtypes first, then each element by class and tolerance.
#include "suites/program_fuzz/fuzz_compare.h"

#include <cmath>
#include <sstream>

#include "engine/core/error.h"
#include "suites/program_fuzz/fuzz_limits.h"

namespace tandem::fuzz {
namespace {

enum class Class { finite, nan, pos_inf, neg_inf };
Class class_of(double x) {
  if (std::isnan(x)) return Class::nan;
  if (std::isinf(x)) return x > 0 ? Class::pos_inf : Class::neg_inf;
  return Class::finite;
}

void disagree(Verdict& v, size_t result, const std::string& what) {
  if (!v.agree) return;
  v.agree = false;
  v.result = result;
  v.detail = cat("result ", result, ": ", what);
}

void compare_one(Verdict& v, size_t k, const Tensor& got, const ref::Array& want, const std::vector<ref::Array>& runs,
                 double backward_floor, double scale, double roundoff, bool class_may_differ) {
  if (got.shape() != want.shape) return disagree(v, k, cat("shape [", shape_str(got.shape()), "] vs the reference's [", shape_str(want.shape), "]"));
  if (got.dtype() != runs[0].dtype)
    return disagree(v, k, cat("dtype ", dtype_name(got.dtype()), " vs the reference's ", dtype_name(runs[0].dtype)));
  const std::vector<double> g = got.to_f64();
  const double u = unit_roundoff(got.dtype());
  const double floor = backward_floor * std::max(u, roundoff) * scale;
  // The subnormal range of the precision the program computes in (an f32-accumulated dot
  // with an f64 result rounds its tiny products as f32 does).
  const double computed_u = std::max(u, roundoff);
  const double subnormal = std::max(smallest_normal(got.dtype()),
                                    computed_u >= unit_roundoff(DType::f16) ? smallest_normal(DType::f16)
                                    : computed_u >= unit_roundoff(DType::f32) ? smallest_normal(DType::f32) : 0.0);
  for (size_t i = 0; i < g.size(); ++i) {
    const double w = want.data[i];
    double spread = 0;
    bool unstable = false;
    for (const ref::Array& r : runs) {
      unstable |= class_of(r.data[i]) != class_of(w);
      if (!unstable) spread = std::max(spread, std::fabs(r.data[i] - w));
    }
    if (unstable) { ++v.unstable; continue; }
    ++v.checked;
    if (class_may_differ && class_of(w) != class_of(g[i])) {  // inf vs NaN too: inf − inf in the narrower dtype
      --v.checked, ++v.unstable;
      continue;
    }
    // Past 1/sqrt(smallest normal), in a case with such arguments: a value that came through the
    // reciprocal of one whose square is subnormal in the computed precision (div's backward at
    // a = 1e-45), an absolute error of the subnormal grid that no per-equation model holds.
    if (class_may_differ && subnormal > 0 && std::fabs(w) > 1 / std::sqrt(subnormal) && std::isfinite(g[i])) {
      --v.checked, ++v.unstable;
      continue;
    }
    if (class_of(w) != Class::finite || class_of(g[i]) != Class::finite) {
      if (class_of(w) != class_of(g[i])) disagree(v, k, cat("element ", i, ": engine ", g[i], ", reference ", w));
      continue;
    }
    const double tol = kHeadroom * spread + kFinalRoundings * u * std::fabs(w) + floor + subnormal;
    const double err = std::fabs(g[i] - w);
    if (tol > 0) v.worst = std::max(v.worst, err / tol);
    if (err > tol)
      disagree(v, k, cat("element ", i, ": engine ", g[i], ", reference ", w, " (|diff| ", err, " > tolerance ", tol,
                         " = ", kHeadroom, " x spread ", spread, " + ", kFinalRoundings, " x u x |ref|)"));
  }
}

}  // namespace

Verdict compare_results(const std::vector<Tensor>& engine, const std::vector<ref::Array>& wide,
                        const std::vector<std::vector<ref::Array>>& runs, const ResultKinds& kinds) {
  Verdict v;
  if (engine.size() != wide.size()) {
    disagree(v, 0, cat("the engine gave ", engine.size(), " results, the reference ", wide.size()));
    return v;
  }
  // The magnitude the normwise floor is measured against: the largest finite argument or
  // result, as a result near 0 can be the cancellation of terms that large.
  double scale = kinds.argument_scale;
  for (const ref::Array& w : wide)
    for (double x : w.data)
      if (std::isfinite(x)) scale = std::max(scale, std::fabs(x));
  // A cotangent is no better conditioned than the forward values it is computed from: the
  // outputs' largest relative spread (an ill-conditioned forward, cos of 1e21) widens every
  // cotangent normwise by as much.
  double forward_spread = 0;
  for (size_t k = 0; k < std::min(kinds.first_cotangent, wide.size()); ++k)
    for (const auto& run : runs)
      for (size_t i = 0; i < wide[k].data.size(); ++i) {
        const double w = wide[k].data[i], r = run[k].data[i];
        if (std::isfinite(w) && std::isfinite(r) && w != 0) forward_spread = std::max(forward_spread, std::fabs(r - w) / std::fabs(w));
      }
  for (size_t k = 0; k < engine.size(); ++k) {
    std::vector<ref::Array> column;
    for (const auto& r : runs) column.push_back(r.at(k));
    double normwise = k >= kinds.first_normwise ? kNormwiseRoundings * double(kinds.normwise_eqns) : 0;
    if (k >= kinds.first_cotangent) {
      // In units of the result's u (compare_one multiplies by u): the forward's spread, with headroom.
      const double u = std::max(unit_roundoff(engine[k].dtype()), kinds.roundoff);
      if (u > 0) normwise += kHeadroom * forward_spread / u;
    }
    const bool class_may_differ =
        kinds.extreme_arguments || kinds.narrow_accumulation || (kinds.nonfinite_forward && k >= kinds.first_cotangent);
    compare_one(v, k, engine[k], wide[k], column, normwise, scale, kinds.roundoff, class_may_differ);
  }
  return v;
}

}  // namespace tandem::fuzz
