// The engine side of a fuzz case: the chain applied by the engine's own passes (vjp, vmap,
// hoist_scan_reductions; checkpoint policies inside the program) and run on the CPU backend.
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/executor.h"
#include "suites/program_fuzz/fuzz_case.h"

namespace tandem::fuzz {

struct EngineRun {
  std::vector<Tensor> results;  // as reference_results orders them (fuzz_oracle.h)
  int hoist_rewrites = 0;       // hoist kinds: scans the pass rewrote
};

EngineRun run_engine(const FuzzCase& c, Device device = Device::cpu());

// An executor on `device` with the fuzzer's collective axis bound to one member (gen_state.h's
// kCollectiveAxis; a vmap over it binds the name itself): what every fuzz and `--program`
// run executes on.
Executor fuzz_executor(Device device);

}  // namespace tandem::fuzz
