// The engine's f8 rounding (engine/core/f8, bit arithmetic) against the reference's (reference/f8, a search of the
// decoded patterns) on every representable neighbourhood of both formats: each value and its f64 neighbours, each exact
// midpoint between adjacent values (where ties-to-even and ties-away differ) and one f64 ulp either side, ±0, the
// subnormals and half the smallest one, the overflow boundary and past it, ±Inf and NaN — both signs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/core/f8.h"
#include "reference/f8.h"

namespace tandem {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The same value, NaN matching NaN, and the same sign (so -0 is not +0).
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

TEST(F8Rounding, EngineMatchesReferenceOnEveryNeighbourhood) {
  for (const F8Info& f : all_f8_formats()) {
    SCOPED_TRACE(f.name);
    std::vector<double> finite;  // non-negative finite values, increasing (patterns 0..)
    for (int bits = 0; bits < 128; ++bits)
      if (std::isfinite(ref::decode_f8(f.name, bits))) finite.push_back(ref::decode_f8(f.name, bits));
    ASSERT_EQ(finite.back(), f.max_finite);
    const double top = 2 * finite.back() - finite[finite.size() - 2];  // the value after max
    std::vector<double> probes = {0.0, kInf, std::nan(""), finite[1] / 4, 2 * top, 1e300};
    for (size_t i = 0; i < finite.size(); ++i) {
      const double v = finite[i], next = i + 1 < finite.size() ? finite[i + 1] : top;
      const double mid = (v + next) / 2;  // exact in f64
      for (double p : {v, mid}) probes.insert(probes.end(), {p, std::nextafter(p, -kInf), std::nextafter(p, kInf)});
    }
    int ties = 0;
    for (double p : probes)
      for (double x : {p, -p}) {
        const double got = round_to_f8(x, f.format), want = ref::round_to_f8(f.name, x);
        EXPECT_TRUE(same(got, want)) << x << ": engine " << got << ", reference " << want;
      }
    // Each tie goes to the even pattern i or i + 1 — not away from zero, which differs at every other tie.
    for (size_t i = 0; i + 1 < finite.size(); ++i) {
      const double mid = (finite[i] + finite[i + 1]) / 2, even = i % 2 == 0 ? finite[i] : finite[i + 1];
      EXPECT_EQ(round_to_f8(mid, f.format), even) << "tie at " << mid;
      EXPECT_EQ(round_to_f8(-mid, f.format), -even) << "tie at " << -mid;
      ties += 1;
    }
    EXPECT_EQ(ties, int(finite.size()) - 1);
  }
}

}  // namespace
}  // namespace tandem
