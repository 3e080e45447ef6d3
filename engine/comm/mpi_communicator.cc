// MPI backend implementation. Errors from MPI calls become tandem::Error(internal) naming
// the call and the MPI error string; counts beyond INT_MAX are "unsupported" (no MPI-4
// large-count calls here). Every blocking call runs under the job watchdog (job.h), so a
// rank stalled in one ends the job with exit 5 instead of hanging it.
#include "engine/comm/mpi_communicator.h"

#include <climits>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <type_traits>

#include "engine/comm/job.h"
#include "engine/core/check_mpi.h"
#include "engine/core/error.h"
#include "engine/core/half.h"

namespace tandem::comm {
namespace {

int as_int(int64_t n, const char* what) {
  if (n < 0 || n > INT_MAX)
    throw_unsupported(cat(what, " = ", n, " does not fit an MPI int count"),
                      "split the message; MPI-4 large counts are not used");
  return int(n);
}

// max / min under tandem's one rule (docs/COLLECTIVES.md): a NaN on any rank gives NaN,
// and -0 < +0, so the result never depends on rank order. (MPI_MAX on floats keeps
// whichever operand its comparison happens to favour.)
template <ReduceOp Op, class T>
T ordered_combine(T x, T y) {
  if (x != x || y != y) return x + y;  // NaN propagates
  if (x == y) return (std::signbit(x) == (Op == ReduceOp::max)) ? y : x;  // ±0: max +0, min -0
  if constexpr (Op == ReduceOp::max) return x > y ? x : y;
  else return x < y ? x : y;
}

// f32 / f64 max and min (sum stays MPI_SUM, the library's own vectorised loop).
template <class T, ReduceOp Op>
void float_combine(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = ordered_combine<Op>(a[i], b[i]);
}

// Elementwise combine in f32 for the 2-byte types, rounding back once per combine.
template <class H, ReduceOp Op>
void half_combine(void* in, void* inout, int* len, MPI_Datatype*) {
  const H* a = static_cast<const H*>(in);
  H* b = static_cast<H*>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = to_f32(a[i]), y = to_f32(b[i]), r;
    if constexpr (Op == ReduceOp::sum) r = x + y;
    else r = ordered_combine<Op>(x, y);
    if constexpr (std::is_same_v<H, bf16>) b[i] = to_bf16(r);
    else b[i] = to_f16(r);
  }
}

struct HalfTypes {
  MPI_Datatype two_bytes = MPI_DATATYPE_NULL;
  MPI_Op ops[2][3] = {};    // [bf16, f16][sum, max, min]
  MPI_Op float_ops[2][2] = {};  // [f32, f64][max, min]
};

HalfTypes& half_types() {
  static HalfTypes h = [] {
    HalfTypes t;
    MPI_Type_contiguous(2, MPI_BYTE, &t.two_bytes);
    MPI_Type_commit(&t.two_bytes);
    MPI_Op_create(&half_combine<bf16, ReduceOp::sum>, 1, &t.ops[0][0]);
    MPI_Op_create(&half_combine<bf16, ReduceOp::max>, 1, &t.ops[0][1]);
    MPI_Op_create(&half_combine<bf16, ReduceOp::min>, 1, &t.ops[0][2]);
    MPI_Op_create(&half_combine<f16, ReduceOp::sum>, 1, &t.ops[1][0]);
    MPI_Op_create(&half_combine<f16, ReduceOp::max>, 1, &t.ops[1][1]);
    MPI_Op_create(&half_combine<f16, ReduceOp::min>, 1, &t.ops[1][2]);
    MPI_Op_create(&float_combine<float, ReduceOp::max>, 1, &t.float_ops[0][0]);
    MPI_Op_create(&float_combine<float, ReduceOp::min>, 1, &t.float_ops[0][1]);
    MPI_Op_create(&float_combine<double, ReduceOp::max>, 1, &t.float_ops[1][0]);
    MPI_Op_create(&float_combine<double, ReduceOp::min>, 1, &t.float_ops[1][1]);
    return t;
  }();
  return h;
}

// Into `out`, reused across calls (thread_local at the caller): no allocation per
// collective, which showed up in ragged_all_to_all's per-call cost.
const int* ints(const std::vector<int64_t>& v, const char* what, std::vector<int>& out) {
  out.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = as_int(v[i], what);
  return out.data();
}
}  // namespace

MPI_Datatype mpi_datatype(DType t) {
  switch (t) {
    case DType::f64: return MPI_DOUBLE;
    case DType::f32: return MPI_FLOAT;
    case DType::i32: return MPI_INT32_T;
    case DType::bf16: case DType::f16: return half_types().two_bytes;
    case DType::pred: return MPI_C_BOOL;
  }
  return MPI_BYTE;
}

MPI_Op mpi_op(ReduceOp op, DType t) {
  if (t == DType::bf16 || t == DType::f16) return half_types().ops[t == DType::f16 ? 1 : 0][int(op)];
  if (t == DType::pred) throw_unsupported("reductions of bool", "convert to i32 first, as JAX does");
  if ((t == DType::f32 || t == DType::f64) && op != ReduceOp::sum)
    return half_types().float_ops[t == DType::f64 ? 1 : 0][op == ReduceOp::max ? 0 : 1];
  return op == ReduceOp::sum ? MPI_SUM : op == ReduceOp::max ? MPI_MAX : MPI_MIN;
}

