// lstm_cpu_bench: times the fast CPU LSTM (engine/cpu/lstm_cpu) on the suite's performance
// shapes — forward (inference, nothing saved) and forward+backward (training forward that
// saves, then the backward) — and prints JSON that lab/tables/lstm_perf_table.py sets next to
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
// --path gemms times the kernel's GEMMs alone (lstm_gemm_limit.h), the limit it is measured
// against, with its step products packed once (the kernel's way) and as one sgemm per step;
// each result says which in "step_gemm". --path gates times its gate loops alone (the same
// header): GEMMs + gate loops is the kernel without its copies and hand-offs.
//   build/lab/lstm_cpu_bench [--threads N] [--split-rows] [--reps N] [--filter SUBSTR]
//                              [--path kernel|primitive|gemms|gates] [--old-recompute] [--list-shapes]
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
#include "lab/bench/lstm_gemm_limit.h"
#include "lab/bench/count_arg.h"

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

struct Options {
  int threads = cpu::lstm_threads(), reps = 3;
  std::string filter, path = "kernel";
  bool list = false, old_recompute = false;
};

// A bad command line: the error, the usage as a hint, exit code 4.
int bad(const std::string& what) {
  std::cerr << "error: " << what << "\n  hint: lstm_cpu_bench [--threads N] [--split-rows] [--reps N] "
               "[--filter SUBSTR] [--path kernel|primitive|gemms|gates] [--old-recompute] [--list-shapes]\n";
  return 4;
}

// The command line into `o`; an exit code (4) on a bad one, -1 to go on.
int parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--list-shapes") o.list = true;
    else if (a == "--split-rows") cpu::set_lstm_always_split_rows(true);
    else if (a == "--old-recompute") o.old_recompute = true;
    else if (a != "--threads" && a != "--reps" && a != "--filter" && a != "--path") return bad("unknown option " + a);
    else if (i + 1 >= argc) return bad(a + " needs a value");
    else if (a == "--filter") o.filter = argv[++i];
    else if (a == "--path") o.path = argv[++i];
    else {  // a count: a number of 1 or more, not a crash on "two" nor a run at 0
      const auto v = count_arg(argv[++i], 1, 100000);
      if (!v) return bad(a + " takes a count of 1 or more, not '" + argv[i] + "'");
      (a == "--threads" ? o.threads : o.reps) = int(*v);
    }
  }
  return -1;
}

// --filter: substrings of the shape's compact JSON or its label, "|" between alternatives.
bool kept(const std::string& filter, const nlohmann::json& j, const std::string& label) {
  bool keep = filter.empty();
  for (size_t at = 0; !keep && at <= filter.size();) {
    size_t bar = std::min(filter.find('|', at), filter.size());
    const std::string f = filter.substr(at, bar - at);
    keep = j.dump().find(f) != std::string::npos || label.find(f) != std::string::npos;
    at = bar + 1;
  }
  return keep;
}

// One shape's operands (random in ±0.1, drawn in this order from the run's one generator)
// and its outputs.
struct Buffers {
  std::vector<float> x, h0, c0, w, dy, dhn, dcn;
  std::vector<float> y, hn, cn, dx, dh0, dc0, dw;
  std::vector<int32_t> lens;
};
Buffers make_buffers(const LstmConfig& c, std::mt19937& g, std::uniform_real_distribution<float>& u) {
  const int64_t state = c.pseudo_layers() * c.batch * c.hidden, ny = c.batch * c.seq * c.dirs() * c.hidden;
  auto fill = [&](int64_t n) { std::vector<float> v(static_cast<size_t>(n)); for (float& x : v) x = u(g); return v; };
  Buffers b;
  b.x = fill(c.batch * c.seq * c.input);
  b.h0 = fill(state);
  b.c0 = fill(state);
  b.w = fill(get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional));
  b.dy = fill(ny);
  b.dhn = fill(state);
  b.dcn = fill(state);
  const size_t st = static_cast<size_t>(state);
  b.y.resize(size_t(ny)), b.hn.resize(st), b.cn.resize(st), b.dx.resize(b.x.size());
  b.dh0.resize(st), b.dc0.resize(st), b.dw.resize(b.w.size());
  b.lens.assign(size_t(c.batch), int32_t(c.seq));
  return b;
}

