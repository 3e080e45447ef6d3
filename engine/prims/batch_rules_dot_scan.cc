// Batching rules for dot_general (a new batch dimension, or a free one moved into place), the higher-order primitives
// scan and checkpoint (their bodies batched as JAX's batch_jaxpr, scan's carries to a fixed point) and the LSTM (the
// vmapped axis merged into the LSTM's own batch when the weights are shared, a per-example loop otherwise).
#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/prims/batch_rules.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;
using Axes = std::vector<BatchAxis>;

void set(const char* name, BatchRule r) { mutable_primitive(name).batch = std::move(r); }

std::vector<int64_t> normalized(const Params& p, const char* key, int rank) {
  std::vector<int64_t> v = p.get_ints(key);
  for (int64_t& d : v) d = normalize_axis(d, rank, key);
  return v;
}
// Axes of an operand after a batch axis is inserted at bd.
std::vector<int64_t> shifted_past(std::vector<int64_t> v, int bd) {
  for (int64_t& d : v)
    if (d >= bd) ++d;
  return v;
}
// Where axis bd lands among the free (neither contracting nor batch) axes of a rank-r operand.
int free_position(int bd, const std::vector<int64_t>& contract, const std::vector<int64_t>& batch) {
  int pos = 0;
  for (int d = 0; d < bd; ++d)
    if (std::find(contract.begin(), contract.end(), d) == contract.end() &&
        std::find(batch.begin(), batch.end(), d) == batch.end())
      ++pos;
  return pos;
}
int num_free(int rank, const std::vector<int64_t>& contract, const std::vector<int64_t>& batch) {
  return rank - int(contract.size() + batch.size());
}

// dot_general's output is (batch..., lhs free..., rhs free...). Both operands mapped: the
// vmapped axis becomes a new leading batch dimension. One mapped: it is a free dimension of
// that operand, found in the output where its free dimensions go.
Result dot_general_rule(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  const Value &l = in[0], &r = in[1];
  int lr = l.rank() - (axes[0] ? 1 : 0), rr = r.rank() - (axes[1] ? 1 : 0);
  auto lc = normalized(p, "lhs_contracting_dimensions", lr), rc = normalized(p, "rhs_contracting_dimensions", rr);
  auto lb = normalized(p, "lhs_batch_dimensions", lr), rb = normalized(p, "rhs_batch_dimensions", rr);
  Params q = p;
  Builder* b = l.builder() ? l.builder() : r.builder();
  if (axes[0] && axes[1]) {
    Value lf = move_axis(l, *axes[0], 0), rf = move_axis(r, *axes[1], 0);
    q.set("lhs_contracting_dimensions", shifted_past(lc, 0));
    q.set("rhs_contracting_dimensions", shifted_past(rc, 0));
    auto lb1 = shifted_past(lb, 0), rb1 = shifted_past(rb, 0);
    lb1.insert(lb1.begin(), 0);
    rb1.insert(rb1.begin(), 0);
    q.set("lhs_batch_dimensions", lb1);
    q.set("rhs_batch_dimensions", rb1);
    return Result{{b->bind1("dot_general", {lf, rf}, q)}, {0}};
  }
  int nb = int(lb.size());
  // Fault: the batch axis is reported first among the free dims (lhs) or without the lhs free dims before it (rhs).
  const bool misplace = fault_on(Fault::vmap_dot_batch_axis_misplaced);
  if (axes[0]) {
    int bd = *axes[0];
    auto lc1 = shifted_past(lc, bd), lb1 = shifted_past(lb, bd);
    q.set("lhs_contracting_dimensions", lc1);
    q.set("lhs_batch_dimensions", lb1);
    return Result{{b->bind1("dot_general", in, q)}, {nb + (misplace ? 0 : free_position(bd, lc1, lb1))}};
  }
  int bd = *axes[1];
  auto rc1 = shifted_past(rc, bd), rb1 = shifted_past(rb, bd);
  q.set("rhs_contracting_dimensions", rc1);
  q.set("rhs_batch_dimensions", rb1);
  int out = nb + (misplace ? 0 : num_free(lr, lc, lb)) + free_position(bd, rc1, rb1);
  return Result{{b->bind1("dot_general", in, q)}, {out}};
}

