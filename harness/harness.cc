// Case harness.
#include "harness/harness.h"

#include <new>
#include <optional>

#include "engine/core/error.h"
#include "harness/anchor.h"
#include "harness/error_outcome.h"
#include "harness/timing.h"

namespace tandem {

namespace {
// Runs f; an exception becomes the case's verdict by its kind (error_outcome.h: unsupported a
// skip, a failed invariant or a refused valid case a failure, the machine's failure an error),
// so one broken case never stops the others.
template <class F>
void guarded(CaseResult& r, F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {  // a case larger than this machine's memory: say so
    r.verdict = Verdict::error;
    r.message = "out of memory: the case's values do not fit in this machine's memory "
                "(std::bad_alloc); run it with smaller shapes or on a larger machine";
  } catch (const std::exception& e) {
    const ErrorOutcome& o = error_outcome(error_kind_of(e));
    r.verdict = o.case_verdict;
    r.message = o.case_verdict == Verdict::fail
                    ? std::string("the engine raised on the case's valid input (a wrong result, not the machine's): ") + e.what()
                    : e.what();
  }
}
}  // namespace

CaseResult run_case(const Case& c, const RunOptions& opts) {
  CaseResult r;
  // Under a multi-rank run every rank reaches opts.before_timing exactly once per timed case,
  // whatever happened to it before (skip, failed check, exception), so the ranks stay in
  // lockstep; its own failures (MPI) propagate: the rank cannot stay in step any more.
  auto agree_to_time = [&] {
    if (!opts.time) return false;
    const bool mine = r.verdict == Verdict::pass;
    return opts.before_timing ? opts.before_timing(r) && mine : mine;
  };
  std::string why = c.agrees_across_ranks ? std::string() : device_unavailable_reason(opts.device);
  if (!why.empty()) {
    r.verdict = Verdict::skip;
    r.message = why;
    agree_to_time();
    return r;
  }
  std::optional<CaseInstance> inst;
  guarded(r, [&] {
    inst = c.instantiate(opts.device);
    if (opts.check) r = inst->check();
    r.info.update(inst->info);
  });
  if (!agree_to_time()) return r;
  guarded(r, [&] {
    std::vector<double> wall, cpu;
    Anchor anchor = anchor_for(*inst, opts);
    if (anchor.run) {
      AnchoredTiming t = time_with_anchor(inst->body, anchor, opts);
      wall = std::move(t.body_s), cpu = std::move(t.cpu_s);
      r.anchor_name = anchor.name, r.anchor_kind = anchor.kind, r.anchor_samples_s = std::move(t.anchor_s);
      r.anchor_cpu_samples_s = std::move(t.anchor_cpu_s), r.anchor_calls = t.calls;
    } else {
      wall = time_repeated(inst->body, opts.warmup, opts.repetitions, opts.min_time_s, opts.device, &cpu);
    }
    r.samples_s = std::move(wall), r.cpu_samples_s = std::move(cpu);  // only a complete timing is kept
    TimingStats t = summarize(r.samples_s);
    if (c.flops > 0 && t.median > 0) r.metrics.push_back({"gflops", c.flops / t.median * 1e-9, "GFLOP/s", "higher"});
    r.metrics.push_back({"time_median", t.median, "s", "lower"});
  });
  return r;
}

}  // namespace tandem
