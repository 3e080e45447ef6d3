// `tandem collectives`: the nccl-tests-style sweep, with nccl-tests' flags: -b -e -f sizes, -n -w iterations, -c check, -d dtype, -o op(s).
#include <CLI/CLI.hpp>

#include <memory>

#include "runners/cli/option_checks.h"
#include "suites/collectives/sweep.h"

namespace tandem {
namespace {
// The largest message a row may have (1 TiB): bounds -b/-e so the size loop always ends and
// no buffer size overflows int64.
constexpr double kMaxBytes = double(int64_t(1) << 40);
const char* kSizeHint = "sizes are bytes with an optional K/M/G suffix, from 1 to 1T, e.g. -b 1K -e 16M";
}  // namespace

void add_collectives_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<coll::SweepOptions>();
  CLI::App* cmd = app.add_subcommand("collectives",
      "nccl-tests-style sweep of collectives over sizes under mpirun/srun (the suite's cases: `tandem run --suite collectives`)");
  // Sizes take nccl-tests' suffixes: 1K = 1024, 16M = 16 MiB, 1G.
  cmd->add_option("-b,--min-bytes", o->min_bytes, "smallest message in bytes, e.g. 1024 or 1K (nccl-tests' S; default 1K)")
      ->transform(CLI::AsSizeValue(false))->check(in_range(1, kMaxBytes, kSizeHint));
  cmd->add_option("-e,--max-bytes", o->max_bytes, "largest message in bytes, e.g. 16M (default 16M)")
      ->transform(CLI::AsSizeValue(false))->check(in_range(1, kMaxBytes, kSizeHint));
  cmd->add_option("-f,--step-factor", o->factor, "size multiplier between rows (default 2)")
      ->check(in_range(1.0001, 1024, "-f is the ratio between consecutive sizes, e.g. 2 (nccl-tests' default)"));
  cmd->add_option("-n,--iters", o->iters, "timed iterations per row, identical on every rank (default 20)")
      ->check(in_range(1, 1e7, "-n counts timed iterations: at least 1"));
  cmd->add_option("-w,--warmup-iters", o->warmup, "untimed warm-up iterations (default 5)")
      ->check(in_range(0, 1e7, "-w counts warm-up iterations: 0 or more"));
  cmd->add_option("-c,--check", o->check, "check results against the closed-form model: 1 or 0 (default 1)")
      ->check(one_of({"0", "1"}, "-c 1 checks every row, -c 0 only times"));
  cmd->add_option("-d,--dtype", o->dtype, "f64 f32 f16 bf16 i32 (default f32)")
      ->check(one_of({"f64", "f32", "f16", "bf16", "i32"}));
  cmd->add_option("-o,--op", o->ops, "ops: psum all_gather psum_scatter all_to_all ragged_all_to_all ppermute "
                  "pbroadcast, raw mpi_allreduce mpi_allgather mpi_reduce_scatter mpi_alltoall mpi_alltoallv")
      ->delimiter(',')->check(one_of(coll::kSweepOps, "-o takes a comma-separated list of distinct ops, e.g. -o psum,mpi_allreduce"));
  cmd->add_option("--inplace", o->inplace, "out | in | both (default both; ops without an in-place form skip it)")
      ->check(one_of({"out", "in", "both"}));
  cmd->add_option("-g,--groups", o->groups, "group layout: all pairs interleaved uneven (default all)")
      ->check(one_of({"all", "pairs", "interleaved", "uneven"}));
  cmd->add_option("--interleave", o->interleave, "1: the ops of one size take turns iteration by iteration, so a "
                  "machine stall hits a tandem op and its raw MPI call alike (default 0: each op's iterations in one block)")
      ->check(one_of({"0", "1"}));
  cmd->add_option("--time-reduce", o->time_reduce, "reduce per-iteration times across ranks: max avg min (default max)")
      ->check(one_of({"max", "avg", "min"}));
  cmd->add_option("--watchdog-timeout", o->watchdog_s, "seconds before a hung collective aborts the job (default 300)")
      ->check(in_range(1, 86400, "seconds a collective may stall before the job aborts (exit 5), e.g. 300"));
  cmd->add_option("--out", o->out, "directory for records.json, rank 0 writes (default results/collectives)");
  cmd->callback([o, &exit_code] {
    for (size_t i = 0; i < o->ops.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (o->ops[i] == o->ops[j])
          throw_bad_input(cat("-o lists ", o->ops[i], " twice"), "list each op once, e.g. -o psum,mpi_allreduce");
    exit_code = coll::run_sweep(*o);
  });
}

}  // namespace tandem
