// The nccl-tests-style sweep behind `tandem collectives`: sizes from -b to -e by factor
// -f (each timed once after rounding to whole elements), -w warm-up and -n timed iterations (identical on every rank), optional check (-c),
// out-of-place and in-place, every dtype of -d and reduction op of -o, the ops of --ops (op_table.h) on the groups of
// --groups, on the --backend's buffers (MPI: host, NCCL: device). Each op is timed next to its raw library call on the
// same buffers (--raw), size by size. Per-iteration times are reduced across ranks (max by default); time = the mean
// over iterations (as nccl-tests prints it), algbw = S / time, busbw = algbw × the op's factor. Rank 0 prints
// nccl-tests' table (sweep_format.h) and writes one record per (op, call, dtype, redop, size, place) with every
// iteration's time in timing.samples, so `tandem gate` compares two sweeps.
#pragma once
#include <string>
#include <vector>

#include "common/dtype.h"

namespace tandem::coll {

struct SweepOptions {
  int64_t min_bytes = 1 << 10, max_bytes = 1 << 24;
  double factor = 2;
  int iters = 20, warmup = 5;
  bool check = true;
  std::string dtype = "float";          // -d: nccl-tests' names, tandem's, or all
  std::string redop = "sum";            // -o: sum max min all (the ops that reduce)
  std::vector<std::string> ops = {"psum"};  // --ops: names of the op table, or {"all"}
  std::string inplace = "both";         // out | in | both
  std::string groups = "all";           // --groups: a layout (collectives_cases.h)
  bool raw = true;                      // time the raw library call next to each op
  bool percentiles = false;             // p50 / p99 columns
  std::string time_reduce = "max";      // max | avg | min over ranks, per iteration
  bool interleave = false;  // rows of one size take turns per iteration (fair A/B on a noisy machine)
  double watchdog_s = 300;
  std::string out = "results/collectives";  // apart from `tandem run`'s default results/
  // --backend: mpi (host buffers) or nccl (device buffers, one GPU per rank; the control
  // plane — agreement, time reduction, verdicts — stays on MPI).
  std::string backend = "mpi";
  // nccl-tests' -J, -I, -K: its JSON file (nccl_tests_json.h), with every iteration's time per
  // rank, the summary skipping the first -K iterations.
  std::string json_out;
  bool per_iter = false;
  int per_iter_skip = 0;
};

// The -o names: the reductions nccl-tests has that JAX's collectives have too.
std::vector<std::string> sweep_redop_names();

// What a sweep did, the same on every rank; the runner maps it to an exit code.
struct SweepResult {
  int rows = 0;          // (op, call, dtype, redop, size, place) rows timed
  int failed_rows = 0;   // rows whose check found a wrong element
  int64_t wrong = 0;     // wrong elements over all rows and ranks
  std::string records;   // path of records.json (written by rank 0)
};

// Runs the sweep on every rank. Bad options throw bad_input (the same on every rank).
SweepResult run_sweep(const SweepOptions& o);

}  // namespace tandem::coll
