// run_engine: transform with the engine's passes, execute, flatten the results.
#include "suites/program_fuzz/fuzz_engine.h"

#include "engine/core/axis_env.h"
#include "engine/ir/executor.h"
#include "engine/ir/remat_policy.h"
#include "engine/passes/hoist_scan_reductions.h"
#include "engine/passes/vjp.h"
#include "engine/passes/vmap.h"

namespace tandem::fuzz {
namespace {

std::vector<Tensor> execute(const Program& p, const std::vector<Tensor>& args, Device device) {
  std::vector<Tensor> out = fuzz_executor(device).run(p, args);
  for (Tensor& t : out) t = t.to(Device::cpu());
  return out;
}

std::vector<Tensor> differentiate(const Program& p, const FuzzCase& c, Device device) {
  VjpRun r = run_vjp(vjp(p, c.wrt, policy_from_string(c.chain.top_policy)), c.args, c.cotangents, device);
  std::vector<Tensor> out = r.outputs;
  out.insert(out.end(), r.cotangents.begin(), r.cotangents.end());
  for (Tensor& t : out) t = t.to(Device::cpu());
  return out;
}

}  // namespace

Executor fuzz_executor(Device device) {
  Executor ex(device);
  AxisEnv axes;
  axes[kCollectiveAxis] = single_member_axis(kCollectiveAxis);  // unused once vmap binds the name
  ex.set_axis_env(axes);
  return ex;
}

EngineRun run_engine(const FuzzCase& c, Device device) {
  EngineRun run;
  switch (c.chain.kind) {
    case ChainKind::plain: run.results = execute(c.program, c.args, device); break;
    case ChainKind::vjp: run.results = differentiate(c.program, c, device); break;
    case ChainKind::vmap:
    case ChainKind::vmap_of_vjp:
      run.results = execute(vmap(vmapped_program(c), c.chain.in_axes, c.chain.out_axes, c.chain.axis_size,
                                 kCollectiveAxis),
                            c.args, device);
      break;
    case ChainKind::hoist:
    case ChainKind::hoist_vjp: {
      HoistOptions o;
      o.min_step_elements = 0;  // rewrite whatever is legal: the rewrite itself is under test
      o.accumulate_in_carry = c.chain.accumulate_in_carry;
      HoistResult h = hoist_scan_reductions(c.program, o);
      run.hoist_rewrites = h.rewrites;
      run.results = c.chain.kind == ChainKind::hoist ? execute(h.program, c.args, device)
                                                     : differentiate(h.program, c, device);
      break;
    }
  }
  return run;
}

}  // namespace tandem::fuzz
