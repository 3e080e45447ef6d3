// vmap_bench: the vmapped MLP against the same MLP batched by hand (the limit a batching
// transformation can reach) and against a loop of per-example programs on the engine (CPU), for
// batch 1, 2, 4, … up to --max-batch. Per-example program: x[I] → tanh(x·W1 + b1) · W2 + b2
// (I=256, hidden 512, out 64: MLP-sized work). The three ways run interleaved in each
// repetition (the machine is shared and noisy) and the table gives min and median per way,
// the hand/vmap and loop/vmap ratios of the medians, the vmapped time per example (linear
// growth in the batch keeps it flat) and the largest vmapped-vs-hand difference. Inputs are
// split per example before timing; every way reuses the weights.
//   vmap_bench [--max-batch N] [--reps N] [--profile-batch N]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/passes/vmap.h"
#include "engine/prims/register_all.h"
#include "harness/context.h"
#include "harness/program_case.h"
#include "harness/timing.h"
#include "lab/bench/count_arg.h"

namespace tandem {
namespace {

// Mean time per primitive of the vmapped program at one batch size (Executor::set_timing,
// 15 runs after 5 warm-ups): where a batched program's time goes.
void profile_batch(const Program& mlp, const std::vector<Tensor>& w, int64_t n) {
  Program batched = vmap(mlp, {0, std::nullopt, std::nullopt, std::nullopt, std::nullopt}, {0}, n);
  std::vector<Tensor> args{seeded_uniform({n, mlp.in_vars[0]->type.shape[0]}, DType::f32, "vmap_bench/x")};
  args.insert(args.end(), w.begin(), w.end());
  Executor ex;
  ex.set_timing(true);
  std::map<std::string, double> mean_s;
  for (int r = 0; r < 20; ++r) {
    ex.run(batched, args);
    if (r >= 5)
      for (const EqnTiming& t : ex.timings()) mean_s[t.prim] += t.seconds / 15;
  }
  std::printf("\nvmapped program at batch %lld, mean time per primitive over 15 runs:\n\n| primitive | us |\n|---|---:|\n",
              (long long)n);
  for (const auto& [prim, s] : mean_s) std::printf("| %s | %.1f |\n", prim.c_str(), s * 1e6);
}

// The same MLP written batched by hand, x[n, I]: the limit a batching transformation can reach.
Program hand_batched(int64_t n, int64_t I, int64_t H, int64_t O) {
  using V = std::vector<Value>;
  return trace({{{n, I}, DType::f32}, {{I, H}, DType::f32}, {{H}, DType::f32}, {{H, O}, DType::f32}, {{O}, DType::f32}},
               [n, H, O](Builder&, const V& v) {
                 Value h = tanh(dot(v[0], v[1]) + broadcast_in_dim(v[2], {n, H}, {1}));
                 return V{dot(h, v[3]) + broadcast_in_dim(v[4], {n, O}, {1})};
               });
}

// The largest |a - b| over two f32 tensors of one shape: the vmapped and the hand-batched
// program must compute the same thing, or the time ratio compares different work.
double max_abs_diff(const Tensor& a, const Tensor& b) {
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) m = std::max(m, double(std::fabs(a.data<float>()[i] - b.data<float>()[i])));
  return m;
}

// One batch size: the three ways interleaved in each repetition, one table row.
void batch_row(Executor& ex, const Program& mlp, const std::vector<Tensor>& w, int64_t n, int reps) {
  const int64_t I = mlp.in_vars[0]->type.shape[0], H = w[0].shape()[1], O = w[2].shape()[1];
  Tensor xs = seeded_uniform({n, I}, DType::f32, "vmap_bench/x");
  std::vector<Tensor> examples = unstack(xs, 0);
  Program batched = vmap(mlp, {0, std::nullopt, std::nullopt, std::nullopt, std::nullopt}, {0}, n);
  Program hand = hand_batched(n, I, H, O);
  std::vector<Tensor> bargs{xs};
  bargs.insert(bargs.end(), w.begin(), w.end());
  auto vm = [&] { ex.run(batched, bargs); };
  auto by_hand = [&] { ex.run(hand, bargs); };
  auto loop = [&] {
    for (const Tensor& x : examples) {
      std::vector<Tensor> a{x};
      a.insert(a.end(), w.begin(), w.end());
      ex.run(mlp, a);
    }
  };
  double diff = max_abs_diff(ex.run(batched, bargs)[0], ex.run(hand, bargs)[0]);  // also the warm-up
  loop();
  std::vector<double> tv, th, tl;
  for (int r = 0; r < reps; ++r) {
    tv.push_back(time_once(vm, Device::cpu()));
    th.push_back(time_once(by_hand, Device::cpu()));
    tl.push_back(time_once(loop, Device::cpu()));
  }
  TimingStats sv = summarize(tv), sh = summarize(th), sl = summarize(tl);
  std::printf("| %lld | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %.2f | %.1f | %.2f | %.2g |\n", (long long)n,
              sv.min * 1e3, sv.median * 1e3, sh.min * 1e3, sh.median * 1e3, sl.min * 1e3, sl.median * 1e3,
              sh.median / sv.median, sl.median / sv.median, sv.median * 1e6 / double(n), diff);
  std::fflush(stdout);
}

int run(int64_t max_batch, int reps, int64_t profile_n) {
  const int64_t I = 256, H = 512, O = 64;
  using V = std::vector<Value>;
  Program mlp = trace({{{I}, DType::f32}, {{I, H}, DType::f32}, {{H}, DType::f32}, {{H, O}, DType::f32}, {{O}, DType::f32}},
                      [](Builder&, const V& v) { return V{dot(tanh(dot(v[0], v[1]) + v[2]), v[3]) + v[4]}; });
  std::vector<Tensor> w;
  for (size_t i = 1; i < mlp.in_vars.size(); ++i)
    w.push_back(seeded_uniform(mlp.in_vars[i]->type.shape, DType::f32, "vmap_bench/w" + std::to_string(i), -0.1, 0.1));
  Executor ex;
  std::printf("load average at start: %.2f; reps %d (interleaved)\n\n", first_load(load_average()), reps);
  std::printf("| batch | vmapped min / median (ms) | hand-batched min / median (ms) | loop min / median (ms) "
              "| vmapped speed / hand-batched (median) | loop / vmapped (median) | vmapped per example (us) "
              "| max abs diff vmapped vs hand |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int64_t n = 1; n <= max_batch; n *= 2) batch_row(ex, mlp, w, n, reps);
  if (profile_n > 0) profile_batch(mlp, w, profile_n);
  std::printf("\nload average at end: %.2f\n", first_load(load_average()));
  return 0;
}
}  // namespace
}  // namespace tandem

