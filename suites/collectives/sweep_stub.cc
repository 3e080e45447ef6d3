// Without MPI, `tandem collectives` explains what is missing; the op table is empty (its
// entries call engine/comm, which needs MPI), so help lists no ops.
#include "engine/core/error.h"
#include "suites/collectives/op_table.h"
#include "suites/collectives/sweep.h"

namespace tandem::coll {
const std::vector<CollOp>& coll_ops() {
  static const std::vector<CollOp> none;
  return none;
}
const CollOp* find_op(const std::string&) { return nullptr; }
std::vector<std::string> op_names(bool) { return {}; }
std::string op_list(bool) { return "(none: built without MPI)"; }
std::vector<std::string> sweep_redop_names() { return {"sum", "max", "min", "all"}; }
SweepResult run_sweep(const SweepOptions&) {
  throw_unsupported("this tandem was built without MPI, so the collectives sweep is unavailable",
                    "install an MPI (e.g. libopenmpi-dev) and reconfigure");
}
}  // namespace tandem::coll
