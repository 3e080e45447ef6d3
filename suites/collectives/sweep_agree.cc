// The sweep's agreement on its arguments (see sweep_agree.h).
#include "suites/collectives/sweep_agree.h"

#include <map>

#include <nlohmann/json.hpp>

#include "engine/comm/validate.h"
#include "engine/core/error.h"
#include "suites/collectives/collectives_cases.h"

namespace tandem::coll {

std::string sweep_signature(const SweepOptions& o) {
  // When a new option changes which collectives run, or their sizes, add it here.
  const nlohmann::json sig = {{"min_bytes", o.min_bytes}, {"max_bytes", o.max_bytes}, {"factor", o.factor},
                              {"iters", o.iters},         {"warmup", o.warmup},       {"check", o.check},
                              {"dtype", o.dtype},         {"ops", o.ops},             {"inplace", o.inplace},
                              {"groups", o.groups},       {"interleave", o.interleave},
                              {"time_reduce", o.time_reduce}};
  return sig.dump();
}

void check_groups_for_ops(const SweepOptions& o, int n) {
  // A raw MPI baseline runs on the same group communicator as its JAX op, so it follows
  // that op's rules for groups (uneven only for reductions).
  static const std::map<std::string, std::string> kRawAs = {
      {"mpi_allreduce", "psum"}, {"mpi_allgather", "all_gather"}, {"mpi_reduce_scatter", "psum_scatter"},
      {"mpi_alltoall", "all_to_all"}, {"mpi_alltoallv", "ragged_all_to_all"}};
  for (const std::string& op : o.ops) {
    const auto raw = kRawAs.find(op);
    std::string why;
    layout_groups(o.groups, n, raw == kRawAs.end() ? op : raw->second, &why);
    if (!why.empty())
      throw_bad_input(cat("-g ", o.groups, " with op ", op, ": ", why),
                      "choose a layout every selected op accepts, or run those ops separately");
  }
}

void agree_on_sweep(comm::Communicator& world, const SweepOptions& o) {
  comm::agree(world, "tandem collectives", sweep_signature(o), [&] { check_groups_for_ops(o, world.size()); },
              "launch every rank with the same options (mpirun.sh NP collectives ... passes one command line to all)");
}

}  // namespace tandem::coll
