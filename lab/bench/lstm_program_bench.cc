// lstm_program_bench: the LSTM Program path (suites/common/lstm_program: a scan per layer and
// direction over a cell of dot/elementwise eqns, run by the generic executor) against the
// fast kernel (the one-eqn lstm_fwd / lstm_fwd + lstm_bwd programs) on the suite's perf
// shapes, on the CPU. Forward: lstm_program vs lstm_fwd_program. Training: run_vjp of the
// Program path under everything_saveable (the autodiff of the scan, residuals stacked) vs
// lstm_train_program, the Program path three times: as the suites run it (lstm_program_vjp:
// the backward's weight-gradient sums hoisted out of the scan, the weight slices' cotangents
// folded into windows), without the hoisting, and the plain autodiff (neither rewrite), so
// the table shows before and after from the same run. The sides run interleaved in
// each repetition (the machine is shared and noisy); per side the table gives min wall time
// and min process CPU time, and the ratio Program / kernel of the minima. Same inputs for all
// (make_lstm_inputs, full lengths). --log prints the pass's notes per shape (to stderr).
// --profile: where the hoisted Program path's fwd+bwd time goes instead of the table.
//   build/lab/lstm_program_bench [--reps N] [--filter SUBSTR] [--log] [--profile]
#include <algorithm>
#include <cstdio>
#include <map>
#include <cstdlib>
#include <string>

#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/passes/hoist_scan_accumulations.h"
#include "engine/passes/vjp.h"
#include "engine/prims/register_all.h"
#include "harness/context.h"
#include "harness/program_case.h"
#include "harness/timing.h"
#include "suites/common/lstm_program.h"
#include "suites/lstm/lstm_check.h"
#include "suites/lstm/lstm_perf_shapes.h"
#include "lab/bench/count_arg.h"
#include "lab/bench/program_profile.h"

