// `tandem collectives`: the nccl-tests-style sweep. Flags follow nccl-tests where the concept
// exists (-b -e -f sizes, -n -w iterations, -c check, -d datatype, -o reduction op, -g GPUs
// per thread, -t threads, -J -I -K its JSON file); tandem's own concepts have long names
// (--ops, --groups, --raw, --percentiles). The op list and its checks come from the op table
// (suites/collectives/op_table.h); the sweep's result becomes the exit code here.
#include <CLI/CLI.hpp>

#include <memory>

#include "common/exit_codes.h"
#include "runners/cli/option_checks.h"
#include "suites/collectives/op_table.h"
#include "suites/collectives/sweep.h"
#include "suites/collectives/sweep_format.h"

namespace tandem {
namespace {
// The largest message a row may have (1 TiB): bounds -b/-e so the size loop always ends and
// no buffer size overflows int64.
constexpr double kMaxBytes = double(int64_t(1) << 40);
const char* kSizeHint = "sizes are bytes with an optional K/M/G suffix, from 1 to 1T, e.g. -b 1K -e 16M";
const char* kOneDevice = "tandem drives one device per rank: launch one rank per GPU (runners/launch/mpirun.sh N ...)";
}  // namespace

void add_collectives_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<coll::SweepOptions>();
  CLI::App* cmd = app.add_subcommand("collectives",
      "nccl-tests-style sweep of collectives over sizes under mpirun/srun (the suite's cases: `tandem run --suite collectives`)");
  // Sizes take nccl-tests' suffixes: 1K = 1024, 16M = 16 MiB, 1G.
  cmd->add_option("-b,--minbytes,--min-bytes", o->min_bytes, "smallest message in bytes, e.g. 1024 or 1K (default 1K)")
      ->transform(CLI::AsSizeValue(false))->check(in_range(1, kMaxBytes, kSizeHint));
  cmd->add_option("-e,--maxbytes,--max-bytes", o->max_bytes, "largest message in bytes, e.g. 16M (default 16M)")
      ->transform(CLI::AsSizeValue(false))->check(in_range(1, kMaxBytes, kSizeHint));
  cmd->add_option("-f,--stepfactor,--step-factor", o->factor, "size multiplier between rows (default 2)")
      ->check(in_range(1.0001, 1024, "-f is the ratio between consecutive sizes, e.g. 2 (nccl-tests' default)"));
  cmd->add_option("-n,--iters", o->iters, "timed iterations per row, identical on every rank (default 20)")
      ->check(in_range(1, 1e7, "-n counts timed iterations: at least 1"));
  cmd->add_option("-w,--warmup_iters,--warmup-iters", o->warmup, "untimed warm-up iterations (default 5)")
      ->check(in_range(0, 1e7, "-w counts warm-up iterations: 0 or more"));
  cmd->add_option("-c,--check", o->check, "check every row against the closed-form model, #wrong column: 1 or 0 (default 1)")
      ->check(one_of({"0", "1"}, "-c 1 checks every row, -c 0 only times (#wrong is N/A)"));
  const std::vector<std::string> dtypes = coll::sweep_dtype_names();
  cmd->add_option("-d,--datatype", o->dtype, "nccl-tests' float half bfloat16 double int32, or all (tandem's f32 f16 bf16 "
                  "f64 i32 also; default float)")
      ->check(one_of(dtypes, "-d takes float, half, bfloat16, double, int32 or all"));
  cmd->add_option("-o,--op", o->redop, "reduction op of the ops that reduce (psum, psum_scatter): sum max min all (default sum)")
      ->check(one_of(coll::sweep_redop_names(), "-o is the reduction op as in nccl-tests: sum, max, min or all "
                     "(JAX has no product collective; pmean is psum then a division)"));
  int ngpus = 1, nthreads = 1;
  cmd->add_option("-g,--ngpus", ngpus, "GPUs per thread, as nccl-tests: only 1")->check(in_range(1, 1, kOneDevice));
  cmd->add_option("-t,--nthreads", nthreads, "threads per process, as nccl-tests: only 1")->check(in_range(1, 1, kOneDevice));
  const std::string ops = coll::op_list(true);
  std::vector<std::string> op_choices = coll::op_names(true);
  op_choices.push_back("all");
  cmd->add_option("--ops", o->ops, "comma-separated ops of the op table: " + ops + ", or all (default psum)")
      ->delimiter(',')->check(one_of(op_choices, "--ops takes a comma-separated list of distinct ops from: " + ops + "; or all"));
  cmd->add_option("--groups", o->groups, "group layout (axis_index_groups): all pairs interleaved uneven (default all)")
      ->check(one_of({"all", "pairs", "interleaved", "uneven"}));
  cmd->add_option("--inplace", o->inplace, "out | in | both (default both; an op without an in-place form prints N/A)")
      ->check(one_of({"out", "in", "both"}));
  cmd->add_option("--raw", o->raw, "1: time each op's raw library call (MPI_Allreduce …) on the same buffers, printed as a "
                  "second table per op (default 1)")
      ->check(one_of({"0", "1"}));
  cmd->add_option("--percentiles", o->percentiles, "1: p50 and p99 of each side as extra trailing columns (default 0)")
      ->check(one_of({"0", "1"}));
  cmd->add_option("--interleave", o->interleave, "1: the rows of one size take turns iteration by iteration, so a "
                  "machine stall hits a tandem op and its raw call alike (default 0: each row's iterations in one block)")
      ->check(one_of({"0", "1"}));
  cmd->add_option("--time-reduce", o->time_reduce, "reduce per-iteration times across ranks: max avg min (default max)")
      ->check(one_of({"max", "avg", "min"}));
  cmd->add_option("--watchdog-timeout", o->watchdog_s, "seconds before a hung collective aborts the job (default 300)")
      ->check(in_range(1, 86400, "seconds a collective may stall before the job aborts (exit 5), e.g. 300"));
  cmd->add_option("--backend", o->backend, "mpi: host buffers over MPI; nccl: device buffers over NCCL, one GPU per "
                  "rank, raw calls ncclAllReduce … on the same buffers (default mpi)")
      ->check(one_of({"mpi", "nccl"}, "--backend takes mpi or nccl"));
  // nccl-tests' -J/-I/-K (suites/collectives/nccl_tests_json.h); like nccl-tests, the suffix
  // names the format and only json exists.
  cmd->add_option("-J,--output_file", o->json_out, "nccl-tests' JSON file (path ending .json), rank 0 writes")
      ->check(CLI::Validator([](std::string& s) -> std::string {
        const bool ok = s.size() > 5 && s.find_last_of('/') + 1 < s.size() - 5 &&
                        CLI::detail::to_lower(s.substr(s.size() - 5)) == ".json";
        return ok ? "" : "'" + s + "' is not a file name ending .json\n  hint: -J names nccl-tests' JSON file, e.g. -J sweep.json";
      }, "FILE.json"));
  cmd->add_option("-I,--per_iter_timing", o->per_iter, "1: every iteration's time per rank in the -J file, as nccl-tests -I 1 "
                  "(default 0)")
      ->check(one_of({"0", "1"}, "-I 1 adds per-iteration times to the -J file, -I 0 leaves them out"));
  cmd->add_option("-K,--per_iter_skip", o->per_iter_skip, "leading iterations left out of -I's summary statistics (default 0)")
      ->check(in_range(0, 1e7, "-K counts leading iterations to skip: 0 to -n - 1, with -I 1"));
  cmd->add_option("--out", o->out, "directory for records.json, rank 0 writes (default results/collectives)");
  cmd->callback([o, &exit_code] {
    const coll::SweepResult r = coll::run_sweep(*o);
    exit_code = r.failed_rows ? exit_code::correctness_failure : exit_code::pass;
  });
}

}  // namespace tandem
