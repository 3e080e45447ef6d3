// ragged_all_to_all with JAX semantics: K = G * per slices; slice k of the sender goes to
// member k / per and lands at the sender's output_offsets[k] on that receiver, whose
// recv_sizes entry (sender * per + k % per) must match. Metadata is gathered from every
// rank of the world, so the whole contract is checked identically everywhere; data moves
// with one all_to_all_v on the group.
#include <cstring>

#include "engine/comm/collectives_impl.h"
#include "engine/comm/validate.h"
#include "engine/comm/watchdog.h"
#include "engine/core/error.h"

namespace tandem::comm {
using namespace detail;

Tensor ragged_all_to_all(Collectives& c, const Tensor& operand, const Tensor& output, const RaggedOffsets& o,
                         const Groups& g) {
  const char* op = "ragged_all_to_all";
  const size_t K = o.input_offsets.size();
  Shape trailing = output.shape();
  if (!trailing.empty()) trailing.erase(trailing.begin());
  Communicator& gc = prepare(c, op, cat(op, " ", dtype_name(output.dtype()), "[*,", shape_str(trailing), "] K=", K,
                                        " groups=", groups_str(g)), g, true, [&](int G) {
    if (K < 1 || o.send_sizes.size() != K || o.output_offsets.size() != K || o.recv_sizes.size() != K)
      throw_bad_input(cat(op, ": input_offsets, send_sizes, output_offsets and recv_sizes must have one length >= 1"));
    if (K % size_t(G) != 0)
      throw_bad_input(cat(op, ": the offset arrays have length ", K, ", not divisible by the group size ", G));
    Shape ot = operand.shape();
    if (ot.empty() || output.rank() < 1 || operand.dtype() != output.dtype() ||
        !std::equal(ot.begin() + 1, ot.end(), trailing.begin(), trailing.end()))
      throw_bad_input(cat(op, ": operand ", operand.type().str(), " and output ", output.type().str(),
                          " must be [N,...] and [M,...] with the same trailing dims and dtype"));
    for (size_t k = 0; k < K; ++k)
      if (o.send_sizes[k] < 0 || o.input_offsets[k] < 0 || o.input_offsets[k] + o.send_sizes[k] > ot[0])
        throw_bad_input(cat(op, ": slice ", k, " [", o.input_offsets[k], ", +", o.send_sizes[k],
                            ") is outside the operand's ", ot[0], " rows"));
  });
  require_host(operand, op);
  const int n = c.world().size(), G = gc.size();
  const int64_t per = int64_t(K) / G, row = num_elements(trailing);
  const int64_t row_bytes = row * dtype_size(output.dtype());
  // All ranks' metadata: [M, send_sizes(K), output_offsets(K), recv_sizes(K)] per rank.
  std::vector<int64_t> mine{output.shape()[0]};
  for (const auto* v : {&o.send_sizes, &o.output_offsets, &o.recv_sizes}) mine.insert(mine.end(), v->begin(), v->end());
  const std::vector<int64_t> all = all_gather_ints(c.world(), mine);
  const size_t stride = 1 + 3 * K;
  auto M = [&](int r) { return all[size_t(r) * stride]; };
  auto send_sz = [&](int r, int64_t k) { return all[size_t(r) * stride + 1 + size_t(k)]; };
  auto out_off = [&](int r, int64_t k) { return all[size_t(r) * stride + 1 + K + size_t(k)]; };
  auto recv_sz = [&](int r, int64_t k) { return all[size_t(r) * stride + 1 + 2 * K + size_t(k)]; };
  Groups members = g;
  if (members.empty()) {
    members.emplace_back();
    for (int i = 0; i < n; ++i) members[0].push_back(i);
  }
  for (const auto& grp : members)  // the contract, checked the same way on every rank
    for (int si = 0; si < G; ++si)
      for (int64_t k = 0; k < int64_t(K); ++k) {
        const int s = grp[size_t(si)], d = grp[size_t(k / per)];
        const int64_t j = si * per + k % per;
        if (send_sz(s, k) != recv_sz(d, j))
          throw_bad_input(cat(op, ": rank ", s, " sends ", send_sz(s, k), " rows as slice ", k, " but rank ", d,
                              " expects recv_sizes[", j, "] = ", recv_sz(d, j)),
                          "send_sizes must equal all_to_all(recv_sizes, tiled=True)");
        if (out_off(s, k) < 0 || out_off(s, k) + send_sz(s, k) > M(d))
          throw_bad_input(cat(op, ": rank ", s, " writes rows [", out_off(s, k), ", +", send_sz(s, k),
                              ") of rank ", d, "'s output, which has ", M(d), " rows"));
      }
  // Pack what goes to each peer, exchange, then scatter into a copy of `output`.
  const std::vector<int>* mine_grp = &members[0];
  for (const auto& m : members)
    for (int r : m)
      if (r == c.world().rank()) mine_grp = &m;
  const std::vector<int>& grp = *mine_grp;
  std::vector<int64_t> sc(size_t(G), 0), sd(size_t(G), 0), rc(size_t(G), 0), rd(size_t(G), 0);
  for (int p = 0; p < G; ++p)
    for (int64_t l = 0; l < per; ++l) {
      sc[size_t(p)] += o.send_sizes[size_t(p * per + l)] * row;
      rc[size_t(p)] += o.recv_sizes[size_t(p * per + l)] * row;
    }
  for (int p = 1; p < G; ++p) sd[size_t(p)] = sd[size_t(p - 1)] + sc[size_t(p - 1)], rd[size_t(p)] = rd[size_t(p - 1)] + rc[size_t(p - 1)];
  Tensor send = Tensor::empty({sd.back() + sc.back()}, output.dtype());
  Tensor recv = Tensor::empty({rd.back() + rc.back()}, output.dtype());
  char* sp = send.data<char>();
  for (size_t k = 0; k < K; ++k, sp += o.send_sizes[k - 1] * row_bytes)
    std::memcpy(sp, operand.data<char>() + o.input_offsets[k] * row_bytes, size_t(o.send_sizes[k] * row_bytes));
  {
    WatchScope w(c.watchdog, what(op, operand, g));
    gc.all_to_all_v(send.raw(), sc, sd, recv.raw(), rc, rd, output.dtype());
  }
  Tensor result = Tensor::empty(output.shape(), output.dtype());
  std::memcpy(result.raw(), output.raw(), output.nbytes());
  const char* rp = recv.data<char>();
  for (int i = 0; i < G; ++i)
    for (int64_t l = 0; l < per; ++l) {
      const int64_t j = i * per + l, rows = o.recv_sizes[size_t(j)];
      std::memcpy(result.data<char>() + out_off(grp[size_t(i)], gc.rank() * per + l) * row_bytes, rp, size_t(rows * row_bytes));
      rp += rows * row_bytes;
    }
  return result;
}

}  // namespace tandem::comm
