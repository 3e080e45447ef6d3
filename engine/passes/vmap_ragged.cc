// Ragged batch axes (vmap_ragged.h): every operation is built from static slices of the
// concatenation, so each item's values are computed by exactly the ops a per-item program
// would run (the suite compares item by item on the reference).
#include "engine/passes/vmap_ragged.h"

#include <algorithm>
#include <numeric>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/prims/batch_rules.h"  // move_axis

namespace tandem {
namespace {

// Item i of x: its slice of the concatenation (the ragged axis keeps its place).
Value item(const Ragged& x, int64_t i, int64_t offset) {
  std::vector<int64_t> start(size_t(x.data.rank()), 0), limit = x.data.shape();
  start[size_t(x.axis)] = offset;
  limit[size_t(x.axis)] = offset + x.segment_lens[size_t(i)];
  return slice(x.data, start, limit);
}

template <class F>
void for_each_item(const Ragged& x, F f) {
  int64_t off = 0;
  const bool early = fault_on(Fault::vmap_ragged_offset_off_by_one);  // fault: items start a row early
  for (int64_t i = 0; i < x.items(); ++i) {
    f(i, item(x, i, early && off > 0 ? off - 1 : off));
    off += x.segment_lens[size_t(i)];
  }
}

Value with_leading_one(Value v) {
  Shape s = v.shape();
  s.insert(s.begin(), 1);
  return reshape(v, s);
}

Value segment_reduce(const Ragged& x, bool is_max) {
  std::vector<Value> rows;
  for_each_item(x, [&](int64_t, Value v) {
    rows.push_back(with_leading_one(is_max ? reduce_max(v, {x.axis}) : reduce_sum(v, {x.axis})));
  });
  return concatenate(rows, 0);
}

}  // namespace

int64_t Ragged::max_len() const {
  return segment_lens.empty() ? 0 : *std::max_element(segment_lens.begin(), segment_lens.end());
}

Ragged make_ragged(Value data, int64_t axis, std::vector<int64_t> lens) {
  int a = normalize_axis(axis, data.rank(), "ragged axis");
  int64_t sum = 0;
  for (size_t i = 0; i < lens.size(); ++i) {
    if (lens[i] < 0)
      throw_bad_input(cat("ragged: segment_lens[", i, "] = ", lens[i], " is negative"),
                      "each item's length along the ragged axis is >= 0");
    sum += lens[i];
  }
  if (lens.empty() || sum != data.shape()[size_t(a)])
    throw_bad_input(cat("ragged: segment_lens sum to ", sum, " over ", lens.size(), " items but axis ", a, " of ",
                        data.type().str(), " has ", data.shape()[size_t(a)]),
                    "segment_lens lists every item's length; they must add up to the concatenated axis");
  return Ragged{data, a, std::move(lens)};
}

Ragged ragged_map(const std::function<Value(const std::vector<Value>&)>& f, const std::vector<Ragged>& xs) {
  if (xs.empty()) throw_bad_input("ragged_map of no operands", "pass at least one ragged value");
  std::vector<Value> data;
  for (const Ragged& x : xs) {
    if (x.segment_lens != xs[0].segment_lens || x.axis != xs[0].axis || x.data.shape() != xs[0].data.shape())
      throw_bad_input("ragged_map: operands are segmented differently",
                      "elementwise ops need one segmentation; pad_to_max both or re-segment first");
    data.push_back(x.data);
  }
  Value y = f(data);
  if (y.shape() != xs[0].data.shape())
    throw_bad_input(cat("ragged_map: the function changed the shape ", xs[0].data.type().str(), " to ", y.type().str()),
                    "only elementwise functions keep a ragged axis; reduce with segment_sum");
  return Ragged{y, xs[0].axis, xs[0].segment_lens};
}

Value segment_sum(const Ragged& x) { return segment_reduce(x, false); }
Value segment_max(const Ragged& x) { return segment_reduce(x, true); }

Value pad_to_max(const Ragged& x, double pad) {
  int64_t m = x.max_len();
  std::vector<Value> rows;
  for_each_item(x, [&](int64_t i, Value v) {
    Value f = move_axis(v, x.axis, 0);  // [len_i, rest...]
    int64_t len = x.segment_lens[size_t(i)];
    if (len < m) {
      Shape fill = f.shape();
      fill[0] = m - len;
      Value p = broadcast_in_dim(x.data.builder()->literal(pad, x.data.dtype()), fill, {});
      f = len == 0 ? p : concatenate({f, p}, 0);
    }
    rows.push_back(with_leading_one(f));
  });
  return concatenate(rows, 0);
}

Ragged unpad(Value padded, int64_t axis, const std::vector<int64_t>& lens) {
  if (padded.rank() < 2 || padded.shape()[0] != int64_t(lens.size()))
    throw_bad_input(cat("unpad: ", padded.type().str(), " is not [", lens.size(), " items, max_len, ...]"),
                    "unpad takes what pad_to_max makes");
  int a = normalize_axis(axis, padded.rank() - 1, "unpad axis");
  std::vector<Value> parts;
  for (size_t i = 0; i < lens.size(); ++i) {
    if (lens[i] > padded.shape()[1] || lens[i] < 0)
      throw_bad_input(cat("unpad: segment_lens[", i, "] = ", lens[i], " outside [0, ", padded.shape()[1], "]"));
    std::vector<int64_t> start(size_t(padded.rank()), 0), limit = padded.shape();
    start[0] = int64_t(i);
    limit[0] = int64_t(i) + 1;
    limit[1] = lens[i];
    Value v = slice(padded, start, limit);
    Shape s(v.shape().begin() + 1, v.shape().end());
    parts.push_back(move_axis(reshape(v, s), 0, a));
  }
  Value data = concatenate(parts, a);
  return make_ragged(data, a, lens);
}

Ragged ragged_dot(const Ragged& x, Value w, const std::string& precision) {
  if (x.axis != 0 || x.data.rank() != 2)
    throw_bad_input(cat("ragged_dot: x is ", x.data.type().str(), " ragged on axis ", x.axis),
                    "ragged_dot takes [total, K] ragged on axis 0");
  return Ragged{dot(x.data, w, precision), 0, x.segment_lens};
}

RaggedLstm ragged_lstm(const Ragged& xs, Value h0, Value c0, Value w, const Params& lstm) {
  if (xs.axis != 0 || xs.data.rank() != 2)
    throw_bad_input(cat("ragged_lstm: sequences are ", xs.data.type().str(), " ragged on axis ", xs.axis),
                    "pass items [T_i, input] concatenated on axis 0");
  for (size_t i = 0; i < xs.segment_lens.size(); ++i)
    if (xs.segment_lens[i] < 1)
      throw_bad_input(cat("ragged_lstm: sequence ", i, " has length ", xs.segment_lens[i]),
                      "tandem rejects length 0 (as cuDNN does): drop empty sequences");
  Builder* b = xs.data.builder();
  std::vector<Value> lens;
  for (int64_t l : xs.segment_lens) lens.push_back(broadcast_in_dim(b->literal(double(l), DType::i32), {1}, {}));
  Value seq_lengths = concatenate(lens, 0);
  std::vector<Value> o = b->bind("lstm_fwd", {pad_to_max(xs), h0, c0, w, seq_lengths}, lstm);
  return RaggedLstm{unpad(o[0], 0, xs.segment_lens), o[1], o[2]};
}

}  // namespace tandem
