// `tandem collectives`: the nccl-tests-style sweep, with nccl-tests' flags: -b -e -f sizes, -n -w iterations, -c check, -d dtype, -o op(s).
#include <CLI/CLI.hpp>

#include <memory>

#include "suites/collectives/sweep.h"

namespace tandem {

void add_collectives_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<coll::SweepOptions>();
  CLI::App* cmd = app.add_subcommand("collectives",
      "nccl-tests-style sweep of collectives over sizes under mpirun/srun (the suite's cases: `tandem run --suite collectives`)");
  // Sizes take nccl-tests' suffixes: 1K = 1024, 16M = 16 MiB, 1G.
  cmd->add_option("-b,--min-bytes", o->min_bytes, "smallest message in bytes, e.g. 1024 or 1K (nccl-tests' S; default 1K)")
      ->transform(CLI::AsSizeValue(false));
  cmd->add_option("-e,--max-bytes", o->max_bytes, "largest message in bytes, e.g. 16M (default 16M)")
      ->transform(CLI::AsSizeValue(false));
  cmd->add_option("-f,--step-factor", o->factor, "size multiplier between rows (default 2)");
  cmd->add_option("-n,--iters", o->iters, "timed iterations per row, identical on every rank (default 20)");
  cmd->add_option("-w,--warmup-iters", o->warmup, "untimed warm-up iterations (default 5)");
  cmd->add_option("-c,--check", o->check, "check results against the closed-form model: 1 or 0 (default 1)");
  cmd->add_option("-d,--dtype", o->dtype, "f64 f32 f16 bf16 i32 (default f32)");
  cmd->add_option("-o,--op", o->ops, "ops: psum all_gather psum_scatter all_to_all ragged_all_to_all ppermute "
                  "pbroadcast, raw mpi_allreduce mpi_allgather mpi_reduce_scatter mpi_alltoall mpi_alltoallv")
      ->delimiter(',');
  cmd->add_option("--inplace", o->inplace, "out | in | both (default both; ops without an in-place form skip it)");
  cmd->add_option("-g,--groups", o->groups, "group layout: all pairs interleaved uneven (default all)");
  cmd->add_option("--interleave", o->interleave, "1: the ops of one size take turns iteration by iteration, so a "
                  "machine stall hits a tandem op and its raw MPI call alike (default 0: each op's iterations in one block)");
  cmd->add_option("--time-reduce", o->time_reduce, "reduce per-iteration times across ranks: max avg min (default max)");
  cmd->add_option("--watchdog-timeout", o->watchdog_s, "seconds before a hung collective aborts the job (default 300)");
  cmd->add_option("--out", o->out, "directory for records.json, rank 0 writes (default results/collectives)");
  cmd->callback([o, &exit_code] { exit_code = coll::run_sweep(*o); });
}

}  // namespace tandem
