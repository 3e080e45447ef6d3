// The sweep loop (see sweep.h): check once on fresh buffers, then warm-up and timed
// iterations, each timed alone; per-iteration times reduced across ranks; rank 0 prints
// a row and adds a record. A failed check is gathered to rank 0 with rank, host, index.
#include "suites/collectives/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <mpi.h>

#include "engine/comm/job.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/validate.h"
#include "engine/comm/watchdog.h"
#include "engine/core/error.h"
#include "common/exit_codes.h"
#include "suites/collectives/collectives_cases.h"
#include "suites/collectives/sweep_agree.h"
#include "suites/collectives/sweep_ops.h"
#include "suites/common/context.h"
#include "suites/common/records.h"
#include "suites/common/timing.h"

namespace tandem::coll {
namespace {

std::string check_row(SweepOp& s) {
  s.run();
  std::vector<double> got = s.result().to_f64();
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = s.expected(int64_t(i));
    if (got[i] != want) return cat("first bad index ", i, ": expected ", want, ", got ", got[i]);
  }
  return "";
}

}  // namespace

int run_sweep(const SweepOptions& o) {
  comm::set_job_timeout(o.watchdog_s);  // every blocking call from MPI_Init on is watched
  auto& world = comm::mpi_world();
  agree_on_sweep(world, o);  // same options on every rank before any other check
  const auto t = parse_dtype(o.dtype);
  if (!t || *t == DType::pred) throw_bad_input(cat("-d ", o.dtype, ": unknown dtype"), "one of f64 f32 f16 bf16 i32");
  if (o.min_bytes < 1 || o.max_bytes < o.min_bytes || o.factor <= 1)
    throw_bad_input("need 1 <= -b <= -e and -f > 1");
  if (o.iters < 1 || o.warmup < 0) throw_bad_input("need -n >= 1 and -w >= 0");
  if (o.time_reduce != "max" && o.time_reduce != "avg" && o.time_reduce != "min")
    throw_bad_input("--time-reduce must be max, avg or min");
  for (const auto& op : o.ops)
    if (std::find(kSweepOps.begin(), kSweepOps.end(), op) == kSweepOps.end())
      throw_bad_input(cat("-o ", op, ": unknown op"), "one of psum all_gather psum_scatter all_to_all "
                      "ragged_all_to_all ppermute pbroadcast mpi_allreduce mpi_allgather mpi_reduce_scatter mpi_alltoall mpi_alltoallv");
  std::string why;
  const comm::Groups groups = layout_groups(o.groups, world.size(), "psum", &why);
  if (!why.empty()) throw_bad_input(why);
  comm::Collectives ctx(world);  // under the job watchdog
  const bool root = world.rank() == 0;
  std::unique_ptr<RecordWriter> writer;
  comm::agree_verdict(world, [&] {  // a bad --out fails every rank, not only rank 0
    if (root) std::filesystem::create_directories(o.out);
  });
  if (root) {
    writer = std::make_unique<RecordWriter>(o.out + "/records.json");
    std::printf("# tandem collectives: %d ranks, dtype %s, groups %s, %d warm-up + %d timed iterations%s, time = %s over ranks\n",
                world.size(), o.dtype.c_str(), o.groups.c_str(), o.warmup, o.iters,
                o.interleave ? " (rows of a size interleaved)" : "", o.time_reduce.c_str());
    std::printf("%-20s %12s %6s %11s %11s %11s %11s %9s %9s %6s\n", "op", "bytes", "place", "p50(us)", "p99(us)",
                "min(us)", "max(us)", "algbw", "busbw", "check");
  }
  nlohmann::json context = run_context();
  context["ranks"] = world.size();
  int failures = 0;
  // Sizes outermost, ops inside: every op of one size is timed back to back, so a tandem op
  // and the raw MPI call next to it in -o see the same machine state (load, caches). With
  // --interleave the rows of one size even take turns iteration by iteration (starting at a
  // rotating row), so a stall of the machine hits them alike instead of one row's block.
  for (int64_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes = std::max(bytes + 1, int64_t(std::llround(bytes * o.factor)))) {
    struct Row {
      std::string op;
      int inplace;
      SweepOp s;
      std::string verdict;
      std::vector<double> samples;
    };
    std::vector<Row> rows;
    ctx.validate = true;
    for (const auto& op : o.ops)
      for (int inplace : {0, 1}) {
        if ((inplace && o.inplace == "out") || (!inplace && o.inplace == "in")) continue;
        Row row{op, inplace, {}, o.check ? "pass" : "-", std::vector<double>(size_t(o.iters))};
        try {
          row.s = make_sweep_op(ctx, op, groups, bytes, *t, inplace);
          if (op.rfind("mpi_", 0) == 0)  // the raw MPI calls; tandem's ops watch themselves
            row.s.run = comm::watched(ctx.watchdog, op, [&o, op, b = row.s.bytes] {
              return cat(op, " ", o.dtype, " (", b, " bytes) groups=", o.groups);
            }, std::move(row.s.run));
        } catch (const Error& e) {
          if (e.kind() == ErrorKind::unsupported) continue;  // e.g. no in-place form: same on every rank
          throw;
        }
        std::string bad = o.check ? check_row(row.s) : "";
        const auto msgs = comm::all_gather_strings(world, bad);
        const auto hosts = comm::all_gather_strings(world, comm::host_name());
        for (int r = 0; r < world.size(); ++r)
          if (!msgs[size_t(r)].empty()) {
            row.verdict = "FAIL";
            if (root) std::fprintf(stderr, "%s %lld bytes: rank %d (host %s): %s\n", op.c_str(), (long long)row.s.bytes, r,
                                   hosts[size_t(r)].c_str(), msgs[size_t(r)].c_str());
          }
        failures += row.verdict == "FAIL";
        rows.push_back(std::move(row));
      }
    ctx.validate = false;  // validated once above; the timed loop is the bare op
    auto time_one = [&](Row& row, int i) {
      const double t0 = MPI_Wtime();
      row.s.run();
      row.samples[size_t(i)] = MPI_Wtime() - t0;
    };
    if (o.interleave) {
      for (int i = 0; i < o.warmup; ++i)
        for (Row& row : rows) row.s.run();
      world.barrier();
      // The starting row rotates, so no row always follows the same one (the op after a
      // slow one absorbs the ranks' skew).
      for (int i = 0; i < o.iters; ++i)
        for (size_t j = 0; j < rows.size(); ++j) time_one(rows[(size_t(i) + j) % rows.size()], i);
    } else {
      for (Row& row : rows) {
        for (int i = 0; i < o.warmup; ++i) row.s.run();
        world.barrier();
        for (int i = 0; i < o.iters; ++i) time_one(row, i);
      }
    }
    for (Row& row : rows) {
      const SweepOp& s = row.s;
      std::vector<double>& samples = row.samples;
      const std::string& op = row.op;
      const int inplace = row.inplace;
      const std::string& verdict = row.verdict;
      const auto red = o.time_reduce == "min" ? comm::ReduceOp::min : o.time_reduce == "max" ? comm::ReduceOp::max : comm::ReduceOp::sum;
      world.all_reduce(samples.data(), samples.data(), o.iters, DType::f64, red);
      if (o.time_reduce == "avg") for (double& x : samples) x /= world.size();
      TimingStats ts = summarize(samples);
      const double algbw = s.bytes / ts.mean * 1e-9, busbw = algbw * s.busfactor;
      if (!root) continue;
      std::printf("%-20s %12lld %6s %11.1f %11.1f %11.1f %11.1f %9.3f %9.3f %6s\n", op.c_str(), (long long)s.bytes,
                  inplace ? "in" : "out", ts.median * 1e6, ts.p99 * 1e6, ts.min * 1e6, ts.max * 1e6, algbw, busbw,
                  verdict.c_str());
      std::fflush(stdout);
      nlohmann::json rec = {
          {"schema", kRecordSchema}, {"suite", "collectives"},
          {"case", cat("collectives/sweep/op:", op, "/dtype:", o.dtype, "/bytes:", s.bytes, "/inplace:", inplace, "/groups:", o.groups)},
          {"params", {{"op", op}, {"dtype", o.dtype}, {"bytes", s.bytes}, {"inplace", bool(inplace)}, {"groups", o.groups},
                      {"ranks", world.size()}, {"time_reduce", o.time_reduce}, {"interleave", o.interleave}}},
          {"backend", "mpi"}, {"device", "cpu"},
          {"verdict", verdict == "FAIL" ? "fail" : "pass"}, {"message", verdict == "FAIL" ? "check failed (see stderr)" : ""},
          {"correctness", {{"checked", o.check}}},
          {"timing", {{"median", ts.median}, {"p99", ts.p99}, {"min", ts.min}, {"max", ts.max}, {"mean", ts.mean},
                      {"repetitions", o.iters}, {"unit", "s"}}},
          {"metrics", {{{"name", "algbw"}, {"value", algbw}, {"unit", "GB/s"}, {"direction", "higher"}},
                       {{"name", "busbw"}, {"value", busbw}, {"unit", "GB/s"}, {"direction", "higher"}}}},
          {"context", context}};
      writer->add(rec);
    }
  }
  if (writer) writer->finish();
  if (root) std::printf("# %d row(s) failed the check; records: %s/records.json\n", failures, o.out.c_str());
  return failures ? exit_code::correctness_failure : exit_code::pass;
}

}  // namespace tandem::coll
