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

// One sweep's state on this rank: its communicators, outputs and running totals.
struct Sweep {
  Sweep(const SweepOptions& opts, comm::Communicator& w, comm::Collectives& c, comm::Watchdog& d)
      : o(opts), world(w), ctx(c), dog(d) {}
  const SweepOptions& o;
  comm::Communicator& world;  // the control plane, whatever the data backend
  comm::Collectives& ctx;
  comm::Watchdog& dog;
  bool nccl = false, root = false;
  std::string backend, device;
  SweepResult result;
  std::optional<OutDirLock> lock;  // rank 0 holds --out for the job: one writer at a time
  std::unique_ptr<RecordWriter> writer;
  std::optional<OrderedJson> nt;  // -J: rank 0's nccl-tests document
  nlohmann::json context;
  std::string why_none;  // the last reason rows were skipped, for a sweep that timed nothing
  double bus_sum = 0, raw_bus_sum = 0;
  int bus_n = 0, raw_bus_n = 0;
};

// The lock on --out, the record writer, the opening lines and the devices (printed and,
// with -J, in the nccl-tests document).
void open_outputs(Sweep& s, comm::Communicator& data) {
  comm::agree_verdict(s.world, [&] {  // a bad or busy --out fails every rank, not only rank 0
    if (s.root) s.lock.emplace(s.o.out, "collectives");
  });
  if (s.root) {
    s.writer = std::make_unique<RecordWriter>(s.result.records);
    std::printf("%s", sweep_banner(s.o, s.world.size(), s.backend).c_str());
  }
  std::vector<std::string> hosts;
  watched(s.dog, "host names", [&] { hosts = comm::all_gather_strings(s.world, comm::host_name()); });
  if (s.root) std::printf("%s", devices_table(hosts, s.world.rank(), s.device, s.nccl, s.backend).c_str());
  if (!s.o.json_out.empty()) {
    const std::vector<NtDevice> devs = nt_devices(s.world, s.dog, hosts, data.device());
    if (s.root) s.nt = nt_document(s.o, devs);
  }
  s.context = run_context();
  s.context["ranks"] = s.world.size();
}

// One op × dtype × reduction across the sizes: what names its rows, and what it printed.
struct OpSweep {
  Table tb;
  comm::Groups groups;
  ReduceOp redop;
  std::string raw_rows, skipped;
  bool header = false;  // printed before the first row, so an op with none shows only why
  int64_t last = -1;    // the last timed size after rounding to whole elements
};

// One size's timed rows into the totals and records; their sides for the table and -J.
void account_rows(Sweep& s, const OpSweep& p, const std::vector<Row>& rows, Side (&sides)[2][2], NtResult (&ntr)[2]) {
  for (const Row& row : rows) {
    ntr[row.raw].side[row.inplace] = nt_side(row);
    sides[row.raw][row.inplace] = {true, row.ts.mean, row.algbw, row.busbw, row.ts.median, row.ts.p99, row.wrong};
    s.result.rows++;
    s.result.failed_rows += row.wrong > 0;
    s.result.wrong += std::max<int64_t>(0, row.wrong);
    (row.raw ? s.raw_bus_sum : s.bus_sum) += row.busbw;
    (row.raw ? s.raw_bus_n : s.bus_n)++;
    if (s.root) s.writer->add(row_record(row, p.tb, s.o, s.world.size(), s.context, s.device));
  }
}

// Rank 0: one size's -J results, its tandem row printed and its raw row kept for later.
void report_size(Sweep& s, OpSweep& p, const SweepRow& r, const Side (&sides)[2][2], NtResult (&ntr)[2]) {
  const Table& tb = p.tb;
  for (int raw = 0; s.nt && raw < 2; ++raw) {
    NtResult& n = ntr[raw];
    if (!n.side[0].present && !n.side[1].present) continue;
    n.bytes = r.bytes, n.count = r.count, n.type = nccl_type_name(tb.t), n.redop = tb.redop, n.root = r.root;
    n.name = raw ? cat(tb.op->name, " raw ", tb.raw_name) : tb.op->name;
    (*s.nt)["results"].push_back(nt_result(n, s.o));
  }
  if (!p.header)
    std::printf("# %s (tandem), %s, redop %s\n%s", tb.op->name.c_str(), nccl_type_name(tb.t).c_str(),
                tb.redop.c_str(), table_header(s.o.percentiles).c_str());
  p.header = true;
  std::printf("%s\n", table_row(r.bytes, r.count, tb.t, tb.redop, r.root, sides[0][0], sides[0][1], s.o.percentiles).c_str());
  std::fflush(stdout);
  if (sides[1][0].present || sides[1][1].present)
    p.raw_rows += table_row(r.bytes, r.count, tb.t, tb.redop, r.root, sides[1][0], sides[1][1], s.o.percentiles) + "\n";
}

