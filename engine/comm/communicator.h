// Communicator: the transport under tandem's collectives. Buffers are raw pointers on the
// communicator's device (host for MPI, a GPU for NCCL); counts are in elements of `t`; send
// may equal recv for in-place operation where noted. The JAX semantics (groups, axes,
// tiling, ragged offsets) live above this, in engine/comm/collectives.h, written once.
// The control plane (validation, verdicts) always goes through host memory.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "engine/comm/local_ops.h"
#include "engine/core/device.h"
#include "engine/core/rank_env.h"

namespace tandem::comm {

enum class ReduceOp { sum, max, min };

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;  // "mpi", "nccl"
  virtual Device device() const = 0;        // where data buffers must live

  // Ranks with equal color form a new communicator, ordered by key (then old rank).
  virtual std::unique_ptr<Communicator> split(int color, int key) = 0;

  // Data plane. all_reduce: count elements, in place when send == recv.
  virtual void all_reduce(const void* send, void* recv, int64_t count, DType t, ReduceOp op) = 0;
  // all_gather: count elements from each rank, recv holds size()*count, in rank order.
  virtual void all_gather(const void* send, void* recv, int64_t count, DType t) = 0;
  // reduce_scatter: send holds size()*count; rank r keeps the reduced block r (count).
  virtual void reduce_scatter(const void* send, void* recv, int64_t count, DType t, ReduceOp op) = 0;
  // all_to_all: block p (count elements) of send goes to rank p; recv block p came from p.
  virtual void all_to_all(const void* send, void* recv, int64_t count, DType t) = 0;
  // all_to_all_v: per-peer element counts and displacements (size() entries each).
  virtual void all_to_all_v(const void* send, const std::vector<int64_t>& send_counts,
                            const std::vector<int64_t>& send_displs, void* recv,
                            const std::vector<int64_t>& recv_counts,
                            const std::vector<int64_t>& recv_displs, DType t) = 0;
  virtual void broadcast(void* buf, int64_t count, DType t, int root) = 0;
  // Sends to dst and receives from src at once; -1 means no peer on that side.
  virtual void send_recv(const void* send, int dst, void* recv, int src, int64_t count, DType t) = 0;
  virtual void barrier() = 0;
  // The local steps between transport calls (pack, unpack, zero fill, pmean's division) on
  // device(), ordered with the data-plane calls: host loops for MPI, kernels for NCCL.
  virtual LocalOps& local() = 0;

  // Control plane, host memory: bytes from each rank, concatenated in rank order.
  virtual void host_all_gather(const void* send, void* recv, int64_t bytes) = 0;
  // Control plane, host memory: block p (bytes) of send goes to rank p; recv block p came
  // from p. Small metadata only (ragged_all_to_all's sizes and offsets).
  virtual void host_all_to_all(const void* send, void* recv, int64_t bytes) = 0;
  // Ends every rank of the job now (a hung collective, a fatal error).
  [[noreturn]] virtual void abort(int code) = 0;
};

// Host-side helpers over the control plane.
std::vector<std::string> all_gather_strings(Communicator& c, const std::string& mine);
std::vector<int64_t> all_gather_ints(Communicator& c, const std::vector<int64_t>& mine);
using ::tandem::host_name;  // engine/core/rank_env.h

}  // namespace tandem::comm