// scan: consts' batch axes go to 0, xs' to 1 (axis 0 stays the scanned one, so each x_t is mapped at 0); which carries
// are mapped is found by a fixed point (a carry the body makes mapped must enter mapped), then the body is batched once
// more with those carries forced to axis 0. ys keep the body's axes, one further out for the stacking axis.
Result scan_rule(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  int64_t size = batch_size_of(in, axes);
  size_t nc = size_t(p.get_int("num_consts")), nk = size_t(p.get_int("num_carry"));
  const Program& body = *p.get_program("body");
  std::vector<Value> args(in.size());
  Axes body_axes(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    bool is_x = i >= nc + nk;
    if (axes[i]) {
      args[i] = move_axis(in[i], *axes[i], is_x ? 1 : 0);
      body_axes[i] = 0;
    } else {
      args[i] = in[i];
    }
  }
  std::vector<bool> carry_mapped(nk);
  for (size_t k = 0; k < nk; ++k) carry_mapped[k] = axes[nc + k].has_value();
  for (bool changed = true; changed;) {
    for (size_t k = 0; k < nk; ++k) body_axes[nc + k] = carry_mapped[k] ? BatchAxis(0) : std::nullopt;
    BatchedProgram trial = batch_program(body, body_axes, {}, size, "vmap of scan");
    changed = false;
    for (size_t k = 0; k < nk; ++k)
      if (trial.out_axes[k] && !carry_mapped[k]) changed = carry_mapped[k] = true;
  }
  std::vector<OutDest> dests(body.out_vars.size(), OutDest::keep_as_is());
  for (size_t k = 0; k < nk; ++k) {
    dests[k] = carry_mapped[k] ? OutDest::at_axis(0) : OutDest::not_mapped();
    if (carry_mapped[k]) args[nc + k] = match_axis(in[nc + k], axes[nc + k], 0, size);
  }
  BatchedProgram bb = batch_program(body, body_axes, dests, size, "vmap of scan");
  Params q = p;
  q.set("body", std::make_shared<const Program>(bb.program));
  Builder* b = nullptr;
  for (const Value& v : args)
    if (v.builder()) b = v.builder();
  std::vector<Value> outs = b->bind("scan", args, q);
  Axes out_axes(outs.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    BatchAxis a = bb.out_axes[k];
    out_axes[k] = k < nk || !a ? a : BatchAxis(*a + 1);
  }
  return Result{outs, out_axes};
}

// checkpoint: the body batched with the operands' axes as they are; the policy and every
// other param stay, so remat applies to the batched body exactly as to the original.
Result checkpoint_rule(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  BatchedProgram bb = batch_program(*p.get_program("body"), axes, {}, batch_size_of(in, axes), "vmap of checkpoint");
  Params q = p;
  q.set("body", std::make_shared<const Program>(bb.program));
  Builder* b = nullptr;
  for (const Value& v : in)
    if (v.builder()) b = v.builder();
  return Result{b->bind("checkpoint", in, q), bb.out_axes};
}

// lstm_fwd(x[B,T,I], h0[S,B,H], c0[S,B,H], w[P], seq_lengths[B]): with shared weights the N examples are N·B
// independent sequences, one LSTM call over the merged batch (x's and seq_lengths' vmapped axis in front of B, h0's and
// c0's just before their B axis). Per-example weights are N different LSTMs: a loop.
Result lstm_fwd_rule(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  // Training mode too: the reserve has no batch axis to split, and lstm_bwd loops per example.
  if (axes[3] || p.get_bool("training", false)) return batch_by_loop("lstm_fwd", in, axes, p);
  int64_t n = batch_size_of(in, axes);
  auto merge = [&](size_t i, int at) {
    Value v = match_axis(in[i], axes[i], at, n);
    Shape s = v.shape();
    s[size_t(at)] *= s[size_t(at) + 1];
    s.erase(s.begin() + at + 1);
    return reshape(v, s);
  };
  std::vector<Value> args{merge(0, 0), merge(1, 1), merge(2, 1), in[3], merge(4, 0)};
  std::vector<Value> outs = args[0].builder()->bind("lstm_fwd", args, p);
  auto split = [n](Value v, int at) {
    Shape s = v.shape();
    s[size_t(at)] /= n;
    s.insert(s.begin() + at, n);
    return reshape(v, s);
  };
  return Result{{split(outs[0], 0), split(outs[1], 1), split(outs[2], 1)}, {0, 1, 1}};
}
}  // namespace

void register_dot_scan_batch_rules() {
  set("dot_general", dot_general_rule);
  set("scan", scan_rule);
  set("checkpoint", checkpoint_rule);
  set("lstm_fwd", lstm_fwd_rule);
  // lstm_bwd's weight gradient sums over the LSTM batch, so merging examples into it would
  // sum their gradients too: per-example weight gradients need one call per example.
  set("lstm_bwd", [](const std::vector<Value>& in, const Axes& axes, const Params& p) {
    return batch_by_loop("lstm_bwd", in, axes, p);
  });
}

}  // namespace tandem
