// The yardstick every timed case is measured beside: the case's own raw library call when it names one
// (CaseInstance::anchor: BLAS sgemm for a dot, the GEMMs alone for an LSTM), else a small fixed canary workload (a 256³
// BLAS sgemm on fixed operands, called as many times per sample as it takes to last about as long as the body: a lone
// short call's CPU time is mostly its threads' wake-up and spin, which load moves by whole multiples). It is timed
// interleaved with the body, one anchor run next to each repetition (before and after alternately), so both see the
// machine at the same moment; the gate (reports/gate_anchor.py) judges the ratio body / anchor, which a busier machine
// or a slower clock moves little, where it moves the absolute time of two runs by tens of percent.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "harness/case.h"

namespace tandem {

struct Anchor {
  std::string name, kind;     // kind: "library call" or "canary"
  std::function<void()> run;  // empty: no anchor (the case is timed alone, as before anchors)
  bool scaled = false;        // the canary: called `calls` times per sample, recorded per call
};

// The anchor of `inst` under `opts`: its own call, or the canary on the CPU. None on a CUDA
// device without a call of its own (the canary is host work) and in multi-rank runs (their
// lockstep times the body alone; a sweep's raw-call rows anchor those, reports/gate_ratio.py).
Anchor anchor_for(const CaseInstance& inst, const RunOptions& opts);

struct AnchoredTiming {
  std::vector<double> body_s, cpu_s, anchor_s, anchor_cpu_s;  // one of each per repetition, anchor's per call
  int calls = 1;                                               // anchor calls per sample
  int every = 1;  // repetitions per anchor sample: those of a group share it (canary_every)
};

// Canary calls per sample: about the body's time over one call's, within [1, kMaxCanaryCalls].
constexpr int kMaxCanaryCalls = 64;
int canary_calls(double body_s, double call_s);

// Repetitions per canary sample: a body shorter than one call shares one canary sample with the
// repetitions of its group, so the canary costs about the body's time at any repetition count.
constexpr int kMaxCanaryEvery = 1024;
int canary_every(double body_s, double call_s);

// Warm-up of both, then repetitions as time_repeated counts them, each body run next to one
// anchor run (or, `every` > 1, each group's first), the order alternating so neither always
// runs on the other's heels.
// A scaled anchor (the canary) is called canary_calls(...) times per sample, from the last
// warm-up's times, and its samples are per call: the ratio does not depend on that count.
AnchoredTiming time_with_anchor(const std::function<void()>& body, const Anchor& anchor, const RunOptions& opts);

}  // namespace tandem
