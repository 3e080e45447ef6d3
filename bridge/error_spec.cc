// Comparison with an ErrorSpec.
#include "bridge/error_spec.h"

#include <cmath>
#include <sstream>

namespace tandem {

CompareReport compare(const std::vector<double>& want, const std::vector<double>& got,
                      const ErrorSpec& spec, const std::vector<double>* scale) {
  CompareReport r;
  r.count = int64_t(want.size());
  if (want.size() != got.size() || (scale && scale->size() != want.size())) {
    r.pass = false;
    r.bad = r.count;
    r.first_bad = 0;
    return r;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    double w = want[i], g = got[i];
    bool ok;
    double err = 0, allowed = 0;
    if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
      err = ok ? 0 : INFINITY;
    } else if (std::isinf(w) || std::isinf(g)) {
      ok = w == g;
      err = ok ? 0 : INFINITY;
    } else {
      err = std::abs(g - w);
      allowed = spec.abs + spec.rel * std::abs(w) + (scale ? spec.scaled * (*scale)[i] : 0);
      ok = err <= allowed;
      if (allowed > 0) r.exact = false;
      r.max_abs = std::max(r.max_abs, err);
      if (w != 0) r.max_rel = std::max(r.max_rel, err / std::abs(w));
      if (allowed > 0) r.max_ratio = std::max(r.max_ratio, err / allowed);
      else if (err > 0) r.max_ratio = INFINITY;
    }
    if (!ok) {
      if (r.first_bad < 0) { r.first_bad = int64_t(i); r.expected = w; r.got = g; }
      ++r.bad;
      r.pass = false;
    }
  }
  return r;
}

std::string CompareReport::text() const {
  std::ostringstream os;
  os.precision(9);
  os << (pass ? "ok" : "MISMATCH") << ": max_abs=" << max_abs << " max_rel=" << max_rel << " err/tol=" << max_ratio;
  if (!pass)
    os << " bad=" << bad << "/" << count << " first_bad_index=" << first_bad
       << " expected=" << expected << " got=" << got;
  return os.str();
}

nlohmann::json CompareReport::headroom() const {
  if (exact) return "exact";
  if (max_ratio == 0) return "no error observed";
  return 1.0 / max_ratio;  // 0 for an infinite ratio (a NaN mismatch)
}

nlohmann::json CompareReport::to_json() const {
  auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(std::to_string(v)); };
  nlohmann::json j = {{"pass", pass}, {"count", count}, {"bad", bad},
                      {"max_abs", finite(max_abs)}, {"max_rel", finite(max_rel)},
                      {"error_over_tolerance", finite(max_ratio)}, {"headroom", headroom()}};
  if (!pass) {
    j["first_bad_index"] = first_bad;
    j["expected"] = finite(expected);
    j["got"] = finite(got);
  }
  return j;
}

ErrorSpec elementwise_spec(DType t, double ulps) {
  double u = unit_roundoff(t);
  return ErrorSpec{ulps * u, ulps * u, 0, std::to_string(int(ulps)) + " units of roundoff of " + std::string(dtype_name(t))};
}

}  // namespace tandem
