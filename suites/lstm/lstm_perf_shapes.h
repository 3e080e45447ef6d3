// The LSTM performance shapes (nightly profile), in one list shared by the suite's perf cases
// (lstm_perf_cases.cc), the CPU timing tool (lstm_cpu_bench.cc) and, through that tool's
// --list-shapes, the PyTorch comparison script (torch_lstm_bench.py).
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

}  // namespace tandem
