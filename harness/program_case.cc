// Program cases: engine run, reference run, per-output comparison.
#include "harness/program_case.h"

#include <memory>

#include "bridge/reference_bridge.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/executor.h"

namespace tandem {

CaseInstance program_instance(const Program& program, const std::vector<Tensor>& host_inputs,
                              Device device, ChecksFn checks) {
  auto prog = std::make_shared<Program>(program);
  auto dev_inputs = std::make_shared<std::vector<Tensor>>();
  for (const Tensor& t : host_inputs) dev_inputs->push_back(t.to(device));
  CaseInstance inst;
  inst.body = [prog, dev_inputs, device] {
    Executor(device).run(*prog, *dev_inputs);
    if (device.kind == DeviceKind::cuda) cuda_synchronize(device.index);
  };
  inst.check = [prog, dev_inputs, host_inputs, device, checks] {
    std::vector<Tensor> got = Executor(device).run(*prog, *dev_inputs);
    std::vector<ref::Array> ref_in;
    for (const Tensor& t : host_inputs) ref_in.push_back(to_ref(t));
    std::vector<ref::Array> want = reference_eval(*prog, ref_in);
    std::vector<OutputCheck> spec = checks(host_inputs, want);
    TANDEM_CHECK(spec.size() == want.size(), "one check per program output");
    CaseResult r;
    r.correctness = nlohmann::json::object();
    for (size_t i = 0; i < want.size(); ++i) {
      const OutputCheck& oc = spec[i];
      CompareReport rep = compare(want[i].data, got[i].to_f64(), oc.spec, oc.scale.empty() ? nullptr : &oc.scale);
      nlohmann::json j = rep.to_json();
      j["tolerance"] = {{"abs", oc.spec.abs}, {"rel", oc.spec.rel}, {"scaled", oc.spec.scaled}, {"why", oc.spec.why}};
      if (oc.reported) {
        CompareReport wc = compare(want[i].data, got[i].to_f64(), *oc.reported, oc.scale.empty() ? nullptr : &oc.scale);
        j["worst_case"] = {{"headroom", wc.headroom()}, {"abs", oc.reported->abs}, {"rel", oc.reported->rel},
                           {"scaled", oc.reported->scaled}, {"why", oc.reported->why}};
      }
      if (!oc.headroom_reason.empty() && rep.max_ratio > 0 && rep.max_ratio < 1e-4)
        j["headroom_reason"] = oc.headroom_reason;
      r.correctness[oc.name] = j;
      if (!rep.pass) {
        r.verdict = Verdict::fail;
        r.message += oc.name + ": " + rep.text() + "\n";
      }
    }
    return r;
  };
  inst.oracle = [prog, host_inputs] { return std::vector<OracleProgram>{oracle_eval("program", *prog, host_inputs)}; };
  return inst;
}

}  // namespace tandem
