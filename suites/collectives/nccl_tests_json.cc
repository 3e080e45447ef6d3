// Builds nccl-tests' -J document (see nccl_tests_json.h). Where nccl-tests' writer spells a
// value oddly, this spells it the same, so a reader written against nccl-tests' files reads
// ours: booleans are the strings "true"/"false", root is "%6i" text, times are microseconds.
#include "suites/collectives/nccl_tests_json.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iterator>

extern char** environ;

namespace tandem::coll {
namespace {

const char* nt_bool(bool b) { return b ? "true" : "false"; }

// nccl-tests' TIME_STRING_FORMAT, local time.
std::string now_text() {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::localtime(&t));
  return buf;
}

// nccl-tests writes argv; the sweep is not handed argv, and /proc has it whole.
OrderedJson args_list() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  const std::string all{std::istreambuf_iterator<char>(f), {}};
  OrderedJson out = OrderedJson::array();
  for (size_t i = 0, end; i < all.size(); i = end + 1)  // NUL-separated; the last NUL may be missing
    out.push_back(all.substr(i, (end = std::min(all.find('\0', i), all.size())) - i));
  return out;
}

// nccl-tests writes the whole environment; ours keeps the variables that shape a run
// (NCCL_, CUDA_, TANDEM_, OMPI_), so a result file never carries a token from the shell.
OrderedJson env_list() {
  OrderedJson out = OrderedJson::array();
  for (char** e = environ; *e; ++e) {
    const std::string v = *e;
    for (const char* p : {"NCCL_", "CUDA_", "TANDEM_", "OMPI_"})
      if (v.rfind(p, 0) == 0) out.push_back(v);
  }
  return out;
}

// nccl-tests' summary of the times after -K (computeIterStats in src/util.cu): sorted
// samples, p50 = s[n/2], pXX = s[min(n-1, ceil(n*XX/100)-1)], population stdev.
OrderedJson per_iter(const std::vector<std::vector<double>>& per_rank, int skip) {
  std::vector<double> times(per_rank[0].size(), 0.0);  // the max over ranks, per iteration
  for (const auto& r : per_rank)
    for (size_t i = 0; i < times.size(); ++i) times[i] = std::max(times[i], r[i] * 1e6);
  std::vector<double> s(times.begin() + skip, times.end());
  std::sort(s.begin(), s.end());
  const int n = int(s.size());
  auto pct = [&](int p) { return s[size_t(std::min(n - 1, (n * p + 99) / 100 - 1))]; };
  double sum = 0, var = 0;
  for (double x : s) sum += x;
  const double avg = sum / n;
  for (double x : s) var += (x - avg) * (x - avg);
  const double sd = std::sqrt(var / n);
  OrderedJson j = {{"skipped_iterations", skip}, {"min_us", s.front()}, {"max_us", s.back()}, {"avg_us", avg},
                   {"p50_us", s[size_t(n / 2)]}, {"p95_us", pct(95)}, {"p99_us", pct(99)}, {"stdev_us", sd},
                   {"cv_pct", avg > 0 ? sd / avg * 100 : 0.0}, {"times_us", times}};
  if (per_rank.size() > 1) {  // nccl-tests writes the process rows only when there are several
    OrderedJson& rows = j["per_process_max_times_us"] = OrderedJson::array();
    for (const auto& r : per_rank) {
      rows.push_back(OrderedJson::array());
      for (double x : r) rows.back().push_back(x * 1e6);
    }
  }
  return j;
}

}  // namespace

OrderedJson nt_document(const SweepOptions& o, const std::vector<NtDevice>& devices) {
  OrderedJson devs = OrderedJson::array();
  for (size_t r = 0; r < devices.size(); ++r) {
    const NtDevice& d = devices[r];
    devs.push_back({{"rank", r}, {"group", 0}, {"pid", d.pid}, {"hostname", d.host}, {"device", d.device},
                    {"device_hex", ""}, {"device_info", d.info}});
  }
  // tandem's -f is a real number; nccl-tests' an integer: an integral factor is written as one.
  const OrderedJson factor = o.factor == std::floor(o.factor) ? OrderedJson(int64_t(o.factor)) : OrderedJson(o.factor);
  return {{"version", 3}, {"start_time", now_text()}, {"args", args_list()}, {"env", env_list()},
          {"nccl_version", 0},  // not reported: the MPI backend has none
          {"config", {{"nthreads", 1}, {"ngpus", 1}, {"minimum_bytes", o.min_bytes}, {"maximum_bytes", o.max_bytes},
                      {"step_factor", factor}, {"warmup_iters", o.warmup}, {"iterations", o.iters},
                      {"aggregated_iterations", 1}, {"validation", int(o.check)}, {"graph", 0},
                      {"blocking_collectives", nt_bool(false)}, {"per_iter_timing", nt_bool(o.per_iter)},
                      {"per_iter_skip", o.per_iter_skip}, {"parallel_init", nt_bool(false)}, {"devices", devs}}},
          {"results", OrderedJson::array()}};
}

OrderedJson nt_result(const NtResult& r, const SweepOptions& o) {
  char root[16];
  std::snprintf(root, sizeof root, "%6i", r.root);
  OrderedJson j = {{"size", r.bytes}, {"count", r.count}, {"type", r.type}, {"redop", r.redop}, {"root", root}};
  for (int inplace : {0, 1}) {
    const NtSide& s = r.side[inplace];
    const std::string key = inplace ? "in_place" : "out_of_place";
    if (!s.present) {  // nccl-tests' null body: the op has no such form
      j[key] = nullptr;
      continue;
    }
    j[key] = {{"time", s.time_s * 1e6}, {"alg_bw", s.algbw}, {"bus_bw", s.busbw},
              {"nwrong", s.wrong < 0 ? OrderedJson(nullptr) : OrderedJson(s.wrong)}};
    if (!s.per_rank.empty()) j[key + "_per_iter"] = per_iter(s.per_rank, o.per_iter_skip);
  }
  j["actual_iterations"] = o.iters;
  j["experiment_name"] = r.name;
  return j;
}

void nt_finish(OrderedJson& doc, int64_t wrong, double avg_busbw) {
  doc["out_of_bounds"] = {{"count", wrong}, {"okay", nt_bool(wrong == 0)}};
  doc["average_bus_bandwidth"] = {{"bandwidth", avg_busbw}, {"okay", "unchecked"}};
  doc["errors"] = OrderedJson::array();
  doc["end_time"] = now_text();
}

}  // namespace tandem::coll
