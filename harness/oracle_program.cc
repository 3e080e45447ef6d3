// Oracle items for evaluated-only programs (oracle_program.h).
#include "harness/oracle_program.h"

#include "engine/ir/executor.h"

namespace tandem {

OracleProgram oracle_eval(const std::string& label, const Program& program, std::vector<Tensor> inputs,
                          const std::string& note) {
  OracleProgram o;
  o.label = label;
  o.program = program;
  o.inputs = std::move(inputs);
  o.engine = Executor(Device::cpu()).run(program, o.inputs);
  o.note = note;
  return o;
}

}  // namespace tandem
