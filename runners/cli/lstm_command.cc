// `tandem lstm --in DIR --out DIR`: registers the bring-your-own-data LSTM command
// (runners/cli/lstm_byod.cc does the work). Unsupported requests (DEFAULT precision, CUDA
// without a GPU) are reported as bad input: the user asked for something this run cannot do.
#include <CLI/CLI.hpp>

#include <memory>

#include "engine/core/error.h"
#include "common/exit_codes.h"
#include "runners/cli/lstm_byod.h"
#include "runners/cli/option_checks.h"

namespace tandem {

void add_lstm_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<LstmRunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lstm", "run one LSTM configuration on .npy files and write every output and gradient "
              "as .npy (docs/LSTM_DATA.md)");
  cmd->add_option("--in", o->in_dir, "directory with x.npy, w.npy and optionally h0 c0 "
                  "seq_lengths dy dh_n dc_n (.npy) and config.json")->required();
  cmd->add_option("--out", o->out_dir, "directory for y h_n c_n [dx dh0 dc0 dw] (.npy) and run.json")->required();
  cmd->add_option("--config", o->config_path, "JSON config (default: IN/config.json if present); flags override it");
  cmd->add_option("--hidden-size", o->hidden_size, "hidden size H")
      ->check(in_range(1, kMaxLstmSize, "the hidden size is a positive integer, e.g. 32"));
  cmd->add_option("--num-layers", o->num_layers, "number of layers (default 1)")
      ->check(in_range(1, kMaxLstmLayers, "num_layers is a positive integer, e.g. 1 or 2"));
  cmd->add_option("--bidirectional", o->bidirectional, "0 or 1 (default 0)")
      ->check(in_range(0, 1, "--bidirectional 1 runs both directions, --bidirectional 0 (the default) one"));
  cmd->add_option("--precision", o->precision, "HIGHEST (f32, default) or HIGH (TF32 allowed on CUDA)");
  cmd->add_option("--backend", o->backend, "cpu (default) or cuda");
  cmd->add_option("--threads", o->threads, "CPU: threads for the recurrence's batch rows when BLAS is single-threaded (else BLAS's threads, OPENBLAS_NUM_THREADS, are used)")
      ->check(in_range(1, 1024, "--threads is the number of CPU threads, e.g. the number of cores"));
  cmd->add_flag("-q,--quiet", o->quiet, "no summary on stderr");
  cmd->callback([o, &exit_code] {
    try {
      run_lstm_on_files(*o);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::unsupported) throw;
      throw Error(ErrorKind::bad_input, e.message(), e.hint());
    }
    exit_code = exit_code::pass;
  });
}

}  // namespace tandem
