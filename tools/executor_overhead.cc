// executor_overhead: what the executor itself costs per executed equation (CPU), the figure
// behind docs/PERFORMANCE.md's "executor overhead" row. A scan of length L over a body of K
// scalar f32 ops (c = c * x_t + 1, repeated) does almost no arithmetic, so its time is the
// interpreter's: the per-step sub-program call, argument lookup, output allocation and the
// last-use bookkeeping. The same K·L ops as a straight-line program (no scan) separate the
// per-eqn cost from the per-step cost. Executed eqns are counted with Executor::set_on_eqn,
// not assumed; each figure is the minimum and median of --reps runs.
//   executor_overhead [--length L] [--body K] [--reps N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/prims/register_all.h"
#include "harness/context.h"
#include "harness/program_case.h"
#include "harness/timing.h"

namespace tandem {
namespace {

using V = std::vector<Value>;

// c ← c·x + 1, K/2 times (two eqns each): scalar work, so the time is the executor's.
Value chain(Value c, Value x, int64_t k) {
  for (int64_t i = 0; i < k / 2; ++i) c = c * x + 1.0;
  return c;
}

struct Figure {
  TimingStats t, cpu;  // wall time, and the process CPU time (honest on a loaded machine)
  int64_t eqns = 0;
};

Figure measure(Executor& ex, const Program& p, const std::vector<Tensor>& in, int reps) {
  int64_t count = 0;
  ex.set_on_eqn([&count](const Eqn&) { ++count; });
  ex.run(p, in);  // warm-up, and the count of executed eqns for one run
  Figure f;
  f.eqns = count;
  ex.set_on_eqn(nullptr);
  std::vector<double> cpu;
  f.t = summarize(time_repeated([&] { ex.run(p, in); }, 1, reps, 0.0, Device::cpu(), &cpu));
  f.cpu = summarize(cpu);
  return f;
}

int run(int64_t length, int64_t body_ops, int reps) {
  const AType scalar{{}, DType::f32};
  Program body = trace({scalar, scalar}, [&](Builder&, const V& v) { return V{chain(v[0], v[1], body_ops)}; });
  Program scanned = trace({scalar, {{length}, DType::f32}}, [&](Builder&, const V& v) {
    return V{scan(body, {}, {v[0]}, {v[1]}, length)[0]};
  });
  // Straight-line: the same ops unrolled, reading one x for every step (no slicing).
  const int64_t straight_steps = std::min<int64_t>(length, 2000);
  Program straight = trace({scalar, scalar}, [&](Builder&, const V& v) {
    Value c = v[0];
    for (int64_t t = 0; t < straight_steps; ++t) c = chain(c, v[1], body_ops);
    return V{c};
  });
  Tensor c0 = Tensor::scalar(0.5, DType::f32);
  Tensor xs = seeded_uniform({length}, DType::f32, "executor_overhead/x", 0.0, 0.5);
  Executor ex;
  const double load = first_load(load_average());
  Figure s = measure(ex, scanned, {c0, xs}, reps);
  Figure l = measure(ex, straight, {c0, Tensor::scalar(0.25, DType::f32)}, reps);
  std::printf("load average at start: %.2f; scan L=%lld, body %lld eqns; straight-line %lld eqns; reps %d\n\n",
              load, (long long)length, (long long)body_ops, (long long)l.eqns, reps);
  std::printf("| program | executed eqns | wall min / median (ms) | CPU min (ms) | per executed eqn: wall min / CPU min (us) |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  auto row = [](const std::string& name, const Figure& f) {
    std::printf("| %s | %lld | %.3f / %.3f | %.3f | %.3f / %.3f |\n", name.c_str(), (long long)f.eqns,
                f.t.min * 1e3, f.t.median * 1e3, f.cpu.min * 1e3, f.t.min / double(f.eqns) * 1e6,
                f.cpu.min / double(f.eqns) * 1e6);
  };
  row("scan, L=" + std::to_string(length) + ", body " + std::to_string(body_ops), s);
  row("straight-line", l);
  return 0;
}

}  // namespace
}  // namespace tandem

int main(int argc, char** argv) {
  int64_t length = 10000, body = 8;
  int reps = 5;
  const char* kHint = "  hint: executor_overhead --length 10000 --body 8 --reps 7\n";
  for (int i = 1; i < argc; i += 2) {
    std::string a = argv[i];
    if (a != "--length" && a != "--body" && a != "--reps") {
      std::fprintf(stderr, "executor_overhead: unknown option %s (use --length, --body, --reps)\n%s", a.c_str(), kHint);
      return 4;
    }
    char* end = nullptr;
    long long v = i + 1 < argc ? std::strtoll(argv[i + 1], &end, 10) : 0;
    if (i + 1 == argc || *end != '\0' || v < 1 || v > 10000000) {
      std::fprintf(stderr, "executor_overhead: %s needs an integer in 1..10^7, got '%s'\n%s", a.c_str(),
                   i + 1 < argc ? argv[i + 1] : "", kHint);
      return 4;
    }
    if (a == "--length") length = v;
    else if (a == "--body") body = v < 2 ? 2 : v;
    else reps = int(v);
  }
  tandem::register_all_primitives();
  return tandem::run(length, body, reps);
}
