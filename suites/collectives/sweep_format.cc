// nccl-tests' text layout for the sweep (see sweep_format.h). Column widths are nccl-tests'
// (src/common.cu: "%12li  %12li  %8s  %6s  %6i" then per side "  %7s  %6.2f  %6.2f  %5s").
#include "suites/collectives/sweep_format.h"

#include <cstdio>

#include "engine/core/error.h"
#include "suites/collectives/sweep.h"

namespace tandem::coll {
namespace {

struct TypeName {
  DType t;
  const char* nccl;
};
// One table: -d's names, the type column, "all".
const TypeName kTypes[] = {{DType::f32, "float"}, {DType::f16, "half"}, {DType::bf16, "bfloat16"},
                           {DType::f64, "double"}, {DType::i32, "int32"}};

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string side(const Side& s) {
  char b[160];
  if (!s.present) {
    std::snprintf(b, sizeof b, "  %7s  %6s  %6s  %5s", "N/A", "N/A", "N/A", "N/A");
  } else {
    const std::string wrong = s.wrong < 0 ? "N/A" : std::to_string(s.wrong);
    std::snprintf(b, sizeof b, "  %7s  %6.2f  %6.2f  %5s", nccl_time(s.time_s).c_str(), s.algbw, s.busbw, wrong.c_str());
  }
  return b;
}

std::string tail(const Side& s) {
  if (!s.present) return "      N/A      N/A";
  return cat("  ", nccl_time(s.p50_s), "  ", nccl_time(s.p99_s));
}

}  // namespace

std::string nccl_time(double seconds) {
  const double us = seconds * 1e6;
  return fmt(us > 10000.0 ? "%7.0f" : us > 100.0 ? "%7.1f" : "%7.2f", us);
}

std::string table_header(bool percentiles) {
  std::string h =
      "#                                                              out-of-place                       in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong";
  std::string u =
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ";
  if (percentiles) {
    h += "  oop_p50  oop_p99   ip_p50   ip_p99";
    u += "     (us)     (us)     (us)     (us)";
  }
  return h + "\n" + u + "\n";
}

std::string table_row(int64_t bytes, int64_t count, DType t, const std::string& redop, int root,
                      const Side& out, const Side& in, bool percentiles) {
  char b[128];
  std::snprintf(b, sizeof b, "%12lld  %12lld  %8s  %6s  %6d", (long long)bytes, (long long)count,
                nccl_type_name(t).c_str(), redop.c_str(), root);
  std::string row = b + side(out) + side(in);
  if (percentiles) row += tail(out) + tail(in);
  return row;
}

std::string table_footer(int64_t wrong, double avg_busbw) {
  char b[160];
  std::snprintf(b, sizeof b, "# Out of bounds values : %lld %s\n# Avg bus bandwidth    : %g \n#\n", (long long)wrong,
                wrong ? "FAILED" : "OK", avg_busbw);
  return b;
}

std::string sweep_banner(const SweepOptions& o, int ranks, const std::string& backend) {
  char b[512];
  std::snprintf(b, sizeof b,
                "# tandem collectives (nccl-tests layout): %d ranks, backend %s, groups %s, time = mean over "
                "iterations of the %s over ranks%s\n",
                ranks, backend.c_str(), o.groups.c_str(), o.time_reduce.c_str(),
                o.interleave ? ", rows of a size interleaved" : "");
  std::string s = b;
  std::snprintf(b, sizeof b,
                "# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: %g(factor) warmup iters: %d iters: %d "
                "agg iters: 1 validation: %d graph: 0\n#\n",
                (long long)o.min_bytes, (long long)o.max_bytes, o.factor, o.warmup, o.iters, int(o.check));
  return s + b;
}

std::string devices_table(const std::vector<std::string>& hosts, int my_rank, const std::string& device, bool nccl,
                          const std::string& backend) {
  std::string s = "# Using devices\n";
  for (int r = 0; r < int(hosts.size()); ++r) {
    char b[512];
    std::snprintf(b, sizeof b, "#  Rank %2d Group  0 on %10s device %s [%s]\n", r, hosts[size_t(r)].c_str(),
                  r == my_rank ? device.c_str() : (nccl ? "cuda" : "cpu"), backend.c_str());
    s += b;
  }
  return s + "#\n";
}

std::string skipped_line(const std::string& op, DType t, const std::string& redop, const std::string& why) {
  return cat("# ", op, ", ", nccl_type_name(t), ", redop ", redop, ": rows skipped: ", why, "\n");
}

std::string raw_table(const std::string& op, const std::string& raw_name, DType t, const std::string& redop,
                      bool percentiles, const std::string& rows) {
  return cat("# ", op, ": raw ", raw_name, " on the same buffers, ", nccl_type_name(t), ", redop ", redop, "\n",
             table_header(percentiles), rows);
}

std::string nccl_type_name(DType t) {
  for (const TypeName& n : kTypes)
    if (n.t == t) return n.nccl;
  return std::string(dtype_name(t));
}

std::optional<std::vector<DType>> parse_sweep_dtypes(const std::string& name) {
  std::vector<DType> all;
  for (const TypeName& n : kTypes) {
    if (name == n.nccl || name == dtype_name(n.t)) return std::vector<DType>{n.t};
    all.push_back(n.t);
  }
  if (name == "all") return all;
  return std::nullopt;
}

std::vector<std::string> sweep_dtype_names() {
  std::vector<std::string> v;
  for (const TypeName& n : kTypes) v.push_back(n.nccl);
  for (const TypeName& n : kTypes) v.emplace_back(dtype_name(n.t));
  v.push_back("all");
  return v;
}

}  // namespace tandem::coll
