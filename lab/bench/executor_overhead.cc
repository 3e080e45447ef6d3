// executor_overhead: what the executor itself costs per executed equation (CPU), the figure
// behind lab/README.md's "executor overhead" row. A scan of length L over a body of K
// scalar f32 ops (c = c * x_t + 1, repeated) does almost no arithmetic, so its time is the
// interpreter's: the per-step sub-program call, argument lookup, output allocation and the
// last-use bookkeeping. The same K·L ops as a straight-line program (no scan) separate the
// per-eqn cost from the per-step cost. Executed eqns are counted with Executor::set_on_eqn,
// not assumed; each figure is the minimum and median of --reps runs. Two floors beside them:
// the straight-line program's own kernels called from a plain C++ loop (each
// eqn's impl resolved once, its operands in dense slots, literals made once: what is left when
// the interpreter's lookups, checks and bookkeeping are gone), and the same arithmetic on a
// bare float, which no tensor-valued interpreter can approach.
//   executor_overhead [--length L] [--body K] [--reps N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/prims/register_all.h"
#include "harness/context.h"
#include "harness/program_case.h"
#include "harness/timing.h"
#include "lab/bench/count_arg.h"

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

// One eqn of the plain loop: its impl and params, where its operands are (a slot, or a
// literal made once) and the slot its one output goes to.
struct PlainStep {
  const Impl* impl;
  const Params* params;
  std::vector<int> slots;  // -1: the literal at the same position
  std::vector<Tensor> literals;
  int out;
};

std::vector<PlainStep> plain_steps(const Program& p, std::unordered_map<int64_t, int>& slot_of) {
  std::vector<PlainStep> steps;
  for (const Eqn& e : p.eqns) {
    PlainStep st{&e.prim->impl(DeviceKind::cpu), &e.params, {}, {}, 0};
    for (const Atom& a : e.in) {
      st.slots.push_back(a.is_literal() ? -1 : slot_of.at(a.var->id));
      st.literals.push_back(a.is_literal() ? Tensor::scalar(a.literal->value, a.literal->dtype) : Tensor());
    }
    st.out = int(slot_of.size());
    slot_of[e.out[0]->id] = st.out;
    steps.push_back(std::move(st));
  }
  return steps;
}

// The straight-line program's kernels from a plain loop over dense slots (one output per eqn).
Figure measure_plain(const Program& p, const std::vector<Tensor>& in, int reps) {
  std::unordered_map<int64_t, int> slot_of;
  for (size_t i = 0; i < p.in_vars.size(); ++i) slot_of[p.in_vars[i]->id] = int(i);
  const std::vector<PlainStep> steps = plain_steps(p, slot_of);
  std::vector<Tensor> slots(slot_of.size());
  EvalContext ctx{Device::cpu(), nullptr, nullptr};
  auto once = [&] {
    std::copy(in.begin(), in.end(), slots.begin());
    std::vector<Tensor> args;
    for (const PlainStep& st : steps) {
      args.clear();
      for (size_t k = 0; k < st.slots.size(); ++k) args.push_back(st.slots[k] < 0 ? st.literals[k] : slots[size_t(st.slots[k])]);
      slots[size_t(st.out)] = std::move((*st.impl)(args, *st.params, ctx)[0]);
    }
  };
  once();
  Figure f;
  f.eqns = int64_t(steps.size());
  std::vector<double> cpu;
  f.t = summarize(time_repeated(once, 1, reps, 0.0, Device::cpu(), &cpu));
  f.cpu = summarize(cpu);
  return f;
}

// The same arithmetic on one float: c ← c·x + 1, two ops per iteration.
Figure measure_bare(int64_t ops, int reps) {
  volatile float x = 0.25f;
  float c = 0.5f;
  auto once = [&] {
    const float xv = x;
    for (int64_t i = 0; i < ops / 2; ++i) c = c * xv + 1.0f;
    x = c;  // keeps the loop
  };
  Figure f;
  f.eqns = ops;
  std::vector<double> cpu;
  f.t = summarize(time_repeated(once, 1, reps, 0.0, Device::cpu(), &cpu));
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
  Figure plain = measure_plain(straight, {c0, Tensor::scalar(0.25, DType::f32)}, reps);
  Figure bare = measure_bare(l.eqns, reps);
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
  row("straight-line's kernels from a plain C++ loop", plain);
  row("the same arithmetic on a bare float", bare);
  std::printf("\nexecutor's own cost per eqn over the plain loop: %.3f us wall, %.3f us CPU (min over min)\n",
              (l.t.min - plain.t.min) / double(l.eqns) * 1e6, (l.cpu.min - plain.cpu.min) / double(l.eqns) * 1e6);
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
    const auto count = i + 1 < argc ? tandem::count_arg(argv[i + 1], 1, 10000000) : std::nullopt;
    if (!count) {
      std::fprintf(stderr, "executor_overhead: %s needs an integer in 1..10^7, got '%s'\n%s", a.c_str(),
                   i + 1 < argc ? argv[i + 1] : "", kHint);
      return 4;
    }
    const long long v = *count;
    if (a == "--length") length = v;
    else if (a == "--body") body = v < 2 ? 2 : v;
    else reps = int(v);
  }
  tandem::register_all_primitives();
  return tandem::run(length, body, reps);
}
