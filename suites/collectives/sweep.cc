// The sweep loop (see sweep.h). Per op and size: the rows (tandem call and raw call, out of
// place and in place) are built on fresh buffers, checked once, warmed up and timed; every
// blocking call — the tandem ops (armed inside engine/comm), the raw calls and the sweep's
// own barriers and reductions — runs under the sweep's watchdog, so a hang aborts the job
// with what hung. A tandem op and its raw call of one size run back to back (or, with
// --interleave, take turns per iteration), so both see the same machine state. With
// --backend nccl the ops and raw calls run on an NCCL communicator's device buffers while
// agreement, time reduction and the wrong-element counts stay on the MPI world.
#include "suites/collectives/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mpi.h>
#include <optional>
#include <sstream>
#include <unistd.h>

#include "engine/comm/job.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/nccl_communicator.h"
#include "engine/comm/validate.h"
#include "engine/comm/watchdog.h"
#include "engine/core/error.h"
#include "harness/atomic_file.h"
#include "harness/context.h"
#include "harness/gbench_json.h"
#include "harness/out_dir_lock.h"
#include "harness/records.h"
#include "harness/timing.h"
#include "suites/collectives/collectives_cases.h"
#include "suites/collectives/nccl_tests_json.h"
#include "suites/collectives/op_table.h"
#include "suites/collectives/sweep_agree.h"
#include "suites/collectives/sweep_format.h"

