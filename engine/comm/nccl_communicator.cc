// The NCCL backend. Bootstrap, under a watchdog: every rank finds its GPU (the local rank from the launcher
// environment, else the MPI shared-memory split; device 0 when runners/launch/rank_env.sh already bound one per rank)
// and all ranks agree on any failure; rank 0 calls ncclGetUniqueId, all ranks agree on its status, then MPI_Bcast
// shares the id. split() is ncclCommSplit alongside an MPI_Comm_split of the control communicator, so host_all_gather /
// abort always have an MPI communicator of the same ranks. Every data call is enqueued on the communicator's
// (non-blocking) stream behind an event recorded on the default stream, where the engine's kernels, copies and pool
// allocations run, and synchronised before returning, so the semantics match the blocking MPI backend. LocalOps
// (local_ops.h: the pack / unpack copies, zero fills, block transposes, pmean's division, pargmax's offer) run as
// cudaMemcpyAsync / cudaMemsetAsync / device_pack.h kernels under the same ordering. Without NCCL (no CUDA build) both
// entry points report unsupported: a skip with the reason.
#include "engine/comm/nccl_communicator.h"

#include "engine/core/error.h"

#if defined(TANDEM_HAVE_NCCL)
#include <algorithm>
#include <cstdlib>

#include "engine/comm/device_pack.h"
#include "engine/comm/nccl_order_keys.h"
#include "engine/core/check_nccl.h"
#include "engine/comm/job.h"
#include "engine/comm/watchdog.h"
#include "engine/core/rank_env.h"

namespace tandem::comm {
namespace {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::f64: return ncclFloat64;
    case DType::f32: return ncclFloat32;
    case DType::f16: return ncclFloat16;
    case DType::bf16: return ncclBfloat16;
    case DType::i32: return ncclInt32;
    case DType::pred: return ncclUint8;  // data movement only: reductions refuse bool (below)
    default: throw_unsupported(cat("NCCL has no type for ", dtype_name(t)));
  }
}
ncclRedOp_t nccl_op(ReduceOp op) {
  return op == ReduceOp::sum ? ncclSum : op == ReduceOp::max ? ncclMax : ncclMin;
}
// As the MPI backend: the collectives layer converts bool before reducing (JAX's rule).
void no_bool(DType t) {
  if (t == DType::pred) throw_unsupported("reductions of bool", "convert to i32 first, as JAX does");
}
size_t bytes_of(int64_t n, DType t) { return size_t(n) * size_t(dtype_size(t)); }

class NcclCommunicator final : public Communicator, public LocalOps {
 public:
  // control: the MPI communicator of the same ranks (owned when `owned_control` is set).
  NcclCommunicator(ncclComm_t comm, int gpu, Communicator* control, std::unique_ptr<Communicator> owned_control)
      : comm_(comm), gpu_(gpu), control_(control), owned_(std::move(owned_control)) {
    CUDA_CHECK(cudaSetDevice(gpu_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&inputs_ready_, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&outputs_ready_, cudaEventDisableTiming));
  }
  ~NcclCommunicator() override {
    if (inputs_ready_) cudaEventDestroy(inputs_ready_);
    if (outputs_ready_) cudaEventDestroy(outputs_ready_);
    if (stream_) cudaStreamDestroy(stream_);
    if (comm_) ncclCommDestroy(comm_);
  }
  int rank() const override { return control_->rank(); }
  int size() const override { return control_->size(); }
  std::string backend() const override { return "nccl"; }
  Device device() const override { return Device::cuda(gpu_); }

