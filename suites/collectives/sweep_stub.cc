// Without MPI, `tandem collectives` explains what is missing.
#include "engine/core/error.h"
#include "suites/collectives/sweep.h"

namespace tandem::coll {
const std::vector<std::string> kSweepOps;
int run_sweep(const SweepOptions&) {
  throw_unsupported("this tandem was built without MPI, so the collectives sweep is unavailable",
                    "install an MPI (e.g. libopenmpi-dev) and reconfigure");
}
}  // namespace tandem::coll
