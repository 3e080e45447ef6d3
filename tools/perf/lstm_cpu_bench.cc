// lstm_cpu_bench: times the fast CPU LSTM (engine/cpu/lstm_cpu) on the suite's performance
// shapes — forward (inference, nothing saved) and forward+backward (training forward that
// saves, then the backward) — and prints JSON that tools/tables/lstm_perf_table.py sets next to
// torch_lstm_bench.py's. Threads: --threads for the recurrence, OPENBLAS_NUM_THREADS for BLAS.
// Reported per shape: min wall time over --reps (after a warm-up) and GFLOP/s from it, and the
// min process CPU time (all threads) with GFLOP per CPU-second — on a shared machine the
// latter is the single-threaded figure least disturbed by other jobs. FLOPs count the GEMM terms only: forward = Σ_p 2·B·T·4H·In_p (input projection) +
// Σ_p 2·B·T·4H·H (recurrence); forward+backward = 3 × forward (the backward's d(inputs) and
// d(weights) GEMMs each cost one forward), the convention PyTorch's fastrnns uses too.
// --split-rows splits the recurrence by rows even when BLAS has threads (lstm_cpu.h).
// --path kernel (default) calls engine/cpu/lstm_cpu directly; --path primitive runs the
// suite's one-equation programs through the Executor (lstm_fwd; lstm_fwd in training mode +
// lstm_bwd on its reserve), allocations and checks included. --old-recompute adds the mode
// "fwd+recompute+bwd": what lstm_bwd ran before it took the reserve (an inference forward,
// then a saving forward and the backward inside lstm_bwd), still credited 3 × forward.
//   build/tools/lstm_cpu_bench [--threads N] [--split-rows] [--reps N] [--filter SUBSTR]
//                              [--path kernel|primitive] [--old-recompute] [--list-shapes]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "engine/cpu/lstm_cpu.h"
#include "engine/ir/executor.h"
#include "engine/prims/register_all.h"
#include "suites/common/lstm_program.h"
#include "suites/lstm/lstm_perf_shapes.h"

#ifdef TANDEM_BLAS_OPENBLAS
extern "C" int openblas_get_num_threads(void);
#endif

namespace tandem {
namespace {


double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double load_average() {
  double l[1] = {0};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

// Sorted wall times and sorted process CPU times (all threads) of `reps` runs after a warm-up.
// On a shared machine the single-threaded CPU time is the figure other jobs disturb least.
struct Times {
  std::vector<double> wall, cpu;
};
template <class F>
Times time_reps(int reps, F&& body) {
  body();  // warm-up: first-touch page faults, BLAS buffers
  Times t;
  for (int r = 0; r < reps; ++r) {
    const double c0 = process_cpu_seconds();
    auto t0 = std::chrono::steady_clock::now();
    body();
    t.wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    t.cpu.push_back(process_cpu_seconds() - c0);
  }
  std::sort(t.wall.begin(), t.wall.end());
  std::sort(t.cpu.begin(), t.cpu.end());
  return t;
}

nlohmann::json shape_json(const LstmPerfShape& s) {
  const LstmConfig& c = s.config;
  return {{"label", s.label}, {"batch", c.batch}, {"seq", c.seq}, {"input", c.input},
          {"hidden", c.hidden}, {"layers", c.layers}, {"bidirectional", c.bidirectional},
          {"train", s.train}};
}

}  // namespace
}  // namespace tandem

int main(int argc, char** argv) {
  using namespace tandem;
  int threads = cpu::lstm_threads(), reps = 3;
  std::string filter, path = "kernel";
  bool list = false, old_recompute = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::cerr << "error: " << a << " needs a value\n"; std::exit(4); }
      return argv[++i];
    };
    if (a == "--threads") threads = std::stoi(next());
    else if (a == "--reps") reps = std::stoi(next());
    else if (a == "--filter") filter = next();
    else if (a == "--list-shapes") list = true;
    else if (a == "--split-rows") cpu::set_lstm_always_split_rows(true);
    else if (a == "--path") path = next();
    else if (a == "--old-recompute") old_recompute = true;
    else {
      std::cerr << "error: unknown option " << a
                << "\n  hint: lstm_cpu_bench [--threads N] [--split-rows] [--reps N] [--filter SUBSTR] "
                   "[--path kernel|primitive] [--old-recompute] [--list-shapes]\n";
      return 4;
    }
  }
  if (path != "kernel" && path != "primitive") {
    std::cerr << "error: --path " << path << " is not kernel or primitive\n";
    return 4;
  }
  nlohmann::json shapes = nlohmann::json::array();
  for (const LstmPerfShape& s : lstm_perf_shapes()) shapes.push_back(shape_json(s));
  if (list) {
    std::cout << shapes.dump(1) << "\n";
    return 0;
  }
  cpu::set_lstm_threads(threads);
  if (path == "primitive") register_all_primitives();
  nlohmann::json out = {{"tool", "tandem lstm_cpu"}, {"threads", threads}, {"reps", reps}, {"path", path}};
#ifdef TANDEM_BLAS_OPENBLAS
  out["blas_threads"] = openblas_get_num_threads();
