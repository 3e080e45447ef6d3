// What the engine/comm tests under mpirun share: the collectives on the MPI world, this
// rank, the world size, a tensor's values as f64, and the wording of by-design skips.
#pragma once
#include <vector>

#include "engine/comm/by_design_skip.h"  // needs_ranks: the wording of a too-few-ranks skip
#include "engine/comm/collectives.h"
#include "engine/comm/mpi_communicator.h"

namespace tandem::comm::mpi_test {

inline Collectives& ctx() {
  static Collectives c(mpi_world());
  return c;
}
inline int me() { return mpi_world().rank(); }
inline int n() { return mpi_world().size(); }
inline std::vector<double> v(const Tensor& t) { return t.to_f64(); }

}  // namespace tandem::comm::mpi_test