namespace tandem::coll {
namespace {

using comm::ReduceOp;

struct Redop {
  const char* name;
  ReduceOp op;
};
// -o: nccl-tests' names of the reductions JAX's collectives have (psum, pmax, pmin).
const Redop kRedops[] = {{"sum", ReduceOp::sum}, {"max", ReduceOp::max}, {"min", ReduceOp::min}};

struct Row {
  bool raw = false, inplace = false;
  SweepRow s;
  std::function<void()> call;
  int64_t wrong = -1;  // summed over ranks; -1: not checked
  std::vector<double> samples;
  std::vector<double> per_rank;  // -I 1: every rank's samples, rank after rank
  TimingStats ts;
  double algbw = 0, busbw = 0;
};

// A blocking call of the sweep itself under the watchdog (the tandem ops arm their own).
template <class F>
void watched(comm::Watchdog& dog, const std::string& what, F&& f) {
  comm::WatchScope w(&dog, [what] { return "collectives sweep: " + what; });
  f();
}

int64_t count_wrong(const SweepRow& s) {
  const std::vector<double> got = s.recv.to_f64();
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) bad += got[i] != s.expected(int64_t(i));
  return bad;
}

struct Validated {
  std::vector<DType> dtypes;
  std::vector<Redop> redops;
  std::vector<const CollOp*> ops;
};

Validated validate(const SweepOptions& o, int world_size) {
  Validated v;
  const auto ts = parse_sweep_dtypes(o.dtype);
  if (!ts) throw_bad_input(cat("-d ", o.dtype, ": unknown dtype"), "one of float half bfloat16 double int32 all");
  v.dtypes = *ts;
  if (o.backend != "mpi" && o.backend != "nccl")
    throw_bad_input(cat("--backend ", o.backend, ": unknown"), "mpi (host buffers) or nccl (device buffers, one GPU per rank)");
  for (const Redop& r : kRedops)
    if (o.redop == r.name || o.redop == "all") v.redops.push_back(r);
  if (v.redops.empty()) throw_bad_input(cat("-o ", o.redop, ": unknown reduction op"), "one of sum max min all");
  if (o.min_bytes < 1 || o.max_bytes < o.min_bytes || o.factor <= 1) throw_bad_input("need 1 <= -b <= -e and -f > 1");
  if (o.iters < 1 || o.warmup < 0) throw_bad_input("need -n >= 1 and -w >= 0");
  if (o.time_reduce != "max" && o.time_reduce != "avg" && o.time_reduce != "min")
    throw_bad_input("--time-reduce must be max, avg or min");
  if (o.per_iter && o.json_out.empty())
    throw_bad_input("-I 1 records per-iteration times in the -J file", "add -J out.json (--percentiles prints p50/p99)");
  if (o.per_iter_skip > 0 && (!o.per_iter || o.per_iter_skip >= o.iters))
    throw_bad_input(cat("-K ", o.per_iter_skip, " skips leading iterations of -I 1's summary"), "give -I 1 and -K < -n");
  if (o.ops.empty()) throw_bad_input("--ops is empty", "e.g. --ops psum,all_gather (one of " + op_list(true) + ")");
  const bool all = std::count(o.ops.begin(), o.ops.end(), "all") > 0;
  if (all && o.ops.size() > 1) throw_bad_input("--ops all lists every op: give it alone", "e.g. --ops all");
  const std::vector<std::string> names = all ? op_names(true) : o.ops;
  for (const std::string& name : names) {
    const CollOp* op = find_op(name);
    if (!op || !op->sweepable()) throw_bad_input(cat("--ops ", name, ": not an op of the sweep"), "one of " + op_list(true));
    if (std::count(names.begin(), names.end(), name) > 1)
      throw_bad_input(cat("--ops lists ", name, " twice"), "list each op once, e.g. --ops psum,all_gather");
    std::string why;
    layout_groups(o.groups, world_size, name, &why);
    if (!why.empty()) throw_bad_input(why, all ? "use --groups all, or list the ops that fit in --ops"
                                              : "use --groups all, or leave this op out of --ops");
    v.ops.push_back(op);
  }
  return v;
}

// What names a row besides its own fields: the op, dtype, reduction and the raw call's name.
struct Table {
  const CollOp* op;
  DType t;
  std::string redop, raw_name, backend;
  int G = 1;  // group size, for the bus factor
};

// One size of one op: (tandem, raw) × (out of place, in place), the forms that exist, each on
// fresh buffers; the raw call runs under the sweep's watchdog (the tandem op arms its own).
std::vector<Row> build_rows(comm::Collectives& ctx, comm::Watchdog& dog, const comm::Groups& g, const Table& tb,
                            const SweepOptions& o, int64_t bytes, ReduceOp redop, std::string* skipped) {
  std::vector<Row> rows;
  for (bool raw : {false, true}) {
    if (raw && (!o.raw || tb.raw_name.empty())) continue;
    for (bool inplace : {false, true}) {
      if ((inplace && o.inplace == "out") || (!inplace && o.inplace == "in") || (inplace && !tb.op->in_place)) continue;
      Row row;
      row.raw = raw, row.inplace = inplace;
      try {
        row.s = tb.op->sweep(ctx, g, SweepArgs{bytes, tb.t, inplace, redop});
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::unsupported) throw;
        *skipped = e.message();  // the same on every rank: a property of the op and options
        continue;
      }
      const std::string what = cat(tb.raw_name, " ", row.s.bytes, " bytes");
      // The raw call under the job watchdog; its test-hook point is "raw_<call>" (test_hooks.h).
      row.call = raw ? comm::watched(&dog, "raw_" + tb.raw_name, [what] { return "collectives sweep: " + what; }, row.s.raw)
                     : row.s.run;
      row.samples.assign(size_t(o.iters), 0.0);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// Once on fresh buffers, tandem validating its arguments; wrong elements summed over ranks
// on the (host) control plane.
void check_rows(std::vector<Row>& rows, comm::Collectives& ctx, comm::Communicator& control, comm::Watchdog& dog) {
  ctx.validate = true;
  for (Row& row : rows) {
    row.call();
    double bad = double(count_wrong(row.s));
    watched(dog, "sum of wrong elements", [&] { control.all_reduce(&bad, &bad, 1, DType::f64, ReduceOp::sum); });
    row.wrong = int64_t(bad);
  }
  ctx.validate = false;  // the timed loop is the bare op
}

// Warm-up and timed iterations, each timed alone; then per-iteration times reduced over
// ranks, and the row's statistics and bandwidths.
void time_rows(std::vector<Row>& rows, const SweepOptions& o, comm::Communicator& world, comm::Watchdog& dog,
               double busfactor) {
  auto time_one = [&](Row& row, int i) {
    const double t0 = MPI_Wtime();
    row.call();
    row.samples[size_t(i)] = MPI_Wtime() - t0;
  };
  if (o.interleave) {
    for (int i = 0; i < o.warmup; ++i)
      for (Row& row : rows) row.call();
    watched(dog, "barrier", [&] { world.barrier(); });
    // The starting row rotates, so no row always follows the same one.
    for (int i = 0; i < o.iters; ++i)
      for (size_t j = 0; j < rows.size(); ++j) time_one(rows[(size_t(i) + j) % rows.size()], i);
  } else {
    for (Row& row : rows) {
      for (int i = 0; i < o.warmup; ++i) row.call();
      watched(dog, "barrier", [&] { world.barrier(); });
      for (int i = 0; i < o.iters; ++i) time_one(row, i);
    }
  }
  const auto red = o.time_reduce == "min" ? ReduceOp::min : o.time_reduce == "max" ? ReduceOp::max : ReduceOp::sum;
  for (Row& row : rows) {
    if (o.per_iter) {  // before the reduction: nccl-tests' per-process rows
      row.per_rank.resize(row.samples.size() * size_t(world.size()));
      watched(dog, "per-rank times", [&] { world.all_gather(row.samples.data(), row.per_rank.data(), o.iters, DType::f64); });
    }
    watched(dog, "time reduction", [&] { world.all_reduce(row.samples.data(), row.samples.data(), o.iters, DType::f64, red); });
    if (o.time_reduce == "avg") for (double& x : row.samples) x /= world.size();
    row.ts = summarize(row.samples);
    row.algbw = double(row.s.bytes) / row.ts.mean * 1e-9;
    row.busbw = row.algbw * busfactor;
  }
}

nlohmann::json row_record(const Row& row, const Table& tb, const SweepOptions& o, int ranks, const nlohmann::json& context,
                          const std::string& device) {
  const char* impl = row.raw ? "raw" : "tandem";
  return {
      {"schema", kRecordSchema}, {"suite", "collectives"},
      {"case", cat("collectives/sweep/op:", tb.op->name, "/call:", impl, "/dtype:", dtype_name(tb.t), "/redop:", tb.redop,
                   "/bytes:", row.s.bytes, "/inplace:", int(row.inplace), "/groups:", o.groups, "/ranks:", ranks)},
      {"params", {{"op", tb.op->name}, {"impl", impl}, {"call", row.raw ? tb.raw_name : "tandem"},
                  {"dtype", dtype_name(tb.t)}, {"redop", tb.redop}, {"root", row.s.root},
                  {"bytes", row.s.bytes}, {"count", row.s.count}, {"inplace", row.inplace},
                  {"groups", o.groups}, {"ranks", ranks}, {"time_reduce", o.time_reduce},
                  {"interleave", o.interleave}}},
      {"backend", tb.backend}, {"device", device},
      {"verdict", row.wrong > 0 ? "fail" : "pass"},
      {"message", row.wrong > 0 ? cat(row.wrong, " wrong element(s) over all ranks") : ""},
      {"correctness", {{"checked", row.wrong >= 0}, {"wrong", row.wrong}}},
      {"timing", timing_json(row.samples)},
      {"metrics", {{{"name", "algbw"}, {"value", row.algbw}, {"unit", "GB/s"}, {"direction", "higher"}},
                   {{"name", "busbw"}, {"value", row.busbw}, {"unit", "GB/s"}, {"direction", "higher"}}}},
      {"context", context}};
}

// config.devices of -J: each rank's pid and device, beside the host names gathered already.
std::vector<NtDevice> nt_devices(comm::Communicator& world, comm::Watchdog& dog, const std::vector<std::string>& hosts,
                                 const Device& d) {
  std::vector<std::string> all;
  const std::string mine = cat(getpid(), " ", d.kind == DeviceKind::cuda ? d.index : -1, " ", d.str());
  watched(dog, "device report", [&] { all = comm::all_gather_strings(world, mine); });
  std::vector<NtDevice> out(all.size());
  for (size_t r = 0; r < all.size(); ++r) {
    out[r].host = hosts[r];
    std::istringstream(all[r]) >> out[r].pid >> out[r].device >> out[r].info;
  }
  return out;
}

// One side of a -J result: the row's figures and, with -I 1, each rank's iterations.
NtSide nt_side(const Row& row) {
  NtSide s{true, row.ts.mean, row.algbw, row.busbw, row.wrong, {}};
  for (size_t at = 0; at < row.per_rank.size(); at += row.samples.size())
    s.per_rank.emplace_back(row.per_rank.begin() + long(at), row.per_rank.begin() + long(at + row.samples.size()));
  return s;
}

}  // namespace

std::vector<std::string> sweep_redop_names() {
  std::vector<std::string> v;
  for (const Redop& r : kRedops) v.push_back(r.name);
  v.push_back("all");
  return v;
}

SweepResult run_sweep(const SweepOptions& o) {
  comm::set_job_timeout(o.watchdog_s);  // every blocking call from MPI_Init on is watched
  auto& world = comm::mpi_world();  // the control plane, whatever the data backend
  // Same options on every rank before any other check, then the checks' verdict agreed.
  Validated v;
  agree_on_sweep(world, o, [&] { v = validate(o, world.size()); });
  // The data plane: MPI on host buffers, or NCCL on each rank's GPU (unsupported, the same
  // on every rank, without a CUDA+NCCL build or a GPU per rank).
  std::unique_ptr<comm::Communicator> nccl;
  if (o.backend == "nccl") nccl = comm::make_nccl_communicator(world, o.watchdog_s);
  comm::Communicator& data = nccl ? *nccl : world;
  comm::Collectives ctx(data);
  comm::Watchdog& dog = comm::job_watchdog();  // scopes nest: the sweep's own calls arm it too
  ctx.watchdog = &dog;
  const bool root = world.rank() == 0;
  SweepResult result;
  result.records = o.out + "/records.json";
  std::unique_ptr<RecordWriter> writer;
  const std::string backend = data.backend();
  const std::string device = data.device().str();
  std::optional<OutDirLock> lock;  // rank 0 holds --out for the job: one writer at a time (issue 31 #1)
  comm::agree_verdict(world, [&] {  // a bad or busy --out fails every rank, not only rank 0
    if (root) lock.emplace(o.out, "collectives");
  });
  if (root) {
    writer = std::make_unique<RecordWriter>(result.records);
    std::printf("# tandem collectives (nccl-tests layout): %d ranks, backend %s, groups %s, time = mean over "
                "iterations of the %s over ranks%s\n",
                world.size(), backend.c_str(), o.groups.c_str(), o.time_reduce.c_str(),
                o.interleave ? ", rows of a size interleaved" : "");
    std::printf("# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: %g(factor) warmup iters: %d iters: %d "
                "agg iters: 1 validation: %d graph: 0\n#\n",
                (long long)o.min_bytes, (long long)o.max_bytes, o.factor, o.warmup, o.iters, int(o.check));
  }
  std::vector<std::string> hosts;
  watched(dog, "host names", [&] { hosts = comm::all_gather_strings(world, comm::host_name()); });
  if (root) {
    std::printf("# Using devices\n");
    for (int r = 0; r < world.size(); ++r)
      std::printf("#  Rank %2d Group  0 on %10s device %s [%s]\n", r, hosts[size_t(r)].c_str(),
                  r == world.rank() ? device.c_str() : (nccl ? "cuda" : "cpu"), backend.c_str());
    std::printf("#\n");
  }
  std::optional<OrderedJson> nt;  // -J: rank 0's nccl-tests document
  if (!o.json_out.empty()) {
    const std::vector<NtDevice> devs = nt_devices(world, dog, hosts, data.device());
    if (root) nt = nt_document(o, devs);
  }
  nlohmann::json context = run_context();
  context["ranks"] = world.size();
  int64_t wrong_all = 0;
  std::string why_none;  // the last reason rows were skipped, for a sweep that timed nothing
  double bus_sum = 0, raw_bus_sum = 0;
  int bus_n = 0, raw_bus_n = 0;
  for (DType t : v.dtypes)
    for (size_t ri = 0; ri < v.redops.size(); ++ri)
      for (const CollOp* op : v.ops) {
        if (!op->sweep_redop && ri > 0) continue;  // -o all: ops that take no reduction op run once
        const comm::Groups groups = [&] { std::string why; return layout_groups(o.groups, world.size(), op->name, &why); }();
        const auto raw_it = op->raw_call.find(backend);
        Table tb{op, t, op->sweep_redop ? v.redops[ri].name : "none", raw_it == op->raw_call.end() ? "" : raw_it->second,
                 backend, op->takes_groups ? ctx.group(groups).size() : world.size()};  // the split is cached
        std::string raw_table, skipped;
        bool header = false;  // printed before the first row, so an op with none shows only why
        int64_t last = -1;    // the last timed size after rounding to whole elements
        for (int64_t bytes = o.min_bytes; bytes <= o.max_bytes;
             bytes = std::max(bytes + 1, int64_t(std::llround(double(bytes) * o.factor)))) {
          std::vector<Row> rows = build_rows(ctx, dog, groups, tb, o, bytes, v.redops[ri].op, &skipped);
          if (rows.empty()) break;
          // Sizes that round to one already timed (-b 1, -f 1.2 on doubles) would repeat a case
          // name the gate refuses (issue 31 #2); rounding is the same on every rank.
          if (rows.front().s.bytes == last) continue;
          last = rows.front().s.bytes;
          if (o.check) check_rows(rows, ctx, world, dog);
          time_rows(rows, o, world, dog, op->busfactor(tb.G));
          Side sides[2][2];  // [raw][inplace]
          NtResult ntr[2];   // [raw]
          for (const Row& row : rows) {
            ntr[row.raw].side[row.inplace] = nt_side(row);
            sides[row.raw][row.inplace] = {true, row.ts.mean, row.algbw, row.busbw, row.ts.median, row.ts.p99, row.wrong};
            result.rows++;
            result.failed_rows += row.wrong > 0;
            wrong_all += std::max<int64_t>(0, row.wrong);
            (row.raw ? raw_bus_sum : bus_sum) += row.busbw;
            (row.raw ? raw_bus_n : bus_n)++;
            if (root) writer->add(row_record(row, tb, o, world.size(), context, device));
          }
          if (!root) continue;
          const SweepRow& s = rows.front().s;
          for (int raw = 0; nt && raw < 2; ++raw) {
            NtResult& n = ntr[raw];
            if (!n.side[0].present && !n.side[1].present) continue;
            n.bytes = s.bytes, n.count = s.count, n.type = nccl_type_name(t), n.redop = tb.redop, n.root = s.root;
            n.name = raw ? cat(op->name, " raw ", tb.raw_name) : op->name;
            (*nt)["results"].push_back(nt_result(n, o));
          }
          if (!header)
            std::printf("# %s (tandem), %s, redop %s\n%s", op->name.c_str(), nccl_type_name(t).c_str(),
                        tb.redop.c_str(), table_header(o.percentiles).c_str());
          header = true;
          std::printf("%s\n", table_row(s.bytes, s.count, t, tb.redop, s.root, sides[0][0], sides[0][1], o.percentiles).c_str());
          std::fflush(stdout);
          if (sides[1][0].present || sides[1][1].present)
            raw_table += table_row(s.bytes, s.count, t, tb.redop, s.root, sides[1][0], sides[1][1], o.percentiles) + "\n";
        }
        if (!skipped.empty()) why_none = skipped;
        if (root && !skipped.empty())
          std::printf("# %s, %s, redop %s: rows skipped: %s\n", op->name.c_str(), nccl_type_name(t).c_str(),
                      tb.redop.c_str(), skipped.c_str());
        if (root && !raw_table.empty())
          std::printf("# %s: raw %s on the same buffers, %s, redop %s\n%s%s", op->name.c_str(), tb.raw_name.c_str(),
                      nccl_type_name(t).c_str(), tb.redop.c_str(), table_header(o.percentiles).c_str(), raw_table.c_str());
      }
  result.wrong = wrong_all;
  // Every rank skipped the same rows (a property of ops and options), so all throw alike.
  if (result.rows == 0) throw_bad_input(cat("collectives: no row to time: ", why_none), "e.g. -o sum, or other --ops");
  if (writer) {  // benchmark.json too, as `tandem run` writes it: a sweep merges into a run (tandem merge)
    writer->finish();
    write_file_atomically(o.out + "/benchmark.json", google_benchmark_json(writer->records()).dump(1) + "\n");
  }
  if (root) {
    // The closing lines cover the tandem rows, as nccl-tests' cover its own; the raw calls'
    // mean is on a line of its own that a parser of "Avg bus bandwidth" does not match.
    std::printf("%s", table_footer(wrong_all, bus_n ? bus_sum / bus_n : 0).c_str());
    if (raw_bus_n) std::printf("# Raw calls' mean busbw : %g\n", raw_bus_sum / raw_bus_n);
    if (nt) {  // written once, whole: a reader never sees a half-written file
      nt_finish(*nt, wrong_all, bus_n ? bus_sum / bus_n : 0);
      write_file_atomically(o.json_out, nt->dump(1) + "\n");
      std::printf("# Writing JSON output to %s\n", o.json_out.c_str());
    }
    std::printf("# %d row(s), %d failed the check; records: %s\n", result.rows, result.failed_rows, result.records.c_str());
  }
  return result;
}

}  // namespace tandem::coll