#endif
  nlohmann::json results = nlohmann::json::array();
  std::mt19937 g(1);
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  for (const LstmPerfShape& s : lstm_perf_shapes()) {
    const LstmConfig& c = s.config;
    nlohmann::json j = shape_json(s);
    // --filter: substrings of the shape's compact JSON or its label, "|" between alternatives.
    bool keep = filter.empty();
    for (size_t at = 0; !keep && at <= filter.size();) {
      size_t bar = std::min(filter.find('|', at), filter.size());
      const std::string f = filter.substr(at, bar - at);
      keep = j.dump().find(f) != std::string::npos || s.label.find(f) != std::string::npos;
      at = bar + 1;
    }
    if (!keep) continue;
    const int64_t S = c.pseudo_layers(), state = S * c.batch * c.hidden;
    const int64_t ny = c.batch * c.seq * c.dirs() * c.hidden;
    auto fill = [&](int64_t n) { std::vector<float> v(static_cast<size_t>(n)); for (float& x : v) x = u(g); return v; };
    std::vector<float> x = fill(c.batch * c.seq * c.input), h0 = fill(state), c0 = fill(state),
                       w = fill(get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional)),
                       dy = fill(ny), dhn = fill(state), dcn = fill(state);
    const size_t st = static_cast<size_t>(state);
    std::vector<float> y(static_cast<size_t>(ny)), hn(st), cn(st), dx(x.size()), dh0(st), dc0(st), dw(w.size());
    std::vector<int32_t> lens(size_t(c.batch), int32_t(c.seq));
    const LstmFlops f = lstm_forward_flops(c);
    auto record = [&](const char* mode, double factor, const Times& t) {
      nlohmann::json r = j;
      const double flops = factor * (f.projection + f.recurrent);
      r.update({{"mode", mode}, {"median_s", t.wall[t.wall.size() / 2]}, {"min_s", t.wall.front()},
                {"min_cpu_s", t.cpu.front()}, {"reps", t.wall.size()}, {"flops", flops},
                {"projection_flops", factor * f.projection}, {"recurrent_flops", factor * f.recurrent},
                {"gflops", flops / t.wall.front() / 1e9}, {"gflops_cpu", flops / t.cpu.front() / 1e9},
                {"load_average", load_average()}});
      std::cerr << s.label << " B" << c.batch << " T" << c.seq << " H" << c.hidden << " L" << c.layers
                << (c.bidirectional ? " bidi " : " ") << mode << ": min " << t.wall.front() * 1e3 << " ms wall, "
                << t.cpu.front() * 1e3 << " ms cpu; " << r["gflops"].get<double>() << " GFLOP/s wall, "
                << r["gflops_cpu"].get<double>() << " per cpu-second\n";
      results.push_back(r);
    };
    if (path == "primitive") {
      auto tensor = [](const std::vector<float>& v, const Shape& shape) {
        Tensor t = Tensor::empty(shape, DType::f32);
        std::copy(v.begin(), v.end(), t.data<float>());
        return t;
      };
      const Shape st_shape{S, c.batch, c.hidden};
      Tensor lt = Tensor::empty({c.batch}, DType::i32);
      std::copy(lens.begin(), lens.end(), lt.data<int32_t>());
      std::vector<Tensor> in{tensor(x, {c.batch, c.seq, c.input}), tensor(h0, st_shape), tensor(c0, st_shape),
                             tensor(w, {int64_t(w.size())}), lt};
      Program fp = lstm_fwd_program(c), tp = lstm_train_program(c);
      record("fwd", 1.0, time_reps(reps, [&] { Executor().run(fp, in); }));
      in.push_back(tensor(dy, {c.batch, c.seq, c.dirs() * c.hidden}));
      in.push_back(tensor(dhn, st_shape));
      in.push_back(tensor(dcn, st_shape));
      if (s.train) record("fwd+bwd", 3.0, time_reps(reps, [&] { Executor().run(tp, in); }));
      continue;
    }
    record("fwd", 1.0, time_reps(reps, [&] {
      cpu::lstm_forward(c, x.data(), h0.data(), c0.data(), w.data(), lens.data(), y.data(), hn.data(),
                        cn.data(), nullptr);
    }));
    // The reserve is allocated once, as a caching allocator would hand the same block back.
    std::vector<float> reserve(s.train ? size_t(lstm_reserve_layout(c).total) : 0);
    if (s.train)
      record("fwd+bwd", 3.0, time_reps(reps, [&] {
        cpu::LstmSaved saved = cpu::lstm_saved_views(c, reserve.data(), x.data());
        cpu::lstm_forward(c, x.data(), h0.data(), c0.data(), w.data(), lens.data(), y.data(), hn.data(),
                          cn.data(), &saved);
        cpu::lstm_backward(c, w.data(), lens.data(), saved, dy.data(), dhn.data(), dcn.data(), dx.data(),
                           dh0.data(), dc0.data(), dw.data());
      }));
    if (s.train && old_recompute)
      record("fwd+recompute+bwd", 3.0, time_reps(reps, [&] {
        cpu::lstm_forward(c, x.data(), h0.data(), c0.data(), w.data(), lens.data(), y.data(), hn.data(),
                          cn.data(), nullptr);
        std::vector<float> ry(y.size()), rhn(st), rcn(st), scratch(reserve.size());  // lstm_bwd's own forward
        cpu::LstmSaved saved = cpu::lstm_saved_views(c, scratch.data(), x.data());
        cpu::lstm_forward(c, x.data(), h0.data(), c0.data(), w.data(), lens.data(), ry.data(), rhn.data(),
                          rcn.data(), &saved);
        cpu::lstm_backward(c, w.data(), lens.data(), saved, dy.data(), dhn.data(), dcn.data(), dx.data(),
                           dh0.data(), dc0.data(), dw.data());
      }));
  }
  out["results"] = results;
  std::cout << out.dump(1) << "\n";
  return 0;
}