  std::unique_ptr<Communicator> split(int color, int key) override {
    std::unique_ptr<Communicator> ctl = control_->split(color, key);
    ncclComm_t sub = nullptr;
    CallWatch w("ncclCommSplit", size());  // blocks until every rank of comm_ calls it
    NCCL_CHECK(ncclCommSplit(comm_, color, key, &sub, nullptr));
    return std::make_unique<NcclCommunicator>(sub, gpu_, ctl.get(), std::move(ctl));
  }
  void all_reduce(const void* s, void* r, int64_t n, DType t, ReduceOp op) override {
    no_bool(t);
    if (op != ReduceOp::sum && is_floating(t)) return ordered_reduce(s, r, n, t, op, false);
    ordered([&] { NCCL_CHECK(ncclAllReduce(s, r, size_t(n), nccl_type(t), nccl_op(op), comm_, stream_)); });
  }
  void all_gather(const void* s, void* r, int64_t n, DType t) override {
    ordered([&] { NCCL_CHECK(ncclAllGather(s, r, size_t(n), nccl_type(t), comm_, stream_)); });
  }
  void reduce_scatter(const void* s, void* r, int64_t n, DType t, ReduceOp op) override {
    no_bool(t);
    if (op != ReduceOp::sum && is_floating(t)) return ordered_reduce(s, r, n, t, op, true);
    ordered([&] { NCCL_CHECK(ncclReduceScatter(s, r, size_t(n), nccl_type(t), nccl_op(op), comm_, stream_)); });
  }
  void all_to_all(const void* s, void* r, int64_t n, DType t) override {
    const size_t np = static_cast<size_t>(size());
    std::vector<int64_t> counts(np, n), displs(np);
    for (int p = 0; p < size(); ++p) displs[size_t(p)] = p * n;
    all_to_all_v(s, counts, displs, r, counts, displs, t);
  }
  void all_to_all_v(const void* s, const std::vector<int64_t>& sc, const std::vector<int64_t>& sd, void* r,
                    const std::vector<int64_t>& rc, const std::vector<int64_t>& rd, DType t) override {
    const auto* sb = static_cast<const char*>(s);
    auto* rb = static_cast<char*>(r);
    const ncclDataType_t nt = nccl_type(t);
    ordered([&] {
      NCCL_CHECK(ncclGroupStart());
      for (int p = 0; p < size(); ++p) {
        const size_t i = size_t(p);
        if (sc[i] > 0) NCCL_CHECK(ncclSend(sb + bytes_of(sd[i], t), size_t(sc[i]), nt, p, comm_, stream_));
        if (rc[i] > 0) NCCL_CHECK(ncclRecv(rb + bytes_of(rd[i], t), size_t(rc[i]), nt, p, comm_, stream_));
      }
      NCCL_CHECK(ncclGroupEnd());
    });
  }
  void broadcast(void* buf, int64_t n, DType t, int root) override {
    ordered([&] { NCCL_CHECK(ncclBroadcast(buf, buf, size_t(n), nccl_type(t), root, comm_, stream_)); });
  }
  void send_recv(const void* s, int dst, void* r, int src, int64_t n, DType t) override {
    ordered([&] {
      NCCL_CHECK(ncclGroupStart());
      if (dst >= 0) NCCL_CHECK(ncclSend(s, size_t(n), nccl_type(t), dst, comm_, stream_));
      if (src >= 0) NCCL_CHECK(ncclRecv(r, size_t(n), nccl_type(t), src, comm_, stream_));
      NCCL_CHECK(ncclGroupEnd());
    });
  }
  void barrier() override {
    sync();
    control_->barrier();
  }
  // LocalOps on the GPU: copies and fills through the runtime, the rest through
  // device_pack's kernels, all on stream_ under the same ordering as the NCCL calls.
  LocalOps& local() override { return *this; }
  void copy(const std::vector<CopySpan>& spans) override {
    ordered([&] {
      for (const CopySpan& c : spans)
        if (c.bytes > 0 && c.src != c.dst)
          CUDA_CHECK(cudaMemcpyAsync(c.dst, c.src, size_t(c.bytes), cudaMemcpyDeviceToDevice, stream_));
    });
  }
  void zero(void* dst, int64_t bytes) override {
    if (bytes > 0) ordered([&] { CUDA_CHECK(cudaMemsetAsync(dst, 0, size_t(bytes), stream_)); });
  }
  void swap01(const void* src, void* dst, int64_t A, int64_t B, int64_t bytes) override {
    ordered([&] { CUDA_CHECK(device_pack::swap01(src, dst, A, B, bytes, stream_)); });
  }
  void divide(const void* sum, DType in_t, void* out, DType out_t, int64_t count, int64_t n) override {
    ordered([&] { CUDA_CHECK(device_pack::divide(sum, in_t, out, out_t, count, n, stream_)); });
  }
  void offer_index(const void* x, const void* best, DType t, int64_t count, int32_t me, int32_t* idx) override {
    ordered([&] { CUDA_CHECK(device_pack::offer_index(x, best, t, count, me, idx, stream_)); });
  }
  void bool_to_i32(const uint8_t* b, int32_t* out, int64_t count) override {
    ordered([&] { CUDA_CHECK(device_pack::bool_to_i32(b, out, count, stream_)); });
  }
  void i32_to_bool(const int32_t* v, uint8_t* out, int64_t count) override {
    ordered([&] { CUDA_CHECK(device_pack::i32_to_bool(v, out, count, stream_)); });
  }
  void host_all_gather(const void* s, void* r, int64_t bytes) override { control_->host_all_gather(s, r, bytes); }
  void host_all_to_all(const void* s, void* r, int64_t bytes) override { control_->host_all_to_all(s, r, bytes); }
  [[noreturn]] void abort(int code) override {
    ncclCommAbort(comm_);  // unblocks a hung kernel before the MPI abort ends the job
    comm_ = nullptr;
    control_->abort(code);
    std::abort();  // (not reached: the MPI abort does not return)
  }

