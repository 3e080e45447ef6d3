// Ragged batch axes (the seed's ConcatAxis / pile): a batch of items whose lengths differ
// along one axis, stored concatenated along that axis with their segment_lens (static, as
// every shape in the IR). Elementwise ops stay elementwise on the concatenation; reductions
// over the ragged axis become segment_sum / segment_max (one row per item); a contraction
// over another axis (ragged_dot) keeps the ragged axis free; padding to a rectangular batch
// (pad_to_max) and back (unpad) is explicit; the LSTM runs a ragged batch of sequences as
// one padded batch with seq_lengths = segment_lens.
#pragma once
#include <functional>
#include <vector>

#include "engine/ir/builder.h"

namespace tandem {

struct Ragged {
  Value data;                          // items concatenated along `axis`
  int axis = 0;
  std::vector<int64_t> segment_lens;   // one per item, summing to data's extent on axis
  int64_t items() const { return int64_t(segment_lens.size()); }
  int64_t max_len() const;
};

// Checks the representation: a bad-input error with a hint when a length is negative or the
// lengths do not sum to the axis.
Ragged make_ragged(Value data, int64_t axis, std::vector<int64_t> segment_lens);

// An elementwise function of ragged operands with one segmentation (and any unmapped rank-0
// values it closes over): applied to the concatenations, it stays ragged.
Ragged ragged_map(const std::function<Value(const std::vector<Value>&)>& f, const std::vector<Ragged>& xs);

// One row per item: [items, rest...] (the ragged axis reduced; an empty item sums to 0 and
// its max is -inf, as reduce_sum / reduce_max of an empty axis).
Value segment_sum(const Ragged& x);
Value segment_max(const Ragged& x);

// [items, max_len, rest...] with `pad` past each item's length; unpad inverts it, putting
// the ragged axis back at `axis` of the concatenation.
Value pad_to_max(const Ragged& x, double pad = 0);
Ragged unpad(Value padded, int64_t axis, const std::vector<int64_t>& segment_lens);

// x [total, K] (ragged on axis 0) · w [K, N] → ragged [total, N].
Ragged ragged_dot(const Ragged& x, Value w, const std::string& precision = "HIGHEST");

// The LSTM over a ragged batch of sequences: xs items [T_i, I] concatenated on axis 0, h0/c0
// [S, items, H], w packed; `lstm` are lstm_fwd's params. y is ragged like xs ([T_i, D*H]).
struct RaggedLstm {
  Ragged y;
  Value h_n, c_n;
};
RaggedLstm ragged_lstm(const Ragged& xs, Value h0, Value c0, Value w, const Params& lstm);

}  // namespace tandem
