// `tandem collectives-dump --out DIR`: every collective op × dtype × group layout of the
// oracle's case list (coll_dump_cases.h), run by the real engine under mpirun; each rank
// writes its inputs and output as .npy (STEM.NAME.rK.npy, STEM.out.rK.npy) and rank 0 writes
// STEM.json (op, params, dtypes, groups) and manifest.json, all atomically. f16 / bf16 are
// written as f32 and bool as i32 (both exact; the JSON names the real dtype), since .npy
// I/O here takes f32, f64 and i32. tools/oracles/collectives_vs_jax.py runs the same ops in JAX.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "harness/atomic_file.h"
#include "harness/out_dir_lock.h"
#include "runners/cli/npy_io.h"
#ifdef TANDEM_HAVE_MPI
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/validate.h"
#include "runners/cli/coll_dump_cases.h"
#include "suites/collectives/op_table.h"
#endif

namespace tandem {
namespace {

struct DumpOptions {
  std::string out;
  std::vector<std::string> ops;
  uint64_t seed = 20261123;
};

#ifdef TANDEM_HAVE_MPI
// The .npy form of t: f16 / bf16 → f32, bool → i32 (exact), else as is.
Tensor npy_form(const Tensor& t) {
  if (t.dtype() == DType::f16 || t.dtype() == DType::bf16) return Tensor::from_f64(t.to_f64(), t.shape(), DType::f32);
  if (t.dtype() == DType::pred) return Tensor::from_f64(t.to_f64(), t.shape(), DType::i32);
  return t;
}

void dump(const DumpOptions& o) {
  comm::Collectives c(comm::mpi_world());
  const int me = c.world().rank();
  for (const std::string& op : o.ops)
    if (!coll::find_op(op))
      throw_bad_input(cat("collectives-dump: unknown op '", op, "'"), "one of: " + coll::op_list(false));
  // Rank 0 holds --out for the job; a busy or bad --out fails every rank alike.
  std::optional<OutDirLock> lock;
  comm::agree_verdict(c.world(), [&] { if (me == 0) lock.emplace(o.out, "collectives-dump"); });
  const std::vector<coll::DumpRun> runs = coll::run_dump_cases(c, o.ops, o.seed);
  const std::filesystem::path dir(o.out);
  // The op table's axis-grid rows are not ops of their own: the dump's cases run every axis.
  nlohmann::json ops = nlohmann::json::array();
  for (const std::string& op : coll::op_names(false))
    if (!coll::find_op(op)->axis_grid) ops.push_back(op);
  nlohmann::json manifest = {{"world", c.world().size()}, {"seed", o.seed}, {"ops", ops}, {"cases", nlohmann::json::array()}};
  for (const coll::DumpRun& d : runs) {
    nlohmann::json meta = d.meta;
    if (d.skipped.empty() && !meta.contains("error")) {
      for (const auto& [name, t] : d.inputs) {
        save_npy_tensor((dir / cat(d.stem, ".", name, ".r", me, ".npy")).string(), npy_form(t));
        meta["in_dtypes"][name] = dtype_name(t.dtype());
      }
      save_npy_tensor((dir / cat(d.stem, ".out.r", me, ".npy")).string(), npy_form(d.out));
      meta["out_dtype"] = dtype_name(d.out.dtype());
    }
    if (me == 0) write_file_atomically((dir / (d.stem + ".json")).string(), meta.dump(1));
    manifest["cases"].push_back(d.stem);
  }
  if (me == 0) write_file_atomically((dir / "manifest.json").string(), manifest.dump(1));
}
#endif

}  // namespace

void add_collectives_dump_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand("collectives-dump",
      "run every collective op x dtype x group layout once under mpirun and write each rank's inputs and "
      "outputs (.npy + JSON) for tools/oracles/collectives_vs_jax.py");
  cmd->add_option("--out", o->out, "directory for STEM.x.rK.npy, STEM.out.rK.npy, STEM.json, manifest.json")->required();
  cmd->add_option("--ops", o->ops, "comma-separated op table names to dump (default: all)")->delimiter(',');
  cmd->add_option("--seed", o->seed, "seed of the inputs (default 20261123)");
  cmd->callback([o, &exit_code] {
#ifdef TANDEM_HAVE_MPI
    dump(*o);
    exit_code = exit_code::pass;
#else
    (void)exit_code;
    throw_unsupported("this tandem was built without MPI, so collectives-dump is unavailable",
                      "install an MPI (e.g. libopenmpi-dev) and reconfigure");
#endif
  });
}

}  // namespace tandem