 private:
  void sync() {
    CallWatch w("cudaStreamSynchronize on the NCCL stream", size());  // waits for the peers' NCCL calls
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  // Runs `enqueue` (NCCL calls on stream_) ordered after everything already queued on the default stream — the pageable
  // cudaMemcpy/cudaMemset and kernels that produced the inputs, and the pool's stream-ordered allocations
  // (engine/cuda/cuda_memory.h) — which a non-blocking stream would otherwise overtake. Afterwards the default stream
  // waits for the outputs (so later kernels and frees see them), and the host waits too (blocking semantics, as the MPI
  // backend; the host may read the outputs on return).
  template <class F>
  void ordered(F enqueue) {
    CUDA_CHECK(cudaSetDevice(gpu_));
    CUDA_CHECK(cudaEventRecord(inputs_ready_, 0));
    CUDA_CHECK(cudaStreamWaitEvent(stream_, inputs_ready_, 0));
    enqueue();
    CUDA_CHECK(cudaEventRecord(outputs_ready_, stream_));
    CUDA_CHECK(cudaStreamWaitEvent(0, outputs_ready_, 0));
    sync();
  }
  // Float max / min through integer order keys (nccl_order_keys.h): NaN propagates and
  // -0 < +0, as on the MPI backend; ncclMax / ncclMin on floats would drop the NaN.
  void ordered_reduce(const void* s, void* r, int64_t n, DType t, ReduceOp op, bool scatter) {
    const order_keys::Bits b = t == DType::f64 ? order_keys::Bits::f64 : t == DType::f32 ? order_keys::Bits::f32
                             : t == DType::f16 ? order_keys::Bits::f16 : order_keys::Bits::bf16;
    const size_t kb = size_t(order_keys::key_bytes(b));
    const int64_t total = scatter ? n * size() : n;
    ordered([&] {
      void* keys = nullptr;
      CUDA_CHECK(cudaMallocAsync(&keys, std::max<size_t>(1, size_t(total) * kb), stream_));
      CUDA_CHECK(order_keys::encode(s, keys, total, b, op == ReduceOp::max, stream_));
      const ncclDataType_t kt = kb == 8 ? ncclInt64 : ncclInt32;
      void* mine = static_cast<char*>(keys) + (scatter ? size_t(rank()) * size_t(n) * kb : 0);
      if (scatter) NCCL_CHECK(ncclReduceScatter(keys, mine, size_t(n), kt, nccl_op(op), comm_, stream_));
      else NCCL_CHECK(ncclAllReduce(keys, keys, size_t(n), kt, nccl_op(op), comm_, stream_));
      CUDA_CHECK(order_keys::decode(mine, r, n, b, stream_));
      CUDA_CHECK(cudaFreeAsync(keys, stream_));
    });
  }
  ncclComm_t comm_ = nullptr;
  int gpu_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t inputs_ready_ = nullptr, outputs_ready_ = nullptr;
  Communicator* control_;
  std::unique_ptr<Communicator> owned_;
};

// The rank on this node: the launcher's variable, else a shared-memory split of the world.
// The split is collective, so every rank makes it — also those that will report having no
// GPU — or the ranks that do see one would wait in it forever. Failure is a reason, not a throw.
int local_rank(MpiCommunicator& mpi, std::string* why) {
  MPI_Comm node = MPI_COMM_NULL;
  int r = -1;
  if (MPI_Comm_split_type(mpi.handle(), MPI_COMM_TYPE_SHARED, mpi.rank(), MPI_INFO_NULL, &node) != MPI_SUCCESS) {
    *why = "MPI_Comm_split_type (the node-local rank) failed";
  } else {
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
  }
  if (int l = launcher_local_rank(); l >= 0) return l;
  return r;
}

// Picks and makes current this rank's GPU; returns why it cannot (empty: it can). No NCCL call.
std::string pick_gpu(MpiCommunicator& mpi, int* gpu) {
  std::string why;
  int lr = local_rank(mpi, &why);
  if (!why.empty() || !nccl_available(&why)) return why;
  int ndev = 0;
  if (cudaError_t e = cudaGetDeviceCount(&ndev); e != cudaSuccess) return cudaGetErrorString(e);
  // runners/launch/rank_env.sh binds one GPU per rank (CUDA_VISIBLE_DEVICES): use it.
  *gpu = std::getenv("TANDEM_GPU_BOUND") ? 0 : lr;
  if (*gpu >= ndev) return cat("local rank ", lr, " has no GPU of its own (", ndev, " visible)");
  if (cudaError_t e = cudaSetDevice(*gpu); e != cudaSuccess)
    return cat("cudaSetDevice(", *gpu, "): ", cudaGetErrorString(e));
  return {};
}

// Every rank learns every rank's reason (empty: fine) and throws the same error if any failed.
void agree(MpiCommunicator& mpi, const std::string& mine, ErrorKind kind, const std::string& hint) {
  const std::vector<std::string> whys = all_gather_strings(mpi, mine);
  for (int r = 0; r < mpi.size(); ++r)
    if (!whys[size_t(r)].empty())
      throw Error(kind, cat("NCCL backend: rank ", r, " (of ", mpi.size(), "): ", whys[size_t(r)]), hint);
}

}  // namespace