int main(int argc, char** argv) {
  tandem::register_all_primitives();
  int64_t max_batch = 1024;
  int reps = 7;
  int64_t profile_n = 0;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 == argc) {
      std::fprintf(stderr, "vmap_bench: %s needs a value\n  hint: vmap_bench [--max-batch N] [--reps N] [--profile-batch N]\n", argv[i]);
      return 4;
    }
    // An unreadable count becomes -1, which the range check below refuses.
    const long long n = tandem::count_arg(argv[i + 1], 0, 1LL << 40).value_or(-1);
    if (!std::strcmp(argv[i], "--max-batch")) max_batch = n;
    else if (!std::strcmp(argv[i], "--reps")) reps = int(std::min(n, 1LL << 30));
    else if (!std::strcmp(argv[i], "--profile-batch")) profile_n = n;
    else {
      std::fprintf(stderr, "vmap_bench: unknown flag %s\n  hint: vmap_bench [--max-batch N] [--reps N] [--profile-batch N]\n", argv[i]);
      return 4;
    }
  }
  if (max_batch < 1 || reps < 1 || profile_n < 0 || profile_n > 65536) {
    std::fprintf(stderr, "vmap_bench: --max-batch and --reps must be >= 1, --profile-batch in 0..65536\n  hint: vmap_bench --max-batch 1024 --reps 7 --profile-batch 256\n");
    return 4;
  }
  return tandem::run(max_batch, reps, profile_n);
}