MpiCommunicator::MpiCommunicator(MPI_Comm comm, bool owned) : comm_(comm), owned_(owned) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owned_ && !finalized) MPI_Comm_free(&comm_);
}

std::unique_ptr<Communicator> MpiCommunicator::split(int color, int key) {
  MPI_Comm sub;
  CallWatch w("MPI_Comm_split", size_);
  MPI_CHECK(MPI_Comm_split(comm_, color, key, &sub));
  return std::make_unique<MpiCommunicator>(sub, true);
}

void MpiCommunicator::all_reduce(const void* send, void* recv, int64_t count, DType t, ReduceOp op) {
  CallWatch w("MPI_Allreduce", size_, count, dtype_name(t));
  MPI_CHECK(MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, as_int(count, "count"),
                          mpi_datatype(t), mpi_op(op, t), comm_));
}

void MpiCommunicator::all_gather(const void* send, void* recv, int64_t count, DType t) {
  CallWatch w("MPI_Allgather", size_, count, dtype_name(t));
  MPI_CHECK(MPI_Allgather(send, as_int(count, "count"), mpi_datatype(t), recv, int(count), mpi_datatype(t), comm_));
}

void MpiCommunicator::reduce_scatter(const void* send, void* recv, int64_t count, DType t, ReduceOp op) {
  CallWatch w("MPI_Reduce_scatter_block", size_, count, dtype_name(t));
  MPI_CHECK(MPI_Reduce_scatter_block(send, recv, as_int(count, "count"), mpi_datatype(t), mpi_op(op, t), comm_));
}

void MpiCommunicator::all_to_all(const void* send, void* recv, int64_t count, DType t) {
  CallWatch w("MPI_Alltoall", size_, count, dtype_name(t));
  MPI_CHECK(MPI_Alltoall(send, as_int(count, "count"), mpi_datatype(t), recv, int(count), mpi_datatype(t), comm_));
}

void MpiCommunicator::all_to_all_v(const void* send, const std::vector<int64_t>& send_counts,
                                   const std::vector<int64_t>& send_displs, void* recv,
                                   const std::vector<int64_t>& recv_counts,
                                   const std::vector<int64_t>& recv_displs, DType t) {
  CallWatch w("MPI_Alltoallv", size_);
  thread_local std::vector<int> sc, sd, rc, rd;
  MPI_CHECK(MPI_Alltoallv(send, ints(send_counts, "send count", sc), ints(send_displs, "send displ", sd),
                          mpi_datatype(t), recv, ints(recv_counts, "recv count", rc),
                          ints(recv_displs, "recv displ", rd), mpi_datatype(t), comm_));
}

void MpiCommunicator::broadcast(void* buf, int64_t count, DType t, int root) {
  CallWatch w("MPI_Bcast", size_, count, dtype_name(t));
  MPI_CHECK(MPI_Bcast(buf, as_int(count, "count"), mpi_datatype(t), root, comm_));
}

void MpiCommunicator::send_recv(const void* send, int dst, void* recv, int src, int64_t count, DType t) {
  const int n = as_int(count, "count");
  CallWatch w("MPI_Sendrecv", size_, count, dtype_name(t));
  MPI_CHECK(MPI_Sendrecv(send, n, mpi_datatype(t), dst < 0 ? MPI_PROC_NULL : dst, 7001, recv, n, mpi_datatype(t),
                         src < 0 ? MPI_PROC_NULL : src, 7001, comm_, MPI_STATUS_IGNORE));
}

void MpiCommunicator::barrier() {
  CallWatch w("MPI_Barrier", size_);
  MPI_CHECK(MPI_Barrier(comm_));
}

void MpiCommunicator::host_all_gather(const void* send, void* recv, int64_t bytes) {
  CallWatch w("MPI_Allgather", size_, bytes, "bytes");  // the control plane
  MPI_CHECK(MPI_Allgather(send, as_int(bytes, "bytes"), MPI_BYTE, recv, int(bytes), MPI_BYTE, comm_));
}

void MpiCommunicator::host_all_to_all(const void* send, void* recv, int64_t bytes) {
  CallWatch w("MPI_Alltoall", size_, bytes, "bytes");
  MPI_CHECK(MPI_Alltoall(send, as_int(bytes, "bytes"), MPI_BYTE, recv, int(bytes), MPI_BYTE, comm_));
}

void MpiCommunicator::abort(int code) {
  MPI_Abort(comm_, code);
  std::_Exit(code);
}

int launcher_world_size(std::string* variable) {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"}) {
    if (const char* s = std::getenv(v); s && *s) {
      if (variable) *variable = v;
      return std::atoi(s);
    }
  }
  return 0;
}

MpiCommunicator& mpi_world() {
  static MpiCommunicator* world = [] {
    init_mpi_job();  // MPI_Init under the job watchdog; the end of the job is end_job()
    return new MpiCommunicator(MPI_COMM_WORLD, false);
  }();
  std::string var;
  if (int n = launcher_world_size(&var); world->size() == 1 && n > 1)
    throw_bad_input(cat("MPI world has 1 rank but ", var, "=", n, " says the job has ", n),
                    "the binary and mpirun/srun likely come from different MPI installations, "
                    "or the launcher did not start it; use runners/launch/mpirun.sh or srun --mpi=pmix");
  return *world;
}

}  // namespace tandem::comm
