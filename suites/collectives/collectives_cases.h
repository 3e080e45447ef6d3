// The collectives suite's case definition, shared by the registry, the MPI test and the
// sweep: an op, a dtype and a group layout; inputs that are small integers by construction
// (so sums are exact in every dtype and checks are bitwise); the engine op on this rank;
// the reference model on every rank's inputs; the verdict gathered so all ranks agree.
#pragma once
#include <string>
#include <vector>

#include "engine/comm/collectives.h"
#include "harness/case.h"
#include "suites/collectives/op_table.h"

namespace tandem::coll {

struct CollSpec {
  std::string op;      // a name in the op table (op_table.h)
  DType dtype = DType::f32;
  std::string layout;  // all | pairs | interleaved | uneven
};

// Layouts and dtypes the suite knows (the ops: op_table.h).
extern const std::vector<std::string> kLayouts;
extern const std::vector<DType> kDTypes;

// The groups of a layout at world size n; "" in *why when the layout does not fit n (the
// case is then a skip with that reason).
comm::Groups layout_groups(const std::string& layout, int n, const std::string& op, std::string* why);

// The collectives of the backend that owns buffers on d: MPI for the host, NCCL for a GPU (made once, on first use, by
// every rank). Throws unsupported — the case skips with the reason, the same on every rank — where NCCL is not built,
// no GPU is visible, or a node has more ranks than GPUs.
comm::Collectives& backend_collectives(Device d);

// Runs the op once on this rank (the timed body). Inputs live on c's device.
void run_once(comm::Collectives& c, const CollSpec& s);
// Runs it, checks every rank against the reference, and returns the same result on every
// rank (a failure names rank, host, first bad index, expected and got).
CaseResult check_collective(comm::Collectives& c, const CollSpec& s);

// Registered name: collectives/op:psum/dtype:f32/groups:pairs.
std::string case_name(const CollSpec& s);

}  // namespace tandem::coll
