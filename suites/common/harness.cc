// Case harness.
#include "suites/common/harness.h"

#include <optional>

#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "suites/common/timing.h"

namespace tandem {

std::string device_unavailable_reason(Device d) {
  if (d.kind == DeviceKind::cpu) return "";
  if (!cuda_backend_built()) return "CUDA backend not built (configure found no CUDA toolkit)";
  if (cuda_device_count() <= d.index) return "no CUDA device visible";
  return "";
}

CaseResult run_case(const Case& c, const RunOptions& opts) {
  CaseResult r;
  // Under a multi-rank run every rank reaches opts.before_timing exactly once per case,
  // whatever happened to it before (skip, failed check, exception), so the ranks stay in
  // lockstep; its own failures (MPI) propagate: the rank cannot stay in step any more.
  auto agree_to_time = [&] {
    const bool mine = opts.time && r.verdict == Verdict::pass;
    return opts.before_timing && opts.time ? opts.before_timing(r) && mine : mine;
  };
  std::string why = c.agrees_across_ranks ? std::string() : device_unavailable_reason(opts.device);
  if (!why.empty()) {
    r.verdict = Verdict::skip;
    r.message = why;
    agree_to_time();
    return r;
  }
  std::optional<CaseInstance> inst;
  try {
    inst = c.instantiate(opts.device);
    if (opts.check) {
      r = inst->check();
    }
    r.info.update(inst->info);
  } catch (const Error& e) {
    r.verdict = e.kind() == ErrorKind::unsupported ? Verdict::skip : Verdict::error;
    r.message = e.what();
  } catch (const std::exception& e) {
    r.verdict = Verdict::error;
    r.message = e.what();
  }
  if (!agree_to_time()) return r;
  try {
    r.samples_s = time_repeated(inst->body, opts.warmup, opts.repetitions, opts.min_time_s,
                                opts.device, &r.cpu_samples_s);
    TimingStats t = summarize(r.samples_s);
    if (c.flops > 0 && t.median > 0)
      r.metrics.push_back({"gflops", c.flops / t.median * 1e-9, "GFLOP/s", "higher"});
    r.metrics.push_back({"time_median", t.median, "s", "lower"});
  } catch (const Error& e) {
    r.verdict = e.kind() == ErrorKind::unsupported ? Verdict::skip : Verdict::error;
    r.message = e.what();
    r.samples_s.clear(), r.cpu_samples_s.clear();
  } catch (const std::exception& e) {
    r.verdict = Verdict::error;
    r.message = e.what();
    r.samples_s.clear(), r.cpu_samples_s.clear();
  }
  return r;
}

}  // namespace tandem
