// The collectives model: each op is written from the JAX docstring as "for each group, for
// each member", on whole arrays, with structure ops (slice, concatenate, reshape) from the
// reference itself. Nothing here knows about ranks being processes.
#include "reference/collectives.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include "reference/rounding.h"
#include "reference/structure.h"

namespace tandem::ref {
namespace {

std::string str(const char* op, const std::string& msg) { return std::string(op) + ": " + msg; }

int64_t norm_axis(int64_t axis, int64_t rank, const char* op) {
  require(axis >= -rank && axis < rank,
          str(op, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank)));
  return axis < 0 ? axis + rank : axis;
}

// Every rank's input must share one shape and dtype (as under pmap).
void check_same(const PerRank& xs, const char* op) {
  require(!xs.empty(), str(op, "no ranks"));
  for (const Array& x : xs) {
    check_array(x, op);
    require(x.shape == xs[0].shape && x.dtype == xs[0].dtype,
            str(op, "ranks disagree on shape/dtype: " + shape_string(x.shape) + " vs " + shape_string(xs[0].shape)));
  }
}

// Slice [start, start+len) of `axis`.
Array take(const Array& x, int64_t axis, int64_t start, int64_t len) {
  std::vector<int64_t> lo(x.shape.size(), 0), hi = x.shape;
  lo[axis] = start;
  hi[axis] = start + len;
  return slice(x, lo, hi, {});
}

Array insert_unit_axis(const Array& x, int64_t axis) {
  std::vector<int64_t> s = x.shape;
  s.insert(s.begin() + axis, 1);
  return reshape(x, s);
}

Array drop_axis(const Array& x, int64_t axis) {
  std::vector<int64_t> s = x.shape;
  s.erase(s.begin() + axis);
  return reshape(x, s);
}

enum class Red { sum, max, min };

PerRank reduce(const PerRank& xs, const Groups& groups, Red red, const char* op) {
  check_same(xs, op);
  const Groups g = check_groups(groups, int(xs.size()), false, op);
  PerRank out(xs.size());
  for (const auto& members : g) {
    Array acc = xs[members[0]];
    if (acc.dtype == DType::pred && red == Red::sum) acc.dtype = DType::i32;  // JAX: a count
    for (size_t m = 1; m < members.size(); ++m)
      for (size_t i = 0; i < acc.data.size(); ++i) {
        double v = xs[members[m]].data[i];
        double& a = acc.data[i];
        if (red == Red::sum) a += v;
        else if (std::isnan(v) || std::isnan(a)) a = std::numeric_limits<double>::quiet_NaN();
        else if (a == v) a = (red == Red::max) == std::signbit(a) ? v : a;  // max(-0,+0) = +0, min = -0
        else a = red == Red::max ? std::max(a, v) : std::min(a, v);
      }
    for (double& v : acc.data) v = round_to(acc.dtype, v);
    for (int r : members) out[r] = acc;
  }
  return out;
}

// pargmax/pargmin's match: equal, or both NaN (a NaN max is held by the first NaN's rank).
bool same_value(double x, double best) { return x == best || (std::isnan(x) && std::isnan(best)); }

PerRank argreduce(const PerRank& xs, const Groups& groups, Red red, const char* op) {
  const PerRank best = reduce(xs, groups, red, op);
  const Groups g = check_groups(groups, int(xs.size()), false, op);
  PerRank out(xs.size());
  for (const auto& members : g)
    for (int r : members) {
      Array idx = full(xs[r].shape, DType::i32, 0);
      for (size_t i = 0; i < idx.data.size(); ++i)
        for (size_t pos = 0; pos < members.size(); ++pos)
          if (same_value(xs[members[pos]].data[i], best[r].data[i])) { idx.data[i] = double(pos); break; }
      out[r] = idx;
    }
  return out;
}

}  // namespace

Groups check_groups(const Groups& groups, int n, bool equal_sizes, const char* op) {
  if (groups.empty()) {
    std::vector<int> all(n);
    for (int i = 0; i < n; ++i) all[i] = i;
    return {all};
  }
  std::set<int> seen;
  size_t count = 0;
  for (const auto& grp : groups) {
    require(!grp.empty(), str(op, "axis_index_groups has an empty group"));
    require(!equal_sizes || grp.size() == groups[0].size(), str(op, "axis_index_groups must all be the same size"));
    for (int r : grp) {
      require(r >= 0 && r < n, str(op, "axis_index_groups names index " + std::to_string(r) +
                                           " outside 0.." + std::to_string(n - 1)));
      seen.insert(r);
      ++count;
    }
  }
  require(count == size_t(n) && seen.size() == size_t(n),
          str(op, "axis_index_groups must cover all indices exactly once"));
  return groups;
}

PerRank psum(const PerRank& xs, const Groups& g) { return reduce(xs, g, Red::sum, "psum"); }
PerRank pmax(const PerRank& xs, const Groups& g) { return reduce(xs, g, Red::max, "pmax"); }
PerRank pmin(const PerRank& xs, const Groups& g) { return reduce(xs, g, Red::min, "pmin"); }
PerRank pargmax(const PerRank& xs, const Groups& g) { return argreduce(xs, g, Red::max, "pargmax"); }
PerRank pargmin(const PerRank& xs, const Groups& g) { return argreduce(xs, g, Red::min, "pargmin"); }

