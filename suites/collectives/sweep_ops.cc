// The sweep's ops: for one op, size and layout, the buffers (filled with small integers
// from the rank's group position q: value(q, i) = ((7q + 3i) mod 13) − 6), the call that is
// timed, a closed-form check of the result (an independent model per op), and nccl-tests'
// S and bus factor.
#include "suites/collectives/sweep_ops.h"

#include "suites/collectives/sweep.h"  // declares kSweepOps extern (a const global is otherwise internal)

#include <mpi.h>

#include "engine/comm/mpi_communicator.h"
#include "engine/core/error.h"

namespace tandem::coll {
namespace {

double value(int q, int64_t i) { return double((7 * q + 3 * i) % 13) - 6; }

Tensor filled(int64_t n, DType t, const std::function<double(int64_t)>& f) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = f(i);
  return Tensor::from_f64(v, {n}, t);
}

}  // namespace

const std::vector<std::string> kSweepOps = {"psum", "all_gather", "psum_scatter", "all_to_all",
                                            "ragged_all_to_all", "ppermute", "pbroadcast",
                                            "mpi_allreduce", "mpi_allgather", "mpi_reduce_scatter",
                                            "mpi_alltoall", "mpi_alltoallv"};

SweepOp make_sweep_op(comm::Collectives& c, const std::string& op, const comm::Groups& g, int64_t bytes,
                      DType t, bool inplace) {
  comm::Communicator& gc = c.group(g);
  const int G = gc.size(), p = gc.rank(), es = dtype_size(t);
  MPI_Comm h = dynamic_cast<comm::MpiCommunicator&>(gc).handle();
  const MPI_Datatype mt = comm::mpi_datatype(t);
  SweepOp s;
  s.busfactor = (G - 1) / double(G);
  const std::string base = op.rfind("mpi_", 0) == 0 ? op.substr(4) : op;
  auto out_of_place_only = [&] {
    if (inplace) throw_unsupported(op + " has no in-place form here");
  };
  if (op == "psum" || op == "mpi_allreduce") {
    const int64_t n = std::max<int64_t>(1, bytes / es);
    s.bytes = n * es, s.busfactor = 2.0 * (G - 1) / G;
    s.send = filled(n, t, [&](int64_t i) { return value(p, i); });
    s.recv = inplace ? s.send : Tensor::empty({n}, t);
    s.expected = [G](int64_t i) { double v = 0; for (int q = 0; q < G; ++q) v += value(q, i); return v; };
    if (op == "psum") s.run = [&c, g, s] { comm::all_reduce_into(c, comm::ReduceOp::sum, s.send, s.recv, g); };
    else s.run = [h, mt, s, n, t, inplace] {
      MPI_Allreduce(inplace ? MPI_IN_PLACE : s.send.raw(), s.recv.raw(), int(n), mt, comm::mpi_op(comm::ReduceOp::sum, t), h);
    };
  } else if (op == "all_gather" || op == "mpi_allgather") {
    out_of_place_only();
    const int64_t n = std::max<int64_t>(1, bytes / (es * G));
    s.bytes = n * G * es;
    s.send = filled(n, t, [&](int64_t i) { return value(p, i); });
    s.recv = Tensor::empty({G * n}, t);
    s.expected = [n](int64_t i) { return value(int(i / n), i % n); };
    if (op == "all_gather") s.run = [&c, g, s] { comm::all_gather_into(c, s.send, s.recv, 0, true, g); };
    else s.run = [h, mt, s, n] { MPI_Allgather(s.send.raw(), int(n), mt, s.recv.raw(), int(n), mt, h); };
  } else if (op == "psum_scatter" || op == "mpi_reduce_scatter") {
    out_of_place_only();
    const int64_t n = std::max<int64_t>(1, bytes / (es * G));
    s.bytes = n * G * es;
    s.send = filled(G * n, t, [&](int64_t i) { return value(p, i); });
    s.recv = Tensor::empty({n}, t);
    s.expected = [G, p, n](int64_t i) { double v = 0; for (int q = 0; q < G; ++q) v += value(q, p * n + i); return v; };
    if (op == "psum_scatter") s.run = [&c, g, s] { comm::psum_scatter_into(c, s.send, s.recv, 0, true, g); };
    else s.run = [h, mt, s, n, t] {
      MPI_Reduce_scatter_block(s.send.raw(), s.recv.raw(), int(n), mt, comm::mpi_op(comm::ReduceOp::sum, t), h);
    };
  } else if (op == "all_to_all" || op == "mpi_alltoall" || op == "ragged_all_to_all" || op == "mpi_alltoallv") {
    out_of_place_only();
    const int64_t n = std::max<int64_t>(1, bytes / (es * G));  // block per peer
    s.bytes = n * G * es;
    s.send = filled(G * n, t, [&](int64_t i) { return value(p, i); });
    s.recv = Tensor::empty({G * n}, t);
    s.expected = [p, n](int64_t i) { return value(int(i / n), p * n + i % n); };
    if (op == "all_to_all") s.run = [&c, g, s] { comm::all_to_all_into(c, s.send, s.recv, 0, 0, true, g); };
    else if (op == "mpi_alltoall") s.run = [h, mt, s, n] { MPI_Alltoall(s.send.raw(), int(n), mt, s.recv.raw(), int(n), mt, h); };
    else if (op == "mpi_alltoallv") {
      auto counts = std::make_shared<std::vector<int>>(size_t(G), int(n));
      auto displs = std::make_shared<std::vector<int>>(size_t(G));
      for (int q = 0; q < G; ++q) (*displs)[size_t(q)] = int(q * n);
      s.run = [h, mt, s, counts, displs] {
        MPI_Alltoallv(s.send.raw(), counts->data(), displs->data(), mt, s.recv.raw(), counts->data(), displs->data(), mt, h);
      };
    } else {
      comm::RaggedOffsets o;
      for (int q = 0; q < G; ++q) {
        o.input_offsets.push_back(q * n);
        o.send_sizes.push_back(n);
        o.output_offsets.push_back(p * n);
        o.recv_sizes.push_back(n);
      }
      // Into recv, as MPI_Alltoallv writes its recv: the functional form's copy of `output`
      // is JAX's value semantics, not transport cost.
      s.run = [&c, g, s, o] { comm::ragged_all_to_all_into(c, s.send, s.recv, o, g); };
    }
  } else if (op == "ppermute") {
    out_of_place_only();
    const int64_t n = std::max<int64_t>(1, bytes / es);
    const int W = c.world().size(), me = c.world().rank();
    s.bytes = n * es, s.busfactor = 1;
    s.send = filled(n, t, [&](int64_t i) { return value(me, i); });
    s.recv = Tensor::empty({n}, t);
    std::vector<std::pair<int, int>> ring;
    for (int r = 0; r < W; ++r) ring.push_back({r, (r + 1) % W});
    s.expected = [W, me](int64_t i) { return value((me + W - 1) % W, i); };
    s.run = [&c, s, ring] { comm::ppermute_into(c, s.send, s.recv, ring); };
  } else if (op == "pbroadcast") {
    const int64_t n = std::max<int64_t>(1, bytes / es);
    s.bytes = n * es, s.busfactor = 1;
    s.send = filled(n, t, [&](int64_t i) { return value(p, i); });
    s.recv = inplace ? s.send : Tensor::empty({n}, t);
    s.expected = [](int64_t i) { return value(0, i); };
    s.run = [&c, g, s] { comm::pbroadcast_into(c, s.send, s.recv, 0, g); };
  } else {
    throw_bad_input(cat("unknown sweep op '", op, "'"), "see `tandem collectives --help` for the list");
  }
  (void)base;
  if (!s.result) s.result = [r = s.recv] { return r; };
  return s;
}

}  // namespace tandem::coll