namespace tandem {
namespace {

struct Side {
  std::vector<double> wall, cpu;
  void add(const std::function<void()>& f) {
    double c = 0;
    wall.push_back(time_once(f, Device::cpu(), &c));
    cpu.push_back(c);
  }
  double min_wall() const { return *std::min_element(wall.begin(), wall.end()); }
  double min_cpu() const { return *std::min_element(cpu.begin(), cpu.end()); }
};

void row(const std::string& what, const Side& prog, const Side& kern) {
  std::printf("| %s | %.4f / %.4f | %.4f / %.4f | %.2f× / %.2f× |\n", what.c_str(), prog.min_wall(),
              prog.min_cpu(), kern.min_wall(), kern.min_cpu(), prog.min_wall() / kern.min_wall(),
              prog.min_cpu() / kern.min_cpu());
  std::fflush(stdout);
}

void profile(const std::string& name, const VjpProgram& g, const std::vector<Tensor>& in,
             const std::vector<Tensor>& cts, int reps) {
  std::map<std::string, double> by;
  // Rows by primitive and output type: which of the LSTM's products a row is.
  const EqnLabel typed = [](const Eqn& e) { return cat(e.prim->name, " → ", e.out.at(0)->type.str()); };
  profile_program("forward", g.forward, in, reps, by, typed);
  std::vector<Tensor> bargs = run_vjp(g, in, cts).residuals;
  bargs.insert(bargs.end(), cts.begin(), cts.end());
  profile_program("backward", g.backward, bargs, reps, by, typed);
  std::printf("\n%s, fwd+bwd (hoisted), seconds per primitive (min of %d; scan bodies × length):\n\n"
              "| phase: primitive | s |\n|---|---:|\n", name.c_str(), reps);
  for (const auto& [k, s] : by) std::printf("| %s | %.4f |\n", k.c_str(), s);
}

int run(int reps, const std::string& filter, bool log, bool prof) {
  bool any = false;
  for (const LstmPerfShape& s : lstm_perf_shapes()) any |= s.label.find(filter) != std::string::npos;
  if (!any) {
    std::fprintf(stderr, "lstm_program_bench: --filter '%s' matches no perf shape\n"
                 "  hint: a substring of a label: deepbench, fastrnns, bidi2, infer_b1\n", filter.c_str());
    return 4;
  }
  const double load = first_load(load_average());
  std::printf("load average at start: %.2f; reps %d (interleaved); times in s, wall min / CPU min\n\n", load, reps);
  std::printf("| shape, mode | Program path | fast kernel | Program / kernel (wall / CPU) |\n|---|---:|---:|---:|\n");
  for (const LstmPerfShape& s : lstm_perf_shapes()) {
    if (!filter.empty() && s.label.find(filter) == std::string::npos) continue;
    const LstmConfig& c = s.config;
    std::vector<Tensor> in = make_lstm_inputs(c, lengths_pattern("full", c.batch, c.seq, s.label), s.label);
    std::vector<Tensor> fwd_in(in.begin(), in.begin() + 5), cts(in.begin() + 5, in.end());
    const std::string name = s.label + " B" + std::to_string(c.batch) + " T" + std::to_string(c.seq) + " H" +
                             std::to_string(c.hidden);
    Program prog = lstm_program(c), kern = lstm_fwd_program(c);
    Executor ex;
    Side pf, kf;
    ex.run(prog, fwd_in);  // warm-up both: first-touch pages, BLAS buffers
    ex.run(kern, fwd_in);
    for (int r = 0; r < reps && !prof; ++r) {
      pf.add([&] { ex.run(prog, fwd_in); });
      kf.add([&] { ex.run(kern, fwd_in); });
    }
    if (!prof) row(name + ", fwd", pf, kf);
    if (!s.train) continue;
    VjpProgram plain = lstm_program_vjp(c, /*hoist_accumulations=*/false, /*fold_slices=*/true);
    VjpProgram unfolded = lstm_program_vjp(c, false, false);
    std::vector<std::string> notes;
    VjpProgram g = hoist_backward_accumulations(plain, {}, &notes);
    for (const std::string& n : notes)
      if (log) std::fprintf(stderr, "%s: %s\n", name.c_str(), n.c_str());
    if (prof) {
      profile(name, g, fwd_in, cts, reps);
      continue;
    }
    Program train = lstm_train_program(c);
    Side pt, pp, pu, kt;
    run_vjp(g, fwd_in, cts);
    run_vjp(plain, fwd_in, cts);
    run_vjp(unfolded, fwd_in, cts);
    ex.run(train, in);
    for (int r = 0; r < reps; ++r) {
      pt.add([&] { run_vjp(g, fwd_in, cts); });
      pp.add([&] { run_vjp(plain, fwd_in, cts); });
      pu.add([&] { run_vjp(unfolded, fwd_in, cts); });
      kt.add([&] { ex.run(train, in); });
    }
    row(name + ", fwd+bwd", pt, kt);
    row(name + ", fwd+bwd, accumulations not hoisted", pp, kt);
    row(name + ", fwd+bwd, neither rewrite (plain autodiff)", pu, kt);
  }
  return 0;
}

}  // namespace
}  // namespace tandem

int main(int argc, char** argv) {
  int reps = 5;
  std::string filter;
  bool log = false, prof = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      const auto n = tandem::count_arg(argv[++i], 1, 1000);
      reps = int(n.value_or(0));
      if (!n) {
        std::fprintf(stderr, "lstm_program_bench: --reps takes 1..1000\n  hint: lstm_program_bench --reps 3\n");
        return 4;
      }
    } else if (a == "--log") {
      log = true;
    } else if (a == "--profile") {
      prof = true;
    } else if (a == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else {
      std::fprintf(stderr, "lstm_program_bench: unknown option or missing value: %s\n"
                   "  hint: lstm_program_bench [--reps N] [--filter SUBSTR of a shape label: deepbench, fastrnns, bidi2, infer_b1] [--log] [--profile]\n",
                   a.c_str());
      return 4;
    }
  }
  tandem::register_all_primitives();
  return tandem::run(reps, filter, log, prof);
}