bool nccl_available(std::string* why) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    if (why) *why = "no CUDA device is visible";
    return false;
  }
  return true;
}

std::unique_ptr<Communicator> make_nccl_communicator(MpiCommunicator& mpi, double init_timeout_s) {
  // A rank that dies or stalls during init (ncclCommInitRank waits for every peer) must not
  // hang the others: the watchdog aborts the job with the step that did not finish.
  Watchdog dog(mpi, init_timeout_s);
  std::string step = "NCCL communicator init: picking GPUs";
  WatchScope watch(&dog, [&] { return step; });
  // Every rank must agree before any NCCL call, or a rank without a GPU would hang the rest.
  int gpu = -1;
  agree(mpi, pick_gpu(mpi, &gpu), ErrorKind::unsupported, "run on GPU nodes with at most one rank per GPU");
  // Rank 0's ncclGetUniqueId result goes to every rank before the id does: a failure there
  // is reported by all ranks instead of leaving them in MPI_Bcast.
  step = "NCCL communicator init: ncclGetUniqueId on rank 0 and its broadcast";
  ncclUniqueId id{};
  std::string id_error;
  if (mpi.rank() == 0)
    if (ncclResult_t e = ncclGetUniqueId(&id); e != ncclSuccess)
      id_error = cat("ncclGetUniqueId failed: ", ncclGetErrorString(e));
  agree(mpi, id_error, ErrorKind::internal, "check NCCL_SOCKET_IFNAME / NCCL_DEBUG=INFO on rank 0's host");
  if (MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, mpi.handle()) != MPI_SUCCESS)
    throw Error(ErrorKind::internal, "MPI_Bcast of the NCCL unique id failed");
  step = cat("NCCL communicator init: ncclCommInitRank (", mpi.size(), " ranks, GPU ", gpu, ")");
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, mpi.size(), id, mpi.rank()));
  return std::make_unique<NcclCommunicator>(comm, gpu, &mpi, nullptr);
}

}  // namespace tandem::comm

#else  // no NCCL in this build

namespace tandem::comm {
bool nccl_available(std::string* why) {
  if (why) *why = "this tandem was built without NCCL (no CUDA toolkit or nccl.h found)";
  return false;
}
std::unique_ptr<Communicator> make_nccl_communicator(MpiCommunicator&, double) {
  std::string why;
  nccl_available(&why);
  throw_unsupported("NCCL backend: " + why, "configure with CUDA and NCCL installed");
}
}  // namespace tandem::comm
#endif
