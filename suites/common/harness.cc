// Case harness.
#include "suites/common/harness.h"

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
  std::string why = c.agrees_across_ranks ? std::string() : device_unavailable_reason(opts.device);
  if (!why.empty()) {
    r.verdict = Verdict::skip;
    r.message = why;
    return r;
  }
  try {
    CaseInstance inst = c.instantiate(opts.device);
    if (opts.check) {
      r = inst.check();
    }
    r.info.update(inst.info);
    if (opts.time && r.verdict == Verdict::pass) {
      r.samples_s = time_repeated(inst.body, opts.warmup, opts.repetitions, opts.min_time_s,
                                  opts.device, &r.cpu_samples_s);
      TimingStats t = summarize(r.samples_s);
      if (c.flops > 0 && t.median > 0)
        r.metrics.push_back({"gflops", c.flops / t.median * 1e-9, "GFLOP/s", "higher"});
      r.metrics.push_back({"time_median", t.median, "s", "lower"});
    }
  } catch (const Error& e) {
    r.verdict = e.kind() == ErrorKind::unsupported ? Verdict::skip : Verdict::error;
    r.message = e.what();
  } catch (const std::exception& e) {
    r.verdict = Verdict::error;
    r.message = e.what();
  }
  return r;
}

}  // namespace tandem