PerRank pmean(const PerRank& xs, const Groups& groups) {
  check_same(xs, "pmean");
  const Groups g = check_groups(groups, int(xs.size()), false, "pmean");
  const DType out_t = is_floating(xs[0].dtype) ? xs[0].dtype : DType::f32;
  PerRank out(xs.size());
  for (const auto& members : g) {
    Array acc = full(xs[0].shape, out_t, 0);
    for (size_t i = 0; i < acc.data.size(); ++i) {
      double s = 0;
      for (int r : members) s += xs[r].data[i];
      const double n = double(members.size());
      // Integers (JAX): the int32 sum (wrapping), converted to f32, divided in f32.
      acc.data[i] = is_floating(xs[0].dtype) ? round_to(out_t, s / n)
                                              : round_to(DType::f32, round_to(DType::f32, round_to(DType::i32, s)) / n);
    }
    for (int r : members) out[r] = acc;
  }
  return out;
}

PerRank axis_index(int n, const Groups& groups) {
  const Groups g = check_groups(groups, n, false, "axis_index");
  PerRank out(n);
  for (const auto& members : g)
    for (size_t pos = 0; pos < members.size(); ++pos) out[members[pos]] = scalar(DType::i32, double(pos));
  return out;
}

PerRank all_gather(const PerRank& xs, int64_t axis, bool tiled, const Groups& groups) {
  check_same(xs, "all_gather");
  const Groups g = check_groups(groups, int(xs.size()), true, "all_gather");
  const int64_t a = norm_axis(axis, xs[0].rank() + (tiled ? 0 : 1), "all_gather");
  PerRank out(xs.size());
  for (const auto& members : g) {
    std::vector<Array> parts;
    for (int r : members) parts.push_back(tiled ? xs[r] : insert_unit_axis(xs[r], a));
    Array y = concatenate(parts, a);
    for (int r : members) out[r] = y;
  }
  return out;
}

PerRank psum_scatter(const PerRank& xs, int64_t dim, bool tiled, const Groups& groups) {
  check_same(xs, "psum_scatter");
  const Groups g = check_groups(groups, int(xs.size()), true, "psum_scatter");
  const int64_t d = norm_axis(dim, xs[0].rank(), "psum_scatter");
  const int64_t G = int64_t(g[0].size()), size = xs[0].shape[d];
  require(tiled ? size % G == 0 : size == G, str("psum_scatter", "scatter_dimension size " + std::to_string(size) +
                                                                     (tiled ? " not divisible by" : " must equal") +
                                                                     " the group size " + std::to_string(G)));
  const PerRank sums = psum(xs, groups);
  PerRank out(xs.size());
  for (const auto& members : g)
    for (int64_t pos = 0; pos < G; ++pos) {
      Array chunk = take(sums[members[pos]], d, pos * (size / G), size / G);
      out[members[pos]] = tiled ? chunk : drop_axis(chunk, d);
    }
  return out;
}

PerRank all_to_all(const PerRank& xs, int64_t split_axis, int64_t concat_axis, bool tiled, const Groups& groups) {
  check_same(xs, "all_to_all");
  const Groups g = check_groups(groups, int(xs.size()), true, "all_to_all");
  const int64_t rank = xs[0].rank();
  const int64_t s = norm_axis(split_axis, rank, "all_to_all");
  const int64_t c = norm_axis(concat_axis, rank, "all_to_all");
  const int64_t G = int64_t(g[0].size()), size = xs[0].shape[s];
  require(tiled ? size % G == 0 : size == G,
          str("all_to_all", "split_axis size " + std::to_string(size) + (tiled ? " not divisible by" : " must equal") +
                                " the group size " + std::to_string(G)));
  const int64_t chunk = size / G;
  PerRank out(xs.size());
  for (const auto& members : g)
    for (int64_t me = 0; me < G; ++me) {
      std::vector<Array> parts;  // part i: what member i sent to me
      for (int64_t i = 0; i < G; ++i) {
        Array p = take(xs[members[i]], s, me * chunk, chunk);
        parts.push_back(tiled ? p : insert_unit_axis(drop_axis(p, s), c));
      }
      out[members[me]] = concatenate(parts, c);
    }
  return out;
}

PerRank pswapaxes(const PerRank& xs, int64_t axis, const Groups& groups) {
  return all_to_all(xs, axis, axis, false, groups);
}

PerRank ppermute(const PerRank& xs, const std::vector<std::pair<int, int>>& perm) {
  check_same(xs, "ppermute");
  const int n = int(xs.size());
  std::set<int> srcs, dsts;
  for (auto [src, dst] : perm) {
    require(src >= 0 && src < n && dst >= 0 && dst < n,
            str("ppermute", "pair (" + std::to_string(src) + ", " + std::to_string(dst) +
                                ") out of range for axis size " + std::to_string(n)));
    require(srcs.insert(src).second && dsts.insert(dst).second,
            str("ppermute", "sources and destinations must be unique"));
  }
  PerRank out(n, full(xs[0].shape, xs[0].dtype, 0));
  for (auto [src, dst] : perm) out[dst] = xs[src];
  return out;
}

