// The nccl-tests-style sweep behind `tandem collectives`: sizes from -b to -e by factor
// -f, -w warm-up and -n timed iterations (identical on every rank), optional check (-c),
// in-place and out-of-place, a group layout; per-iteration times reduced across ranks (max
// by default); algbw = S / t and busbw = algbw × factor with nccl-tests' S and factor per
// op (docs/PERFORMANCE.md); p50, p99, min, max. Rank 0 prints the table and writes one JSON
// record per row. The raw MPI calls (mpi_allreduce …) are ops too, for comparison.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/dtype.h"

namespace tandem::coll {

struct SweepOptions {
  int64_t min_bytes = 1 << 10, max_bytes = 1 << 24;
  double factor = 2;
  int iters = 20, warmup = 5;
  bool check = true;
  std::string dtype = "f32";
  std::vector<std::string> ops = {"psum"};
  std::string inplace = "both";  // out | in | both
  std::string groups = "all";
  std::string time_reduce = "max";  // max | avg | min
  bool interleave = false;  // rows of one size take turns per iteration (fair A/B on a noisy machine)
  double watchdog_s = 300;
  std::string out = "results/collectives";  // apart from `tandem run`'s default results/
};

// Sweep op names: psum all_gather psum_scatter all_to_all ragged_all_to_all ppermute
// pbroadcast, and mpi_allreduce mpi_allgather mpi_reduce_scatter mpi_alltoall mpi_alltoallv.
extern const std::vector<std::string> kSweepOps;

// Runs the sweep on every rank; returns the process exit code (correctness failures → 1).
int run_sweep(const SweepOptions& o);

}  // namespace tandem::coll
