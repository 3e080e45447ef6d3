// ragged_all_to_all with JAX semantics: K = G * per slices; slice k of the sender goes to member k / per and lands at
// the sender's output_offsets[k] on that receiver, whose recv_sizes entry (sender * per + k % per) must match.
//
// Why it is shaped this way (lab/README.md, Collectives): a receiver needs only the (size, offset) pairs of the slices
// coming to it, so one small control-plane all_to_all (16·per bytes per peer) carries exactly those; each receiver
// checks its own slices against its recv_sizes and its output's rows, and with ctx.validate the verdicts are agreed
// with one 8-byte all-gather, so a violation is still the same error on every rank. The data then moves with one
// all_to_all_v straight from `operand` into the output when each peer's slices are back to back (always so with one
// slice per peer); only a side whose slices are scattered goes through a staging buffer, packed and unpacked by the
// communicator's LocalOps (memcpy on host, cudaMemcpyAsync on the NCCL stream), so the op runs on device buffers too;
// the sizes and offsets are control data and stay on the host.
#include <algorithm>
#include <exception>

#include "engine/comm/collectives_impl.h"
#include "engine/comm/validate.h"
#include "engine/comm/watchdog.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"

namespace tandem::comm {
using namespace detail;
namespace {

// Displacements of blocks packed back to back in peer order.
void pack_displs(const std::vector<int64_t>& counts, std::vector<int64_t>& displs) {
  int64_t at = 0;
  for (size_t p = 0; p < counts.size(); ++p) displs[p] = at, at += counts[p];
}

// Element counts and displacements of G peers' row ranges, `per` ranges each, given by at(p, l) = {first row, rows}.
// Returns true when every peer's non-empty ranges are back to back, so the transport can read or write the tensor
// itself at those displacements; otherwise the displacements describe a staging buffer packed in (peer, slice) order.
template <class At>
bool peer_layout(int G, int64_t per, int64_t row, At at, std::vector<int64_t>& counts, std::vector<int64_t>& displs) {
  counts.assign(size_t(G), 0);
  displs.assign(size_t(G), 0);
  bool direct = true;
  for (int p = 0; p < G; ++p) {
    int64_t first = -1, end = 0, rows = 0;
    for (int64_t l = 0; l < per; ++l) {
      auto [off, n] = at(p, l);
      if (n == 0) continue;
      if (first < 0) first = off;
      else if (off != end) direct = false;
      end = off + n;
      rows += n;
    }
    counts[size_t(p)] = rows * row;
    displs[size_t(p)] = first < 0 ? 0 : first * row;
  }
  if (!direct) pack_displs(counts, displs);
  return direct;
}

bool overlap(const Tensor& a, const Tensor& b) {
  const char *a0 = a.data<char>(), *b0 = b.data<char>();
  return a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

// The world rank at position i of the group holding world rank `me` (messages only).
int world_rank_of(const Groups& g, int me, int i) {
  if (g.empty()) return i;
  for (const auto& grp : g)
    for (int r : grp)
      if (r == me) return grp[size_t(i)];
  return i;
}

// The arguments checked (on every rank, the verdict agreed under ctx.validate): K slices, a
// multiple of the group size G; both tensors on the communicator's device, [N,...] and
// [M,...] alike beyond the first axis; every slice inside the operand.
void check_arguments(Collectives& c, const Tensor& operand, const Tensor& out, const RaggedOffsets& o,
                     const Shape& trailing, int G) {
  const char* op = "ragged_all_to_all";
  const size_t K = o.input_offsets.size();
  if (K < 1 || o.send_sizes.size() != K || o.output_offsets.size() != K || o.recv_sizes.size() != K)
    throw_bad_input(cat(op, ": input_offsets, send_sizes, output_offsets and recv_sizes must have one length >= 1"));
  if (K % size_t(G) != 0)
    throw_bad_input(cat(op, ": the offset arrays have length ", K, ", not divisible by the group size ", G));
  Shape ot = operand.shape();
  if (operand.device() != c.world().device() || out.device() != c.world().device())
    throw_bad_input(cat(op, ": operand on ", operand.device().str(), " and output on ", out.device().str(),
                        ", but the ", c.world().backend(), " communicator's buffers live on ", c.world().device().str()),
                    "move both to the communicator's device first (Tensor::to)");
  if (ot.empty() || out.rank() < 1 || operand.dtype() != out.dtype() ||
      !std::equal(ot.begin() + 1, ot.end(), trailing.begin(), trailing.end()))
    throw_bad_input(cat(op, ": operand ", operand.type().str(), " and output ", out.type().str(),
                        " must be [N,...] and [M,...] with the same trailing dims and dtype"));
  for (size_t k = 0; k < K; ++k)
    if (o.send_sizes[k] < 0 || o.input_offsets[k] < 0 || o.input_offsets[k] + o.send_sizes[k] > ot[0])
      throw_bad_input(cat(op, ": slice ", k, " [", o.input_offsets[k], ", +", o.send_sizes[k],
                          ") is outside the operand's ", ot[0], " rows"));
}

// One call past its argument checks: the group's size G and this rank's position q in it
// (me in the world), slices per peer, elements per row, the output's rows, and the metadata
// received: block s holds (rows, output offset) of each slice member s sends here.
struct RaggedCall {
  const RaggedOffsets& o;
  const Groups& g;
  int G, q, me;
  int64_t per, row, M, row_bytes;
  const std::vector<int64_t>& meta_in;
  int64_t rows_in(int s, int64_t l) const { return meta_in[size_t(2 * (s * per + l))]; }
  int64_t offset_in(int s, int64_t l) const { return meta_in[size_t(2 * (s * per + l) + 1)]; }
};

// Metadata: block p carries (send_sizes[k], output_offsets[k]) of the slices k for peer p.
void exchange_metadata(Communicator& gc, const RaggedOffsets& o, int64_t per, std::vector<int64_t>& meta_out,
                       std::vector<int64_t>& meta_in) {
  const size_t K = o.input_offsets.size();
  meta_out.resize(2 * K);
  meta_in.resize(2 * K);
  const int64_t early = fault_on(Fault::coll_ragged_output_offset_off_by_one) ? 1 : 0;  // fault: one row early
  for (size_t k = 0; k < K; ++k)
    meta_out[2 * k] = o.send_sizes[k], meta_out[2 * k + 1] = std::max<int64_t>(0, o.output_offsets[k] - early);
  gc.host_all_to_all(meta_out.data(), meta_in.data(), int64_t(2 * per * sizeof(int64_t)));
}

// Each slice coming here matches its recv_sizes entry and lands inside the output.
void check_received(const RaggedCall& r) {
  const char* op = "ragged_all_to_all";
  for (int s = 0; s < r.G; ++s)
    for (int64_t l = 0; l < r.per; ++l) {
      const int64_t j = s * r.per + l, n = r.rows_in(s, l), at = r.offset_in(s, l);
      if (n != r.o.recv_sizes[size_t(j)])
        throw_bad_input(cat(op, ": rank ", world_rank_of(r.g, r.me, s), " sends ", n, " rows as slice ", r.q * r.per + l,
                            " but rank ", r.me, " expects recv_sizes[", j, "] = ", r.o.recv_sizes[size_t(j)]),
                        "send_sizes must equal all_to_all(recv_sizes, tiled=True)");
      if (at < 0 || at + n > r.M)
        throw_bad_input(cat(op, ": rank ", world_rank_of(r.g, r.me, s), " writes rows [", at, ", +", n, ") of rank ",
                            r.me, "'s output, which has ", r.M, " rows"));
    }
}

// check_received, agreed under ctx.validate. Unvalidated calls (arguments agreed before, e.g.
// a timed loop) still refuse to write out of bounds, but only on the rank that sees it; that
// rank still takes part in the data exchange (into scratch, with the senders' counts) so its
// peers do not hang: its refusal is returned, to throw after the exchange.
std::exception_ptr received_verdict(Collectives& c, const RaggedCall& r) {
  if (c.validate) {
    agree_verdict(c.world(), [&] { check_received(r); });
    return nullptr;
  }
  try {
    check_received(r);
  } catch (const Error&) {
    return std::current_exception();
  }
  return nullptr;
}

// The slices to send in (peer, slice) order, back to back, in a staging buffer.
Tensor stage_send(Communicator& gc, const RaggedCall& r, const Tensor& operand, const Tensor& out,
                  const std::vector<int64_t>& sc, const std::vector<int64_t>& sd, std::vector<CopySpan>& spans) {
  Tensor stage = Tensor::empty({sd.back() + sc.back()}, out.dtype(), out.device());
  char* dst = stage.data<char>();
  spans.clear();
  for (size_t k = 0; k < r.o.input_offsets.size(); ++k) {
    const int64_t n = r.o.send_sizes[k] * r.row_bytes;
    spans.push_back({operand.data<char>() + r.o.input_offsets[k] * r.row_bytes, dst, n});
    dst += n;
  }
  gc.local().copy(spans);
  return stage;
}

// The slices received in a staging buffer, each copied to its output offset.
void unstage_recv(Communicator& gc, const RaggedCall& r, const Tensor& stage, const Tensor& out,
                  std::vector<CopySpan>& spans) {
  const char* src = stage.data<char>();
  spans.clear();
  for (int s = 0; s < r.G; ++s)
    for (int64_t l = 0; l < r.per; ++l) {
      const int64_t n = r.rows_in(s, l) * r.row_bytes;
      spans.push_back({src, out.data<char>() + r.offset_in(s, l) * r.row_bytes, n});
      src += n;
    }
  gc.local().copy(spans);
}

}  // namespace

void ragged_all_to_all_into(Collectives& c, const Tensor& operand, const Tensor& out, const RaggedOffsets& o,
                            const Groups& g) {
  const char* op = "ragged_all_to_all";
  const size_t K = o.input_offsets.size();
  Shape trailing = out.shape();
  if (!trailing.empty()) trailing.erase(trailing.begin());
  Communicator& gc = prepare(c, op, c.validate ? cat(op, " ", dtype_name(out.dtype()), "[*,", shape_str(trailing), "] K=", K,
                                        " groups=", groups_str(g)) : std::string(), g, true,
                             [&](int G) { check_arguments(c, operand, out, o, trailing, G); });
  // One watch over the metadata exchange, the agreement and the data exchange: all of it is
  // this op, and one arm per call is cheaper than three.
  WatchScope watch(c.watchdog, what(op, operand, g));
  // Scratch reused across calls: the per-call cost is what this op adds to the transport's.
  thread_local std::vector<int64_t> meta_out, meta_in, sc, sd, rc, rd;
  const int G = gc.size();
  const int64_t per = int64_t(K) / G, row = num_elements(trailing);
  exchange_metadata(gc, o, per, meta_out, meta_in);
  const RaggedCall r{o, g, G, gc.rank(), c.world().rank(), per, row, out.shape()[0],
                     row * dtype_size(out.dtype()), meta_in};
  const std::exception_ptr refused = received_verdict(c, r);

  bool send_direct = peer_layout(G, per, row, [&](int p, int64_t l) {
    const size_t k = size_t(p * per + l);
    return std::pair{o.input_offsets[k], o.send_sizes[k]};
  }, sc, sd);
  bool recv_direct = peer_layout(G, per, row, [&](int s, int64_t l) {
    return std::pair{r.offset_in(s, l), std::max<int64_t>(0, r.rows_in(s, l))};
  }, rc, rd);
  if (recv_direct && refused) {
    recv_direct = false;
    pack_displs(rc, rd);
  }
  if (send_direct && overlap(operand, out)) {  // receiving would overwrite rows still to be sent
    send_direct = false;
    pack_displs(sc, sd);
  }

  thread_local std::vector<CopySpan> spans;
  const Tensor send_stage = send_direct ? Tensor() : stage_send(gc, r, operand, out, sc, sd, spans);
  const Tensor recv_stage = recv_direct ? Tensor() : Tensor::empty({rd.back() + rc.back()}, out.dtype(), out.device());
  gc.all_to_all_v(send_direct ? operand.raw() : send_stage.raw(), sc, sd, recv_direct ? out.raw() : recv_stage.raw(),
                  rc, rd, out.dtype());
  if (refused) std::rethrow_exception(refused);
  if (!recv_direct) unstage_recv(gc, r, recv_stage, out, spans);
}

Tensor ragged_all_to_all(Collectives& c, const Tensor& operand, const Tensor& output, const RaggedOffsets& o,
                         const Groups& g) {
  // JAX returns a new array that keeps `output`'s rows where nothing lands: a copy here,
  // which ragged_all_to_all_into avoids by writing into a caller's buffer.
  Tensor result = Tensor::empty(output.shape(), output.dtype(), output.device());
  // (On another device than the communicator's, ragged_all_to_all_into reports it, agreed.)
  if (output.device() == c.world().device())
    c.world().local().copy({{output.raw(), result.raw(), int64_t(output.nbytes())}});
  ragged_all_to_all_into(c, operand, result, o, g);
  return result;
}

}  // namespace tandem::comm
