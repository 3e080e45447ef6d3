// `tandem lstm`: one LSTM configuration on the user's own data. Reads .npy inputs from a directory, runs lstm_fwd (and
// lstm_bwd when a cotangent is given) on the CPU or CUDA engine, and writes every output and gradient as .npy. File
// names, dtypes and shapes are documented in docs/LSTM_DATA.md; every inconsistency is a bad-input Error with a hint.
#pragma once
#include <string>

namespace tandem {

// Settings from flags; unset fields (-1 / empty) fall back to the JSON config file, then to the defaults (layers 1,
// unidirectional, precision HIGHEST, backend cpu). Bounds on the sizes a user gives (flags or config.json): far above
// any real LSTM, low enough that the weight count and every buffer size stay well inside int64.
inline constexpr int64_t kMaxLstmSize = int64_t(1) << 24;   // hidden size
inline constexpr int64_t kMaxLstmLayers = int64_t(1) << 16;  // num_layers

struct LstmRunOptions {
  std::string in_dir, out_dir;
  std::string config_path;  // default: IN/config.json when it exists
  int64_t hidden_size = -1, num_layers = -1;
  int bidirectional = -1;   // 0 or 1
  std::string precision, backend;
  int threads = 0;          // CPU LSTM threads; 0 = keep the engine's default
  bool quiet = false;
};

// Runs the configuration; throws tandem::Error (bad_input for anything about the inputs).
void run_lstm_on_files(const LstmRunOptions& o);

}  // namespace tandem
