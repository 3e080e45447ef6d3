// The executor: interprets a Program on one backend (the device picks the impl table),
// frees each buffer right after its last use so the allocator's peak bytes mean something,
// and can time each equation.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "engine/ir/ir.h"
#include "engine/ir/primitive.h"

namespace tandem {

struct EqnTiming {
  std::string prim;
  double seconds = 0;
};

class Executor {
 public:
  explicit Executor(Device device = Device::cpu()) : device_(device) {}
  // Inputs must match the program's input types; they are moved to the device if needed
  // (one in a host memory kind of this device stays there, see device_put).
  std::vector<Tensor> run(const Program& program, const std::vector<Tensor>& inputs);
  // Times each equation with the device's clock (eqn_clock.h): wall time on the CPU,
  // device time between CUDA events on a GPU.
  void set_timing(bool on) { timing_ = on; }
  // Called before every equation runs, in sub-programs (scan, checkpoint bodies) too: a
  // count of what really executes (the remat tests compare it with the recompute counts).
  // A fused run calls it for each of its equations before the run.
  void set_on_eqn(std::function<void(const Eqn&)> f) { on_eqn_ = std::move(f); }
  // On the CPU, a run of elementwise equations over at least min_elements elements runs as one
  // blocked loop (engine/ir/fusion.h: the same bits); negative: each equation alone, as every
  // equation of a level timed by set_timing runs. Sub-programs inherit it.
  void set_fusion(int64_t min_elements) { fusion_min_ = min_elements; }
  // The named axes the program's collectives run over (engine/core/axis_env.h); sub-programs
  // see the same. Unbound names are bad input when a collective runs.
  void set_axis_env(AxisEnv axes) { axes_ = std::move(axes); }
  const AxisEnv& axis_env() const { return axes_; }
  const std::vector<EqnTiming>& timings() const { return timings_; }
  Device device() const { return device_; }

 private:
  Device device_;
  bool timing_ = false;
  int64_t fusion_min_ = 4096;  // a shorter run gains less than its set-up costs
  std::vector<EqnTiming> timings_;
  std::function<void(const Eqn&)> on_eqn_;
  AxisEnv axes_;
};

}  // namespace tandem
