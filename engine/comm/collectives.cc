// JAX collective semantics over a Communicator. Each op: (1) local argument checks, agreed
// across ranks when ctx.validate; (2) pack so each peer's block is contiguous when the axis
// is not the leading one; (3) one transport call on the group communicator; (4) unpack.
// With the leading axis there is no copy at all, so the op costs what the raw call costs.
// Packing, unpacking and the local math go through the communicator's LocalOps, so every
// op runs on host buffers (MPI) and device buffers (NCCL) alike.
#include "engine/comm/collectives.h"

#include <algorithm>

#include "engine/comm/collectives_impl.h"
#include "engine/comm/job.h"
#include "engine/comm/validate.h"
#include "engine/comm/watchdog.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"

namespace tandem::comm::detail {

int64_t prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

std::string sig(const char* op, const Tensor& x, const std::string& params, const Groups& g) {
  return cat(op, " ", x.type().str(), " ", params, " groups=", groups_str(g));
}

// Local checks + agreement, then the group communicator.
Communicator& prepare(Collectives& c, const char* op, const std::string& signature, const Groups& g,
                      bool equal_sizes, const std::function<void(int group_size)>& check) {
  auto local = [&] {
    check_groups(g, c.world().size(), equal_sizes, op);
    check(g.empty() ? c.world().size() : int(g[0].size()));
  };
  if (c.validate) agree(c.world(), op, signature, local);
  else local();
  return c.group(g);
}

std::function<std::string()> what(const char* op, const Tensor& x, const Groups& g) {
  return [=] { return cat(op, " ", x.type().str(), " (", x.nbytes(), " bytes) groups=", groups_str(g)); };
}

void check_out(const Tensor& out, const Shape& s, DType t, const char* op) {
  if (out.shape() != s || out.dtype() != t)
    throw_bad_input(cat(op, ": out is ", out.type().str(), " but the result is ", AType{s, t}.str()));
}

// For allocating a result before validation: the group size, or 1 for groups that are not
// even well formed (the op's own agreed validation then reports them on every rank).
int group_size_hint(Collectives& c, const Groups& g) {
  return g.empty() ? c.world().size() : std::max<int>(1, int(g[0].size()));
}
Shape shape_or(const Shape& fallback, const std::function<Shape()>& f) {
  try {
    return f();
  } catch (const Error&) {
    return fallback;  // the *_into call reports the error, agreed across ranks
  }
}

// Fault coll_all_gather_rank_reversed: the G member blocks of a host buffer in reverse order.
void reverse_blocks(const Tensor& t, int64_t G) {
  if (t.device().kind != DeviceKind::cpu || G < 2) return;
  char* p = static_cast<char*>(t.raw());
  const size_t block = t.nbytes() / size_t(G);
  for (int64_t i = 0; i < G / 2; ++i) std::swap_ranges(p + i * block, p + (i + 1) * block, p + (G - 1 - i) * block);
}

}  // namespace tandem::comm::detail

