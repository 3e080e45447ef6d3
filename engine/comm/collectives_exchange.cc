// The exchange collectives: all_to_all (and pswapaxes), ppermute (and pshuffle),
// pbroadcast, with JAX semantics over any Communicator (ragged_all_to_all: ragged.cc).
// Local copies, fills and block transposes go through the communicator's LocalOps, so each
// op runs on host (MPI) and device (NCCL) buffers alike.

#include "engine/comm/collectives_impl.h"
#include "engine/comm/validate.h"
#include "engine/comm/watchdog.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"

namespace tandem::comm {
using namespace detail;

Shape all_to_all_shape(const Shape& x, int G, int64_t split, int64_t concat, bool tiled) {
  const int r = int(x.size());
  const int s = normalize_axis(split, r, "all_to_all split_axis");
  const int c = normalize_axis(concat, r, "all_to_all concat_axis");
  if (tiled ? x[s] % G != 0 : x[s] != G)
    throw_bad_input(cat("all_to_all: split_axis ", split, " has size ", x[s],
                        tiled ? ", not divisible by" : ", which must equal", " the group size ", G),
                    tiled ? "pad the axis to a multiple of the group size" : "use tiled=true to split a longer axis");
  Shape out = x;
  if (tiled) {
    out[s] /= G;
    out[c] *= G;
  } else {
    out.erase(out.begin() + s);
    out.insert(out.begin() + c, G);
  }
  return out;
}

void all_to_all_into(Collectives& c, const Tensor& x, const Tensor& out, int64_t split, int64_t concat,
                     bool tiled, const Groups& g) {
  Communicator& gc = prepare(c, "all_to_all", c.validate ? sig("all_to_all", x, cat("split=", split, " concat=", concat, " tiled=", tiled), g) : std::string(),
                             g, true, [&](int G) {
                               check_out(out, all_to_all_shape(x.shape(), G, split, concat, tiled), x.dtype(), "all_to_all");
                             });
  const int s = normalize_axis(split, x.rank(), "split_axis"), ca = normalize_axis(concat, x.rank(), "concat_axis");
  const int64_t G = gc.size(), block = x.numel() / G, esize = dtype_size(x.dtype());
  // Send side: x as [pre_s, G, rest] → blocks [G, pre_s, rest]. Receive side: the block from
  // member i has x's shape with the split axis shrunk (tiled) or dropped (untiled); they are
  // joined along concat: [G, pre_c, rest_c] → out [pre_c, G, rest_c].
  Shape chunk = x.shape();
  chunk[s] /= G;
  if (!tiled) chunk.erase(chunk.begin() + s);
  const int64_t pre_s = prod(x.shape(), 0, size_t(s)), pre_c = prod(chunk, 0, size_t(ca));
  WatchScope w(c.watchdog, what("all_to_all", x, g));
  if (pre_s == 1 && pre_c == 1) return gc.all_to_all(x.raw(), out.raw(), block, x.dtype());
  Tensor send = x, recv = out;
  if (pre_s != 1) {
    send = Tensor::empty({x.numel()}, x.dtype(), x.device());
    gc.local().swap01(x.raw(), send.raw(), pre_s, G, block / pre_s * esize);
  }
  if (pre_c != 1) recv = Tensor::empty({x.numel()}, x.dtype(), x.device());
  gc.all_to_all(send.raw(), recv.raw(), block, x.dtype());
  if (pre_c != 1) gc.local().swap01(recv.raw(), out.raw(), G, pre_c, block / pre_c * esize);
}

Tensor all_to_all(Collectives& c, const Tensor& x, int64_t split, int64_t concat, bool tiled, const Groups& g) {
  const int G = group_size_hint(c, g);
  Tensor out = Tensor::empty(shape_or(x.shape(), [&] { return all_to_all_shape(x.shape(), G, split, concat, tiled); }),
                             x.dtype(), x.device());
  all_to_all_into(c, x, out, split, concat, tiled, g);
  return out;
}

Tensor pswapaxes(Collectives& c, const Tensor& x, int64_t axis, const Groups& g) {
  return all_to_all(c, x, axis, axis, false, g);
}

void ppermute_into(Collectives& c, const Tensor& x, const Tensor& out, const std::vector<std::pair<int, int>>& perm) {
  std::string p;
  for (auto [s, d] : perm) p += cat("(", s, ",", d, ")");
  Communicator& w = prepare(c, "ppermute", c.validate ? sig("ppermute", x, "perm=" + p, {}) : std::string(), {}, false, [&](int n) {
    check_perm(perm, n);
    check_out(out, x.shape(), x.dtype(), "ppermute");
    if (x.raw() == out.raw()) throw_bad_input("ppermute cannot run in place", "pass a separate output tensor");
  });
  // Fault: one pair routed to a wrong rank (the first two destinations exchanged, alike on
  // every rank, so the transfers still match).
  std::vector<std::pair<int, int>> routed = perm;
  if (fault_on(Fault::coll_ppermute_one_wrong_rank) && perm.size() >= 2) std::swap(routed[0].second, routed[1].second);
  int dst = -1, src = -1;
  for (auto [s, d] : routed) {
    if (s == w.rank()) dst = d;
    if (d == w.rank()) src = s;
  }
  WatchScope scope(c.watchdog, what("ppermute", x, {}));
  // A self pair is a local copy (no transfer); the other ranks' send / receive pairs do not
  // involve this one (a permutation), so skipping the transport here leaves none waiting.
  if (src == w.rank() && dst == w.rank()) {
    w.local().copy({{x.raw(), out.raw(), int64_t(x.nbytes())}});
    return;
  }
  w.send_recv(x.raw(), dst, out.raw(), src, x.numel(), x.dtype());
  if (src < 0) w.local().zero(out.raw(), int64_t(out.nbytes()));  // no source: zeros (JAX)
}

Tensor ppermute(Collectives& c, const Tensor& x, const std::vector<std::pair<int, int>>& perm) {
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  ppermute_into(c, x, out, perm);
  return out;
}

Tensor pshuffle(Collectives& c, const Tensor& x, const std::vector<int>& perm) {
  const int n = c.world().size();
  std::vector<int> seen(size_t(n), 0);
  bool ok = int(perm.size()) == n;
  for (int p : perm) ok = ok && p >= 0 && p < n && !seen[size_t(p)]++;
  if (!ok) throw_bad_input(cat("pshuffle: perm does not represent a permutation of 0..", n - 1));
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < n; ++i) pairs.push_back({perm[size_t(i)], i});
  return ppermute(c, x, pairs);
}

void pbroadcast_into(Collectives& c, const Tensor& x, const Tensor& out, int source, const Groups& g) {
  Communicator& gc = prepare(c, "pbroadcast", c.validate ? sig("pbroadcast", x, cat("source=", source), g) : std::string(), g, true, [&](int G) {
    if (source < 0 || source >= G)
      throw_bad_input(cat("pbroadcast: source ", source, " is outside the group of size ", G));
    check_out(out, x.shape(), x.dtype(), "pbroadcast");
  });
  // Out of place: the source copies its input into out, then the broadcast runs in place.
  if (gc.rank() == source && out.raw() != x.raw()) gc.local().copy({{x.raw(), out.raw(), int64_t(x.nbytes())}});
  WatchScope w(c.watchdog, what("pbroadcast", x, g));
  gc.broadcast(out.raw(), x.numel(), x.dtype(), source);
}

Tensor pbroadcast(Collectives& c, const Tensor& x, int source, const Groups& g) {
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  pbroadcast_into(c, x, out, source, g);
  return out;
}

}  // namespace tandem::comm
