// compare_results: shapes and dtypes first, then each element by class and tolerance.
#include "suites/program_fuzz/fuzz_compare.h"

#include <cmath>
#include <sstream>

#include "engine/core/error.h"

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
                 double backward_floor, double scale, bool huge_arguments) {
  if (got.shape() != want.shape) return disagree(v, k, cat("shape [", shape_str(got.shape()), "] vs the reference's [", shape_str(want.shape), "]"));
  if (got.dtype() != runs[0].dtype)
    return disagree(v, k, cat("dtype ", dtype_name(got.dtype()), " vs the reference's ", dtype_name(runs[0].dtype)));
  const std::vector<double> g = got.to_f64();
  const double u = unit_roundoff(got.dtype());
  const double floor = backward_floor * u * scale;
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
    if (huge_arguments && (class_of(w) == Class::finite) != (class_of(g[i]) == Class::finite)) {
      --v.checked, ++v.unstable;
      continue;
    }
    if (class_of(w) != Class::finite || class_of(g[i]) != Class::finite) {
      if (class_of(w) != class_of(g[i]))
        disagree(v, k, cat("element ", i, ": engine ", g[i], ", reference ", w));
      continue;
    }
    const double tol = kHeadroom * spread + kFinalRoundings * u * std::fabs(w) + floor;
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
  // The magnitude a cotangent's backward rounding is measured against: the largest finite
  // value of every result (outputs and cotangents), as a cotangent near 0 can be the
  // cancellation of terms that large.
  double scale = 0;
  for (const ref::Array& w : wide)
    for (double x : w.data)
      if (std::isfinite(x)) scale = std::max(scale, std::fabs(x));
  for (size_t k = 0; k < engine.size(); ++k) {
    std::vector<ref::Array> column;
    for (const auto& r : runs) column.push_back(r.at(k));
    const double backward = k >= kinds.first_cotangent ? kBackwardRoundings * double(kinds.backward_eqns) : 0;
    compare_one(v, k, engine[k], wide[k], column, backward, scale, kinds.huge_arguments);
  }
  return v;
}

}  // namespace tandem::fuzz