// One op × dtype × reduction: every size built, checked, timed, recorded and printed.
void sweep_op(Sweep& s, const CollOp* op, DType t, const Redop& redop) {
  const SweepOptions& o = s.o;
  OpSweep p;
  p.groups = [&] { std::string why; return layout_groups(o.groups, s.world.size(), op->name, &why); }();
  p.redop = redop.op;
  const auto raw_it = op->raw_call.find(s.backend);
  p.tb = Table{op, t, op->sweep_redop ? redop.name : "none", raw_it == op->raw_call.end() ? "" : raw_it->second,
               s.backend, op->takes_groups ? s.ctx.group(p.groups).size() : s.world.size()};  // the split is cached
  for (int64_t bytes = o.min_bytes; bytes <= o.max_bytes;
       bytes = std::max(bytes + 1, int64_t(std::llround(double(bytes) * o.factor)))) {
    std::vector<Row> rows = build_rows(s.ctx, s.dog, p.groups, p.tb, o, bytes, p.redop, &p.skipped);
    if (rows.empty()) break;
    // Sizes that round to one already timed (-b 1, -f 1.2 on doubles) would repeat a case
    // name the gate refuses; rounding is the same on every rank.
    if (rows.front().s.bytes == p.last) continue;
    p.last = rows.front().s.bytes;
    if (o.check) check_rows(rows, s.ctx, s.world, s.dog);
    time_rows(rows, o, s.world, s.dog, op->busfactor(p.tb.G));
    Side sides[2][2];  // [raw][inplace]
    NtResult ntr[2];   // [raw]
    account_rows(s, p, rows, sides, ntr);
    if (s.root) report_size(s, p, rows.front().s, sides, ntr);
  }
  if (!p.skipped.empty()) s.why_none = p.skipped;
  if (s.root && !p.skipped.empty()) std::printf("%s", skipped_line(op->name, t, p.tb.redop, p.skipped).c_str());
  if (s.root && !p.raw_rows.empty())
    std::printf("%s", raw_table(op->name, p.tb.raw_name, t, p.tb.redop, o.percentiles, p.raw_rows).c_str());
}

// The records' benchmark.json, the closing lines and the -J file.
void close_outputs(Sweep& s) {
  if (s.writer) {  // benchmark.json too, as `tandem run` writes it: a sweep merges into a run (tandem merge)
    s.writer->finish();
    write_file_atomically(s.o.out + "/benchmark.json", google_benchmark_json(s.writer->records()).dump(1) + "\n");
  }
  if (!s.root) return;
  // The closing lines cover the tandem rows, as nccl-tests' cover its own; the raw calls'
  // mean is on a line of its own that a parser of "Avg bus bandwidth" does not match.
  std::printf("%s", table_footer(s.result.wrong, s.bus_n ? s.bus_sum / s.bus_n : 0).c_str());
  if (s.raw_bus_n) std::printf("# Raw calls' mean busbw : %g\n", s.raw_bus_sum / s.raw_bus_n);
  if (s.nt) {  // written once, whole: a reader never sees a half-written file
    nt_finish(*s.nt, s.result.wrong, s.bus_n ? s.bus_sum / s.bus_n : 0);
    write_file_atomically(s.o.json_out, s.nt->dump(1) + "\n");
    std::printf("# Writing JSON output to %s\n", s.o.json_out.c_str());
  }
  std::printf("# %d row(s), %d failed the check; records: %s\n", s.result.rows, s.result.failed_rows,
              s.result.records.c_str());
}

}  // namespace

SweepResult run_sweep(const SweepOptions& o) {
  comm::set_job_timeout(o.watchdog_s);  // every blocking call from MPI_Init on is watched
  auto& world = comm::mpi_world();  // the control plane, whatever the data backend
  // Same options on every rank before any other check, then the checks' verdict agreed.
  Validated v;
  agree_on_sweep(world, o, [&] { v = validate_sweep(o, world.size()); });
  // The data plane: MPI on host buffers, or NCCL on each rank's GPU (unsupported, the same
  // on every rank, without a CUDA+NCCL build or a GPU per rank).
  std::unique_ptr<comm::Communicator> nccl;
  if (o.backend == "nccl") nccl = comm::make_nccl_communicator(world, o.watchdog_s);
  comm::Communicator& data = nccl ? *nccl : world;
  comm::Collectives ctx(data);
  comm::Watchdog& dog = comm::job_watchdog();  // scopes nest: the sweep's own calls arm it too
  ctx.watchdog = &dog;
  Sweep s(o, world, ctx, dog);
  s.nccl = bool(nccl);
  s.root = world.rank() == 0;
  s.backend = data.backend();
  s.device = data.device().str();
  s.result.records = o.out + "/records.json";
  open_outputs(s, data);
  for (DType t : v.dtypes)
    for (size_t ri = 0; ri < v.redops.size(); ++ri)
      for (const CollOp* op : v.ops)
        if (op->sweep_redop || ri == 0) sweep_op(s, op, t, v.redops[ri]);  // -o all: ops that take no reduction op run once
  // Every rank skipped the same rows (a property of ops and options), so all throw alike.
  if (s.result.rows == 0) throw_bad_input(cat("collectives: no row to time: ", s.why_none), "e.g. -o sum, or other --ops");
  close_outputs(s);
  return s.result;
}

}  // namespace tandem::coll