namespace tandem::comm {
using namespace detail;

Collectives::Collectives(Communicator& world) : watchdog(&job_watchdog()), world_(world) {}

Communicator& Collectives::group(const Groups& groups) {
  if (groups.empty()) return world_;
  auto it = groups_.find(groups);
  if (it != groups_.end()) return *it->second;
  int color = 0, key = 0;
  for (size_t i = 0; i < groups.size(); ++i)
    for (size_t j = 0; j < groups[i].size(); ++j)
      if (groups[i][j] == world_.rank()) color = int(i), key = int(j);
  if (fault_on(Fault::coll_group_order_ignored)) key = world_.rank();  // fault: listed order lost
  return *(groups_[groups] = world_.split(color, key));
}

void all_reduce_into(Collectives& c, ReduceOp op, const Tensor& x, const Tensor& out, const Groups& g) {
  const char* name = op == ReduceOp::sum ? "psum" : op == ReduceOp::max ? "pmax" : "pmin";
  Communicator& gc = prepare(c, name, c.validate ? sig(name, x, "", g) : std::string(), g, false, [&](int) {
    check_out(out, x.shape(), x.dtype(), name);
    if (x.dtype() == DType::pred)
      throw_bad_input(cat(name, ": all_reduce_into of bool input"), "call psum/pmax/pmin, which convert bool as JAX does");
  });
  WatchScope w(c.watchdog, what(name, x, g));
  gc.all_reduce(x.raw(), out.raw(), x.numel(), x.dtype(), op);
}

namespace {
// bool → i32 / i32 → bool where x is (LocalOps: a loop on host, a kernel on a GPU).
Tensor convert(Collectives& c, const Tensor& x, DType t) {
  Tensor out = Tensor::empty(x.shape(), t, x.device());
  if (t == DType::i32) c.world().local().bool_to_i32(x.data<uint8_t>(), out.data<int32_t>(), x.numel());
  else c.world().local().i32_to_bool(x.data<int32_t>(), out.data<uint8_t>(), x.numel());
  return out;
}

Tensor reduce(Collectives& c, ReduceOp op, const Tensor& x, const Groups& g) {
  // bool (JAX): psum counts the true inputs as int32; pmax / pmin are any / all, as bool.
  if (x.dtype() == DType::pred) {
    Tensor r = reduce(c, op, convert(c, x, DType::i32), g);
    return op == ReduceOp::sum ? r : convert(c, r, DType::pred);
  }
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device());
  all_reduce_into(c, op, x, out, g);
  return out;
}
}  // namespace
Tensor psum(Collectives& c, const Tensor& x, const Groups& g) { return reduce(c, ReduceOp::sum, x, g); }
Tensor pmax(Collectives& c, const Tensor& x, const Groups& g) { return reduce(c, ReduceOp::max, x, g); }
Tensor pmin(Collectives& c, const Tensor& x, const Groups& g) { return reduce(c, ReduceOp::min, x, g); }

Tensor pmean(Collectives& c, const Tensor& x, const Groups& g) {
  // As JAX: psum in the input's own dtype (integers exactly, wrapping like int32), then
  // v / n: integers convert the sum to f32 and divide in f32. Summing in f32 instead loses
  // integers above 2^24. n is this member's own group size (docs/COLLECTIVES.md). The
  // division runs where the sum is (LocalOps::divide: a loop on host, a kernel on a GPU).
  Tensor s = psum(c, x, g);
  const int64_t n = fault_on(Fault::coll_pmean_divides_by_world) ? c.world().size() : c.group(g).size();  // fault
  const DType out_t = is_floating(x.dtype()) ? x.dtype() : DType::f32;
  Tensor out = Tensor::empty(x.shape(), out_t, x.device());
  c.group(g).local().divide(s.raw(), s.dtype(), out.raw(), out_t, s.numel(), n);
  return out;
}

Tensor axis_index(Collectives& c, const Groups& g) {
  Tensor dummy = Tensor::zeros({}, DType::i32);
  prepare(c, "axis_index", c.validate ? sig("axis_index", dummy, "", g) : std::string(), g, false, [](int) {});
  const int index = fault_on(Fault::coll_axis_index_ignores_groups) ? c.world().rank() : c.axis_index(g);  // fault
  return Tensor::from_f64({double(index)}, {}, DType::i32);
}

namespace {
Tensor arg_reduce(Collectives& c, ReduceOp op, const Tensor& x_in, const Groups& g) {
  // bool as i32 0 / 1, so the max / min and the offer compare integers.
  const Tensor x = x_in.dtype() == DType::pred ? convert(c, x_in, DType::i32) : x_in;
  Tensor best = reduce(c, op, x, g);
  // Ranks holding the best value offer their axis index (a NaN best, which pmax / pmin
  // propagate, is held by the ranks holding a NaN); the lowest offer wins (an i32 pmin).
  Tensor idx = Tensor::empty(x.shape(), DType::i32, x.device());
  c.group(g).local().offer_index(x.raw(), best.raw(), x.dtype(), x.numel(), c.axis_index(g), idx.data<int32_t>());
  return pmin(c, idx, g);
}
}  // namespace
Tensor pargmax(Collectives& c, const Tensor& x, const Groups& g) { return arg_reduce(c, ReduceOp::max, x, g); }
Tensor pargmin(Collectives& c, const Tensor& x, const Groups& g) { return arg_reduce(c, ReduceOp::min, x, g); }

Shape all_gather_shape(const Shape& x, int G, int64_t axis, bool tiled) {
  Shape s = x;
  const int a = normalize_axis(axis, int(x.size()) + (tiled ? 0 : 1), "all_gather axis");
  if (tiled) s[a] *= G;
  else s.insert(s.begin() + a, G);
  return s;
}

