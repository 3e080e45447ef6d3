// The helpers around the vjp pass (vjp.h): inlining a program, the joint program, and a
// forward-then-backward run on one backend.
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/passes/pass_typecheck.h"
#include "engine/passes/vjp.h"

namespace tandem {

Program vjp_joint(const Program& p, std::vector<bool> wrt) {
  VjpProgram v = vjp(p, std::move(wrt));
  Builder J;
  std::vector<Value> ins, cts;
  for (const Var& x : p.in_vars) ins.push_back(J.input(x->type.shape, x->type.dtype));
  for (const AType& t : p.out_types()) cts.push_back(J.input(t.shape, t.dtype));
  std::vector<Value> f = inline_program(J, v.forward, ins);
  std::vector<Value> bargs(f.begin() + int64_t(v.num_outputs), f.end());
  bargs.insert(bargs.end(), cts.begin(), cts.end());
  std::vector<Value> g = inline_program(J, v.backward, bargs);
  std::vector<Value> outs(f.begin(), f.begin() + int64_t(v.num_outputs));
  outs.insert(outs.end(), g.begin(), g.end());
  Program joint = J.build(outs);
  typecheck_after_pass(joint, "vjp_joint");
  return joint;
}

VjpRun run_vjp(const VjpProgram& v, const std::vector<Tensor>& inputs, const std::vector<Tensor>& output_cts,
               Device device, const std::function<void(const char*, const Eqn&)>& on_eqn) {
  Executor ex(device);
  if (on_eqn) ex.set_on_eqn([&](const Eqn& e) { on_eqn("forward", e); });
  std::vector<Tensor> f = ex.run(v.forward, inputs);
  VjpRun r;
  r.outputs.assign(f.begin(), f.begin() + int64_t(v.num_outputs));
  r.residuals.assign(f.begin() + int64_t(v.num_outputs), f.end());
  f.clear();
  std::vector<Tensor> bargs = r.residuals;
  bargs.insert(bargs.end(), output_cts.begin(), output_cts.end());
  if (on_eqn) ex.set_on_eqn([&](const Eqn& e) { on_eqn("backward", e); });
  r.cotangents = ex.run(v.backward, bargs);
  return r;
}

}  // namespace tandem
