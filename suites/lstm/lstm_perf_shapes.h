// The LSTM performance shapes (nightly profile), in one list shared by the suite's perf cases
// (lstm_perf_cases.cc), the CPU timing tool (lab/bench/lstm_cpu_bench.cc) and, through that tool's
// --list-shapes, the PyTorch comparison script (tools/oracles/torch_lstm_bench.py).
#pragma once
#include <string>
#include <vector>

#include "engine/prims/lstm.h"

namespace tandem {

struct LstmPerfShape {
  std::string label;  // deepbench, fastrnns, bidi2, infer_b1
  LstmConfig config;
  bool train;         // timed forward+backward too (inference shapes: forward only)
};
std::vector<LstmPerfShape> lstm_perf_shapes();

// The forward's GEMM FLOPs, the input projection apart from the recurrence (the gate math is
// O(B·T·H) and not counted): per pseudo-layer p, 2·B·T·4H·In_p and 2·B·T·4H·H.
struct LstmFlops {
  double projection = 0, recurrent = 0;
};
inline LstmFlops lstm_forward_flops(const LstmConfig& c) {
  LstmFlops f;
  for (int64_t p = 0; p < c.pseudo_layers(); ++p) {
    f.projection += 2.0 * double(c.batch * c.seq * 4 * c.hidden * c.layer_input(p));
    f.recurrent += 2.0 * double(c.batch * c.seq * 4 * c.hidden * c.hidden);
  }
  return f;
}

}  // namespace tandem