void all_gather_into(Collectives& c, const Tensor& x, const Tensor& out, int64_t axis, bool tiled, const Groups& g) {
  Communicator& gc = prepare(c, "all_gather", c.validate ? sig("all_gather", x, cat("axis=", axis, " tiled=", tiled), g) : std::string(), g, true,
                             [&](int G) { check_out(out, all_gather_shape(x.shape(), G, axis, tiled), x.dtype(), "all_gather"); });
  const int a = normalize_axis(axis, x.rank() + (tiled ? 0 : 1), "all_gather axis");
  const int64_t pre = prod(x.shape(), 0, size_t(a)), G = gc.size();
  WatchScope w(c.watchdog, what("all_gather", x, g));
  const bool reversed = fault_on(Fault::coll_all_gather_rank_reversed);  // fault: members reversed
  if (pre == 1) {
    gc.all_gather(x.raw(), out.raw(), x.numel(), x.dtype());
    if (reversed) reverse_blocks(out, G);
    return;
  }
  Tensor buf = Tensor::empty({G, x.numel()}, x.dtype(), x.device());  // [G, pre, inner] → out [pre, G, inner]
  gc.all_gather(x.raw(), buf.raw(), x.numel(), x.dtype());
  if (reversed) reverse_blocks(buf, G);
  gc.local().swap01(buf.raw(), out.raw(), G, pre, int64_t(x.nbytes()) / pre);
}

Tensor all_gather(Collectives& c, const Tensor& x, int64_t axis, bool tiled, const Groups& g) {
  const int G = group_size_hint(c, g);
  Tensor out = Tensor::empty(shape_or(x.shape(), [&] { return all_gather_shape(x.shape(), G, axis, tiled); }),
                             x.dtype(), x.device());
  all_gather_into(c, x, out, axis, tiled, g);
  return out;
}

Shape psum_scatter_shape(const Shape& x, int G, int64_t dim, bool tiled) {
  const int d = normalize_axis(dim, int(x.size()), "psum_scatter scatter_dimension");
  if (tiled ? x[d] % G != 0 : x[d] != G)
    throw_bad_input(cat("psum_scatter: scatter_dimension ", dim, " has size ", x[d],
                        tiled ? ", not divisible by" : ", which must equal", " the group size ", G),
                    tiled ? "pad the dimension to a multiple of the group size" : "use tiled=true to split a longer dimension");
  Shape s = x;
  if (tiled) s[d] /= G;
  else s.erase(s.begin() + d);
  return s;
}

void psum_scatter_into(Collectives& c, const Tensor& x, const Tensor& out, int64_t dim, bool tiled, const Groups& g) {
  Communicator& gc = prepare(c, "psum_scatter", c.validate ? sig("psum_scatter", x, cat("dim=", dim, " tiled=", tiled), g) : std::string(), g, true,
                             [&](int G) { check_out(out, psum_scatter_shape(x.shape(), G, dim, tiled), x.dtype(), "psum_scatter"); });
  const int d = normalize_axis(dim, x.rank(), "psum_scatter scatter_dimension");
  const int64_t pre = prod(x.shape(), 0, size_t(d)), G = gc.size(), count = x.numel() / G;
  WatchScope w(c.watchdog, what("psum_scatter", x, g));
  if (pre == 1) return gc.reduce_scatter(x.raw(), out.raw(), count, x.dtype(), ReduceOp::sum);
  Tensor packed = Tensor::empty({G, count}, x.dtype(), x.device());  // [pre, G, chunk] → [G, pre, chunk]
  gc.local().swap01(x.raw(), packed.raw(), pre, G, int64_t(x.nbytes()) / (pre * G));
  gc.reduce_scatter(packed.raw(), out.raw(), count, x.dtype(), ReduceOp::sum);
}

Tensor psum_scatter(Collectives& c, const Tensor& x, int64_t dim, bool tiled, const Groups& g) {
  const int G = group_size_hint(c, g);
  Tensor out = Tensor::empty(shape_or(x.shape(), [&] { return psum_scatter_shape(x.shape(), G, dim, tiled); }),
                             x.dtype(), x.device());
  psum_scatter_into(c, x, out, dim, tiled, g);
  return out;
}

}  // namespace tandem::comm