PerRank pshuffle(const PerRank& xs, const std::vector<int>& perm) {
  const int n = int(xs.size());
  std::set<int> s(perm.begin(), perm.end());
  require(int(perm.size()) == n && s.size() == perm.size() && *s.begin() == 0 && *s.rbegin() == n - 1,
          str("pshuffle", "perm does not represent a permutation of 0.." + std::to_string(n - 1)));
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < n; ++i) pairs.push_back({perm[i], i});
  return ppermute(xs, pairs);
}

PerRank pbroadcast(const PerRank& xs, int source, const Groups& groups) {
  check_same(xs, "pbroadcast");
  const Groups g = check_groups(groups, int(xs.size()), true, "pbroadcast");
  require(source >= 0 && source < int(g[0].size()),
          str("pbroadcast", "source " + std::to_string(source) + " outside the group"));
  PerRank out(xs.size());
  for (const auto& members : g)
    for (int r : members) out[r] = xs[members[source]];
  return out;
}

PerRank pgather(const PerRank& xs, const std::vector<int64_t>& idx_shape, const std::vector<int64_t>& idx,
                const Groups& groups) {
  check_same(xs, "pgather");
  const Groups g = check_groups(groups, int(xs.size()), true, "pgather");
  require(shape_numel(idx_shape) == int64_t(idx.size()), str("pgather", "idx does not fill its shape"));
  std::vector<int64_t> shape = idx_shape;
  shape.insert(shape.end(), xs[0].shape.begin(), xs[0].shape.end());
  PerRank out(xs.size());
  for (const auto& members : g) {
    Array y = full(shape, xs[0].dtype, 0);
    const size_t row = xs[0].data.size();
    for (size_t j = 0; j < idx.size(); ++j) {
      const int64_t k = std::min<int64_t>(std::max<int64_t>(idx[j], 0), int64_t(members.size()) - 1);
      std::copy(xs[members[k]].data.begin(), xs[members[k]].data.end(), y.data.begin() + j * row);
    }
    for (int r : members) out[r] = y;
  }
  return out;
}

PerRank ragged_all_to_all(const std::vector<RaggedArgs>& args, const Groups& groups) {
  const char* op = "ragged_all_to_all";
  const int n = int(args.size());
  require(n > 0, str(op, "no ranks"));
  const Groups g = check_groups(groups, n, true, op);
  const int64_t G = int64_t(g[0].size());
  const size_t K = args[0].input_offsets.size();
  for (const RaggedArgs& a : args) {
    require(K >= 1 && a.send_sizes.size() == K && a.output_offsets.size() == K &&
                a.recv_sizes.size() == K && a.input_offsets.size() == K,
            str(op, "offsets and sizes must all have one length K >= 1 on every rank"));
    require(a.operand.rank() >= 1 && a.output.rank() == a.operand.rank() &&
                std::equal(a.operand.shape.begin() + 1, a.operand.shape.end(), a.output.shape.begin() + 1) &&
                a.operand.dtype == a.output.dtype && a.output.shape == args[0].output.shape,
            str(op, "operand [N,...] and output [M,...] must share trailing dims and dtype"));
  }
  require(int64_t(K) % G == 0, str(op, "K = " + std::to_string(K) +
                                          " is not divisible by the group size " + std::to_string(G)));
  const int64_t per = int64_t(K) / G;
  const int64_t row = shape_numel({args[0].output.shape.begin() + 1, args[0].output.shape.end()});
  PerRank out(n);
  for (int r = 0; r < n; ++r) out[r] = args[r].output;
  for (const auto& members : g)
    for (int64_t si = 0; si < G; ++si)
      for (int64_t k = 0; k < int64_t(K); ++k) {
        const RaggedArgs& s = args[members[si]];
        const int64_t di = k / per, j = si * per + k % per;  // slice k lands as slice j there
        const RaggedArgs& d = args[members[di]];
        const std::string where = " (sender " + std::to_string(members[si]) + ", slice " + std::to_string(k) + ")";
        require(s.send_sizes[k] == d.recv_sizes[j], str(op, "send_sizes must equal all_to_all(recv_sizes)" + where));
        const int64_t in0 = s.input_offsets[k], out0 = s.output_offsets[k], len = s.send_sizes[k];
        require(len >= 0 && in0 >= 0 && in0 + len <= s.operand.shape[0],
                str(op, "input slice out of bounds of operand" + where));
        require(out0 >= 0 && out0 + len <= d.output.shape[0],
                str(op, "output slice out of bounds of the receiver's output" + where));
        std::copy_n(s.operand.data.begin() + in0 * row, len * row, out[members[di]].data.begin() + out0 * row);
      }
  return out;
}

}  // namespace tandem::ref
