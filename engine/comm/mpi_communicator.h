// The MPI backend: host buffers, any MPI-3 library. f16 and bf16 travel as a 2-byte MPI
// datatype with user reduction ops that combine in f32 (MPI has no standard type for
// them). world() initialises MPI on first use (and finalises at exit) and refuses a world
// of one rank when the launcher's environment says the job has more.
#pragma once
#include <mpi.h>

#include "engine/comm/communicator.h"

namespace tandem::comm {

class MpiCommunicator final : public Communicator {
 public:
  // Wraps comm; owns (and frees) it when owned.
  MpiCommunicator(MPI_Comm comm, bool owned);
  ~MpiCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }
  Device device() const override { return Device::cpu(); }
  MPI_Comm handle() const { return comm_; }

  std::unique_ptr<Communicator> split(int color, int key) override;
  void all_reduce(const void* send, void* recv, int64_t count, DType t, ReduceOp op) override;
  void all_gather(const void* send, void* recv, int64_t count, DType t) override;
  void reduce_scatter(const void* send, void* recv, int64_t count, DType t, ReduceOp op) override;
  void all_to_all(const void* send, void* recv, int64_t count, DType t) override;
  void all_to_all_v(const void* send, const std::vector<int64_t>& send_counts, const std::vector<int64_t>& send_displs,
                    void* recv, const std::vector<int64_t>& recv_counts, const std::vector<int64_t>& recv_displs,
                    DType t) override;
  void broadcast(void* buf, int64_t count, DType t, int root) override;
  void send_recv(const void* send, int dst, void* recv, int src, int64_t count, DType t) override;
  void barrier() override;
  LocalOps& local() override { return host_local_ops(); }
  void host_all_gather(const void* send, void* recv, int64_t bytes) override;
  void host_all_to_all(const void* send, void* recv, int64_t bytes) override;
  [[noreturn]] void abort(int code) override;

 private:
  MPI_Comm comm_;
  bool owned_;
  int rank_ = 0, size_ = 1;
};

// MPI_COMM_WORLD, initialised on first call. Throws bad_input when the world has one rank
// but OMPI_COMM_WORLD_SIZE / PMI_SIZE / SLURM_NTASKS say the job has more.
MpiCommunicator& mpi_world();

// The world size a launcher's environment announces (0 when none does), and which variable.
int launcher_world_size(std::string* variable = nullptr);

// The MPI datatype and op tandem uses for t and op (the 2-byte type and user ops for f16/bf16).
MPI_Datatype mpi_datatype(DType t);
MPI_Op mpi_op(ReduceOp op, DType t);

}  // namespace tandem::comm
