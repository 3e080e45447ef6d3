// The canary and the interleaved timing of a body beside its anchor (anchor.h).
#include "harness/anchor.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "harness/timing.h"

namespace tandem {

namespace {
// ~34 MFLOP: a few hundred µs, long enough that a BLAS thread's wake-up is a small part of one call
// (at 128³, tens of µs, a call's CPU time moved 30-fold between repetitions under load).
constexpr int kCanaryN = 256;

// A fixed sgemm on fixed operands, the same in every build and run: what it measures is the
// machine (its load, clock and BLAS), never tandem's code.
std::function<void()> canary() {
  struct Operands {
    std::vector<float> a, b, c;
  };
  static const std::shared_ptr<Operands> ops = [] {
    auto o = std::make_shared<Operands>();
    const size_t n = size_t(kCanaryN) * kCanaryN;
    o->a.resize(n), o->b.resize(n), o->c.resize(n);
    for (size_t i = 0; i < n; ++i) o->a[i] = float(i % 17) / 17.0f, o->b[i] = float(i % 13) / 13.0f;
    return o;
  }();
  return [o = ops] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kCanaryN, kCanaryN, kCanaryN, 1.0f, o->a.data(),
                kCanaryN, o->b.data(), kCanaryN, 0.0f, o->c.data(), kCanaryN);
  };
}
}  // namespace

Anchor anchor_for(const CaseInstance& inst, const RunOptions& opts) {
  if (opts.before_timing) return {};
  if (inst.anchor) return {inst.anchor_name, "library call", inst.anchor};
  if (opts.device.kind != DeviceKind::cpu) return {};
  return {"canary/sgemm_" + std::to_string(kCanaryN), "canary", canary(), true};
}

int canary_calls(double body_s, double call_s) {
  if (!(call_s > 0) || !(body_s > 0)) return 1;
  return int(std::clamp(std::lround(body_s / call_s), 1L, long(kMaxCanaryCalls)));
}

int canary_every(double body_s, double call_s) {
  if (!(call_s > 0) || !(body_s > 0)) return 1;
  return int(std::clamp(std::lround(call_s / body_s), 1L, long(kMaxCanaryEvery)));
}

AnchoredTiming time_with_anchor(const std::function<void()>& body, const Anchor& anchor, const RunOptions& opts) {
  AnchoredTiming t;
  // The body warms up `warmup` times, the anchor with its last two only: enough to warm it and
  // to size the canary, and a long warm-up (-w 200000 keeps a case busy) is not the canary's
  // (at 256³ a call is ~0.2 ms: 200,000 of them were 40 s idle, minutes on a busy runner).
  for (int i = 0; i < opts.warmup; ++i) {  // the count from CPU times: wall ones wait for a core under load
    double b = 0, a = 0;
    time_once(body, opts.device, &b);
    if (i + 2 < opts.warmup) continue;
    time_once(anchor.run, opts.device, &a);
    if (anchor.scaled && i + 1 == opts.warmup) t.calls = canary_calls(b, a), t.every = canary_every(b, a);
  }
  const std::function<void()> sample = !anchor.scaled ? anchor.run : [&] {
    for (int k = 0; k < t.calls; ++k) anchor.run();
  };
  double total = 0, wall = 0, cpu = 0;  // the group's anchor sample, per call
  while (int(t.body_s.size()) < opts.repetitions || (total < opts.min_time_s && t.body_s.size() < 10000)) {
    const size_t group = t.body_s.size() / t.every;
    const bool anchor_first = group % 2 == 1, fresh = t.body_s.size() % t.every == 0;
    auto time_anchor = [&] {
      if (fresh) wall = time_once(sample, opts.device, &cpu) / t.calls, cpu /= t.calls;
      t.anchor_s.push_back(wall);
      t.anchor_cpu_s.push_back(cpu);
    };
    if (anchor_first) time_anchor();
    double body_cpu = 0;
    t.body_s.push_back(time_once(body, opts.device, &body_cpu));
    t.cpu_s.push_back(body_cpu);
    if (!anchor_first) time_anchor();
    if (anchor.scaled && opts.warmup == 0 && t.body_s.size() == 1)  // no warm-up: the first repetition sizes it
      t.calls = canary_calls(body_cpu, cpu), t.every = canary_every(body_cpu, cpu);
    total += t.body_s.back();
  }
  return t;
}

}  // namespace tandem