// One mode's result: the shape's JSON with the times and FLOP rates, also told on stderr.
nlohmann::json result(const LstmPerfShape& s, const char* mode, double factor, const Times& t) {
  const LstmConfig& c = s.config;
  const LstmFlops f = lstm_forward_flops(c);
  nlohmann::json r = shape_json(s);
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
  return r;
}

// --path primitive: the suite's one-equation programs through the Executor.
void bench_primitive(const LstmPerfShape& s, Buffers& b, int reps, nlohmann::json& results) {
  const LstmConfig& c = s.config;
  auto tensor = [](const std::vector<float>& v, const Shape& shape) {
    Tensor t = Tensor::empty(shape, DType::f32);
    std::copy(v.begin(), v.end(), t.data<float>());
    return t;
  };
  const Shape st_shape{c.pseudo_layers(), c.batch, c.hidden};
  Tensor lt = Tensor::empty({c.batch}, DType::i32);
  std::copy(b.lens.begin(), b.lens.end(), lt.data<int32_t>());
  std::vector<Tensor> in{tensor(b.x, {c.batch, c.seq, c.input}), tensor(b.h0, st_shape), tensor(b.c0, st_shape),
                         tensor(b.w, {int64_t(b.w.size())}), lt};
  Program fp = lstm_fwd_program(c), tp = lstm_train_program(c);
  results.push_back(result(s, "fwd", 1.0, time_reps(reps, [&] { Executor().run(fp, in); })));
  in.push_back(tensor(b.dy, {c.batch, c.seq, c.dirs() * c.hidden}));
  in.push_back(tensor(b.dhn, st_shape));
  in.push_back(tensor(b.dcn, st_shape));
  if (s.train) results.push_back(result(s, "fwd+bwd", 3.0, time_reps(reps, [&] { Executor().run(tp, in); })));
}

// --path kernel: engine/cpu/lstm_cpu called directly.
void bench_kernel(const LstmPerfShape& s, Buffers& b, int reps, bool old_recompute, nlohmann::json& results) {
  const LstmConfig& c = s.config;
  results.push_back(result(s, "fwd", 1.0, time_reps(reps, [&] {
    cpu::lstm_forward(c, b.x.data(), b.h0.data(), b.c0.data(), b.w.data(), b.lens.data(), b.y.data(), b.hn.data(),
                      b.cn.data(), nullptr);
  })));
  // The reserve is allocated once, as a caching allocator would hand the same block back.
  std::vector<float> reserve(s.train ? size_t(lstm_reserve_layout(c).total) : 0);
  if (s.train)
    results.push_back(result(s, "fwd+bwd", 3.0, time_reps(reps, [&] {
      cpu::LstmSaved saved = cpu::lstm_saved_views(c, reserve.data(), b.x.data());
      cpu::lstm_forward(c, b.x.data(), b.h0.data(), b.c0.data(), b.w.data(), b.lens.data(), b.y.data(), b.hn.data(),
                        b.cn.data(), &saved);
      cpu::lstm_backward(c, b.w.data(), b.lens.data(), saved, b.dy.data(), b.dhn.data(), b.dcn.data(), b.dx.data(),
                         b.dh0.data(), b.dc0.data(), b.dw.data());
    })));
  if (s.train && old_recompute)
    results.push_back(result(s, "fwd+recompute+bwd", 3.0, time_reps(reps, [&] {
      cpu::lstm_forward(c, b.x.data(), b.h0.data(), b.c0.data(), b.w.data(), b.lens.data(), b.y.data(), b.hn.data(),
                        b.cn.data(), nullptr);
      std::vector<float> ry(b.y.size()), rhn(b.hn.size()), rcn(b.cn.size()), scratch(reserve.size());  // lstm_bwd's own forward
      cpu::LstmSaved saved = cpu::lstm_saved_views(c, scratch.data(), b.x.data());
      cpu::lstm_forward(c, b.x.data(), b.h0.data(), b.c0.data(), b.w.data(), b.lens.data(), ry.data(), rhn.data(),
                        rcn.data(), &saved);
      cpu::lstm_backward(c, b.w.data(), b.lens.data(), saved, b.dy.data(), b.dhn.data(), b.dcn.data(), b.dx.data(),
                         b.dh0.data(), b.dc0.data(), b.dw.data());
    })));
}

