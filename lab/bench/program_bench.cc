// Times an imported program (the directory tools/import/export_jax_program.py writes) on the
// engine without checking it: the forward (Executor::run) and the gradient as the program's
// vjp case runs it (run_vjp of vjp(program, every floating input, everything_saveable), a
// ones cotangent), each the minimum over --reps runs of the mean over a run of at least
// --min-time seconds; then, with --profile, seconds per primitive (forward and backward, scan
// bodies timed on one step and counted × length). `tandem bench --program` times the same
// cases but checks each against the reference first, which at training sizes takes minutes.
//
//   program_bench --program DIR [--reps 5] [--min-time 0.5] [--profile]
//
// Prints one JSON object {"forward": s, "gradient": s} (and the profile table on stderr).
// Exit 4 on bad usage or a program/input it cannot read.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/ir/program_json_read.h"
#include "engine/passes/vjp.h"
#include "engine/prims/register_all.h"
#include "runners/cli/npy_io.h"
#include "lab/bench/program_profile.h"

namespace tandem {
namespace {

std::vector<Tensor> read_inputs(const std::string& dir, const Program& p) {
  std::vector<Tensor> in;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    const AType& t = p.in_vars[i]->type;
    Tensor x = load_npy_tensor_of(cat(dir, "/inputs/arg_", i, ".npy"), {t.dtype, DType::f32, DType::i32},
                                  cat("arg_", i, ".npy"));
    in.push_back(x.dtype() == t.dtype ? x : Tensor::from_f64(x.to_f64(), x.shape(), t.dtype));  // bf16, bool
  }
  return in;
}

// Minimum over reps of the mean seconds per call over at least min_time seconds.
template <class F>
double seconds_per_call(F&& f, int reps, double min_time) {
  f();  // warm
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    int n = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      f();
      ++n;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < min_time);
    best = std::min(best, elapsed / n);
  }
  return best;
}

std::vector<Tensor> ones_like(const std::vector<Tensor>& xs) {
  std::vector<Tensor> out;
  for (const Tensor& x : xs)
    out.push_back(Tensor::from_f64(std::vector<double>(size_t(x.numel()), 1), x.shape(), x.dtype()));
  return out;
}

int run(const std::string& dir, int reps, double min_time, bool profile) {
  register_all_primitives();
  const Program p = read_program_json(dir + "/program.json");
  const std::vector<Tensor> in = read_inputs(dir, p);
  Executor ex;
  const std::vector<Tensor> cts = ones_like(ex.run(p, in));
  const VjpProgram g = vjp(p, {}, everything_saveable());
  const double fwd = seconds_per_call([&] { ex.run(p, in); }, reps, min_time);
  const double grad = seconds_per_call([&] { run_vjp(g, in, cts); }, reps, min_time);
  std::printf("{\"forward\": %.9g, \"gradient\": %.9g}\n", fwd, grad);
  if (profile) {
    std::map<std::string, double> by;
    const EqnLabel prim = [](const Eqn& e) { return e.prim->name; };
    profile_program("forward", g.forward, in, reps, by, prim);
    std::vector<Tensor> bargs = run_vjp(g, in, cts).residuals;
    bargs.insert(bargs.end(), cts.begin(), cts.end());
    profile_program("backward", g.backward, bargs, reps, by, prim);
    std::fprintf(stderr, "| phase: primitive | ms |\n|---|---:|\n");
    for (const auto& [k, s] : by) std::fprintf(stderr, "| %s | %.3f |\n", k.c_str(), s * 1e3);
  }
  return 0;
}

}  // namespace
}  // namespace tandem

int main(int argc, char** argv) {
  std::string dir;
  int reps = 5;
  double min_time = 0.5;
  bool profile = false;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--program") && has_value) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && has_value) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--min-time") && has_value) min_time = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--profile")) profile = true;
    else dir.clear(), i = argc;
  }
  if (dir.empty() || reps < 1 || !(min_time >= 0) || !std::filesystem::is_directory(dir)) {
    std::fprintf(stderr, "program_bench: bad arguments\n  hint: program_bench --program DIR [--reps 5] [--min-time 0.5] [--profile]"
                         " (DIR as tools/import/export_jax_program.py --out wrote it)\n");
    return 4;
  }
  try {
    return tandem::run(dir, reps, min_time, profile);
  } catch (const tandem::Error& e) {
    std::fprintf(stderr, "program_bench: %s\n", e.what());
    return 4;
  }
}
