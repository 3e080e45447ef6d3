// The reference's rows for the fused LSTM primitives (engine/prims/lstm.h operands): eval
// calls ref::lstm_forward / ref::lstm_backward (f64, rounded once to the f32 outputs); the
// tape records lstm_fwd as one node holding y, h_n, c_n flattened, whose backward is
// ref::lstm_backward, then slices the three outputs out of it. The reference keeps no reserve:
// a training-mode lstm_fwd gives zeros of the declared reserve type (its contents are opaque
// and backend-specific), and its lstm_bwd ignores y and the reserve and computes its own
// backward from x, h0, c0, w (re-running its naive forward). lstm_bwd is first-order only,
// in the reference as in the engine (vjp_rules_indexing.cc): its tape node refuses a
// cotangent instead of silently giving zero.
#include "bridge/reference_rules.h"
#include "engine/core/error.h"
#include "engine/prims/lstm.h"
#include "reference/lstm_ref.h"

namespace tandem {
namespace {
using ref::Array;
using Id = ref::Tape::Id;

// The LSTM's shape from the equation's fused-op operands starting at `first` (x, h0, c0, w, lens).
ref::LstmShape lstm_shape(const Eqn& e, size_t first) {
  std::vector<AType> t;
  for (size_t i = first; i < e.in.size(); ++i) t.push_back(e.in[i].type());
  LstmConfig c = lstm_config(t, e.params);
  return {c.batch, c.seq, c.input, c.hidden, c.layers, c.bidirectional};
}
std::vector<int64_t> lengths(const Array& lens) { return std::vector<int64_t>(lens.data.begin(), lens.data.end()); }
// An f64 result rounded once to the type the engine declared for output k.
Array output(const Eqn& e, size_t k, std::vector<double> v) {
  return ref::convert(Array{e.out[k]->type.shape, DType::f64, std::move(v)}, e.out[k]->type.dtype);
}
Array cotangent(const Array& like, std::vector<double> v) { return Array{like.shape, DType::f64, std::move(v)}; }

// in: x, h0, c0, w, lens.
ref::LstmOutputs forward(const Eqn& e, const std::vector<Array>& in) {
  return ref::lstm_forward(lstm_shape(e, 0), in[0].data, in[1].data, in[2].data, in[3].data, lengths(in[4]));
}
// in: dy, dh_n, dc_n, x, h0, c0, w, lens (then y, reserve, unread).
ref::LstmGrads backward(const ref::LstmShape& s, const std::vector<Array>& in) {
  return ref::lstm_backward(s, in[3].data, in[4].data, in[5].data, in[6].data, lengths(in[7]),
                            in[0].data, in[1].data, in[2].data);
}

std::vector<Array> eval_fwd(const Eqn& e, const std::vector<Array>& in, const RefEvalContext&) {
  ref::LstmOutputs f = forward(e, in);
  std::vector<Array> r{output(e, 0, f.y), output(e, 1, f.h_n), output(e, 2, f.c_n)};
  if (e.out.size() == 4)  // training mode: the reserve, zeros (see the top of this file)
    r.push_back(output(e, 3, std::vector<double>(size_t(ref::shape_numel(e.out[3]->type.shape)), 0.0)));
  return r;
}
std::vector<Array> eval_bwd(const Eqn& e, const std::vector<Array>& in, const RefEvalContext&) {
  ref::LstmGrads g = backward(lstm_shape(e, 3), in);  // lstm_config reads x..lens only
  return {output(e, 0, g.dx), output(e, 1, g.dh0), output(e, 2, g.dc0), output(e, 3, g.dw)};
}

std::vector<Array> values_of(const ref::Tape& t, const std::vector<Id>& ids) {
  std::vector<Array> v;
  for (Id id : ids) v.push_back(t.value(id));
  return v;
}

std::vector<Id> tape_fwd(const Eqn& e, const std::vector<Id>& in, const RefTapeContext& ctx) {
  ref::Tape& t = ctx.tape;
  std::vector<Array> v = values_of(t, in);
  std::vector<Array> outs = eval_fwd(e, v, {});
  Array packed{{0}, outs[0].dtype, {}};  // f32 values, exact: already rounded
  for (const Array& o : outs) packed.data.insert(packed.data.end(), o.data.begin(), o.data.end());
  packed.shape = {int64_t(packed.data.size())};
  Id all = t.custom(packed, in, [e, v, s = lstm_shape(e, 0)](const Array& ct) {
    // ct holds dy, dh_n, dc_n back to back, in the order the outputs were packed (then the
    // reserve's, which the reserve-free reference ignores).
    size_t off = 0;
    std::vector<Array> cts;
    for (size_t k = 0; k < 3; ++k) {
      size_t n = size_t(ref::shape_numel(e.out[k]->type.shape));
      cts.push_back(Array{e.out[k]->type.shape, DType::f64, {ct.data.begin() + long(off), ct.data.begin() + long(off + n)}});
      off += n;
    }
    cts.insert(cts.end(), v.begin(), v.end());
    ref::LstmGrads g = backward(s, cts);
    return std::vector<Array>{cotangent(v[0], g.dx), cotangent(v[1], g.dh0), cotangent(v[2], g.dc0),
                              cotangent(v[3], g.dw), Array{{}, DType::f64, {}}};
  });
  std::vector<Id> r;
  int64_t off = 0;
  for (const Array& o : outs) {
    int64_t n = ref::shape_numel(o.shape);
    r.push_back(t.reshape(t.slice(all, {off}, {off + n}, {}), o.shape));
    off += n;
  }
  return r;
}

std::vector<Id> tape_bwd(const Eqn& e, const std::vector<Id>& in, const RefTapeContext& ctx) {
  std::vector<Id> r;
  for (Array& o : eval_bwd(e, values_of(ctx.tape, in), {}))
    r.push_back(ctx.tape.custom(std::move(o), in, [](const Array&) -> std::vector<Array> {
      throw_unsupported("the reference's reverse mode through lstm_bwd (a second derivative of the LSTM)",
                        "differentiate the LSTM Program (a scan over a cell) instead");
    }));
  return r;
}
}  // namespace

ReferenceRule lstm_fwd_reference_rule() { return {eval_fwd, tape_fwd}; }
ReferenceRule lstm_bwd_reference_rule() { return {eval_bwd, tape_bwd}; }

}  // namespace tandem