// --path gemms: the kernel's GEMMs alone, both ways of running the step products.
void bench_gemms(const LstmPerfShape& s, int reps, nlohmann::json& results) {
  LstmGemmSequence gemms(s.config);
  for (auto [way, name] : {std::pair{StepGemmWay::Packed, "packed"}, std::pair{StepGemmWay::Sgemm, "sgemm"}}) {
    results.push_back(result(s, "fwd", 1.0, time_reps(reps, [&] { gemms.forward(way); })));
    results.back()["step_gemm"] = name;
    if (!s.train) continue;
    results.push_back(result(s, "fwd+bwd", 3.0, time_reps(reps, [&] { gemms.forward(way), gemms.backward(way); })));
    results.back()["step_gemm"] = name;
  }
}

// --path gates: the kernel's gate loops alone (lstm_gemm_limit.h), what it adds to its GEMMs.
void bench_gates(const LstmPerfShape& s, int reps, nlohmann::json& results) {
  LstmGateLoops loops(s.config);
  results.push_back(result(s, "fwd", 1.0, time_reps(reps, [&] { loops.forward(); })));
  if (s.train) results.push_back(result(s, "fwd+bwd", 3.0, time_reps(reps, [&] { loops.forward(), loops.backward(); })));
}

// What --path names: one entry per path, the bench it runs.
struct Path {
  const char* name;
  void (*bench)(const LstmPerfShape&, Buffers&, const Options&, nlohmann::json&);
};
constexpr Path kPaths[] = {
    {"kernel", [](auto& s, auto& b, auto& o, auto& r) { bench_kernel(s, b, o.reps, o.old_recompute, r); }},
    {"primitive", [](auto& s, auto& b, auto& o, auto& r) { bench_primitive(s, b, o.reps, r); }},
    {"gemms", [](auto& s, auto&, auto& o, auto& r) { bench_gemms(s, o.reps, r); }},
    {"gates", [](auto& s, auto&, auto& o, auto& r) { bench_gates(s, o.reps, r); }},
};

const Path* find_path(const std::string& name) {
  for (const Path& p : kPaths)
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace
}  // namespace tandem

int main(int argc, char** argv) {
  using namespace tandem;
  Options o;
  if (int rc = parse_options(argc, argv, o); rc >= 0) return rc;
  const Path* path = find_path(o.path);
  if (!path) return bad("--path " + o.path + " is not kernel, primitive, gemms or gates");
  nlohmann::json shapes = nlohmann::json::array();
  for (const LstmPerfShape& s : lstm_perf_shapes()) shapes.push_back(shape_json(s));
  if (o.list) {
    std::cout << shapes.dump(1) << "\n";
    return 0;
  }
  cpu::set_lstm_threads(o.threads);
  if (o.path == "primitive") register_all_primitives();
  nlohmann::json out = {{"tool", "tandem lstm_cpu"}, {"threads", o.threads}, {"reps", o.reps}, {"path", o.path}};
#ifdef TANDEM_BLAS_OPENBLAS
  out["blas_threads"] = openblas_get_num_threads();
#endif
  nlohmann::json results = nlohmann::json::array();
  std::mt19937 g(1);
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  for (const LstmPerfShape& s : lstm_perf_shapes()) {
    if (!kept(o.filter, shape_json(s), s.label)) continue;
    Buffers b = make_buffers(s.config, g, u);
    path->bench(s, b, o, results);
  }
  if (results.empty()) {  // a typo in --filter is not an empty measurement
    std::cerr << "error: --filter " << o.filter << " matches no shape\n  hint: lstm_cpu_bench --list-shapes\n";
    return 4;
  }
  out["results"] = results;
  std::cout << out.dump(1) << "\n";
  return 0;
}
