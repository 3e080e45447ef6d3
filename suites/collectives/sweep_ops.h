// One sweep row's op: buffers, the timed call, the expected value per output element, and
// nccl-tests' S (bytes) and bus-bandwidth factor (busbw = S / t × busfactor).
#pragma once
#include <functional>
#include <string>

#include "engine/comm/collectives.h"

namespace tandem::coll {

struct SweepOp {
  Tensor send, recv;
  std::function<void()> run;
  std::function<Tensor()> result;              // what run() produced (recv, or a new tensor)
  std::function<double(int64_t)> expected;     // element i of result() on this rank
  int64_t bytes = 0;
  double busfactor = 1;
};

// Throws unsupported for an in-place request the op has no form of.
SweepOp make_sweep_op(comm::Collectives& c, const std::string& op, const comm::Groups& g, int64_t bytes,
                      DType t, bool inplace);

}  // namespace tandem::coll
