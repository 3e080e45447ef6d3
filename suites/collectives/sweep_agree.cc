// The sweep's agreement on its arguments (see sweep_agree.h).
#include "suites/collectives/sweep_agree.h"

#include <nlohmann/json.hpp>

#include "engine/comm/validate.h"
#include "engine/core/error.h"

namespace tandem::coll {

std::string sweep_signature(const SweepOptions& o) {
  // When a new option changes which collectives run, or their sizes, add it here.
  const nlohmann::json sig = {{"min_bytes", o.min_bytes}, {"max_bytes", o.max_bytes}, {"factor", o.factor},
                              {"iters", o.iters},         {"warmup", o.warmup},       {"check", o.check},
                              {"dtype", o.dtype},         {"redop", o.redop},         {"ops", o.ops},
                              {"raw", o.raw},             {"inplace", o.inplace},     {"groups", o.groups},
                              {"interleave", o.interleave}, {"time_reduce", o.time_reduce},
                              {"backend", o.backend},     {"json", !o.json_out.empty()},
                              {"per_iter", o.per_iter},   {"per_iter_skip", o.per_iter_skip}};
  return sig.dump();
}

void agree_on_sweep(comm::Communicator& world, const SweepOptions& o, const std::function<void()>& check) {
  comm::agree(world, "tandem collectives", sweep_signature(o), check,
              "launch every rank with the same options (mpirun.sh NP collectives ... passes one command line to all)");
}

}  // namespace tandem::coll
