// Scan partial evaluation (see vjp_scan.h): residual classification, the forward scan that
// stacks the saved per-step values, and the backward scan.
#include "engine/passes/vjp_scan.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/passes/ct_dependence.h"
#include "engine/passes/scan_invariant.h"
#include "engine/passes/scan_replay.h"

namespace tandem {
namespace {

template <class V>
V part(const V& v, size_t lo, size_t n) { return V(v.begin() + int64_t(lo), v.begin() + int64_t(lo + n)); }

// Index of the input a program output forwards unchanged, or -1.
int forwarded_input(const Program& p, size_t out) {
  const Atom& a = p.out_vars.at(out);
  if (a.is_literal()) return -1;
  for (size_t i = 0; i < p.in_vars.size(); ++i)
    if (p.in_vars[i]->id == a.var->id) return int(i);
  return -1;
}

void add_unique(std::vector<size_t>& v, size_t i) {
  if (std::find(v.begin(), v.end(), i) == v.end()) v.push_back(i);
}
size_t position(const std::vector<size_t>& v, size_t i) {
  return size_t(std::find(v.begin(), v.end(), i) - v.begin());
}

// The replay scan (scan_replay.h): its step inlines the carry replay over the consts, the
// carries, the xs rows and the stacked rows it reads, and emits the ys it rebuilds and the
// carries it entered with.
void add_replay(ScanSplit& s) {
  CarryReplay cr = carry_replay(*s.body, s.nk, s.replay_ys, s.replayed);
  const size_t nin = s.nc + s.nk + s.nx;
  for (size_t q : cr.inputs) {  // what each kept input is read from
    if (q < s.nc) add_unique(s.replay_consts, q);
    else if (q >= s.nc + s.nk && q < nin) add_unique(s.replay_xs, q - s.nc - s.nk);
    else if (q >= nin) {
      const ScanSplit::Source& src = s.sources[q - nin];
      if (src.from == ScanSplit::From::consts) add_unique(s.replay_consts, src.index);
      if (src.from == ScanSplit::From::xs) add_unique(s.replay_xs, src.index);
      if (src.from == ScanSplit::From::stacked) add_unique(s.replay_stacked, src.index);
      if (src.from == ScanSplit::From::hoisted) add_unique(s.replay_hoisted, src.index);
    }
  }
  for (auto* v : {&s.replay_consts, &s.replay_hoisted, &s.replay_xs, &s.replay_stacked}) std::sort(v->begin(), v->end());
  const VjpProgram& body = *s.body;
  std::vector<AType> bt = body.forward.in_types(), in;
  for (size_t i : s.replay_consts) in.push_back(bt[i]);
  for (size_t h : s.replay_hoisted) in.push_back(body.residuals[s.hoisted[h]].type);
  for (size_t i = 0; i < s.nk; ++i) in.push_back(bt[s.nc + i]);
  for (size_t i : s.replay_xs) in.push_back(bt[s.nc + s.nk + i]);
  for (size_t k : s.replay_stacked) in.push_back(body.residuals[s.stacked[k]].type);
  const size_t nrc = s.replay_consts.size() + s.replay_hoisted.size(), nrx = s.replay_xs.size();
  Program step = trace(in, [&](Builder& b, const std::vector<Value>& v) {
    std::vector<Value> k = part(v, nrc, s.nk), args;
    auto operand = [&](size_t i) {  // body input i
      if (i < s.nc) return v[position(s.replay_consts, i)];
      if (i < s.nc + s.nk) return k[i - s.nc];
      return v[nrc + s.nk + position(s.replay_xs, i - s.nc - s.nk)];
    };
    for (size_t q : cr.inputs) {
      if (q < nin) { args.push_back(operand(q)); continue; }
      const ScanSplit::Source& src = s.sources[q - nin];
      if (src.from == ScanSplit::From::consts) args.push_back(operand(src.index));
      else if (src.from == ScanSplit::From::xs) args.push_back(operand(s.nc + s.nk + src.index));
      else if (src.from == ScanSplit::From::carry) args.push_back(k[s.carries[src.index]]);
      else if (src.from == ScanSplit::From::hoisted)
        args.push_back(v[s.replay_consts.size() + position(s.replay_hoisted, src.index)]);
      else args.push_back(v[nrc + s.nk + nrx + position(s.replay_stacked, src.index)]);
    }
    std::vector<Value> out = inline_program(b, cr.program, args);  // carries, replay_ys, replayed
    for (size_t c : s.carries) out.push_back(k[c]);
    return out;
  });
  s.replay_body = std::make_shared<const Program>(std::move(step));
  s.replay_recompute = cr.recompute;
}

// Where the backward finds body residual j: a forwarded const / xs / carry, a loop-invariant
// value, a value the replay stacks, or a per-step value the forward stacks.
ScanSplit::Source classify(ScanSplit& s, const VjpProgram& body, size_t j, bool replay,
                           const std::vector<bool>& invariant) {
  const size_t nout = s.nk + s.ny;
  int in = forwarded_input(body.forward, nout + j);
  if (in >= 0 && size_t(in) < s.nc) {
    add_unique(s.used_consts, size_t(in));
    return {ScanSplit::From::consts, size_t(in)};
  }
  if (in >= 0 && size_t(in) >= s.nc + s.nk) {
    add_unique(s.used_xs, size_t(in) - s.nc - s.nk);
    return {ScanSplit::From::xs, size_t(in) - s.nc - s.nk};
  }
  if (in >= 0 && replay) {  // the carry entering the step: rebuilt by the replay
    s.carries.push_back(size_t(in) - s.nc);
    return {ScanSplit::From::carry, s.carries.size() - 1};
  }
  // Fault: a loop-invariant residual stacked per step.
  if (in < 0 && invariant[nout + j] && !fault_on(Fault::remat_scan_invariant_stacked))
    return {ScanSplit::From::hoisted, j};  // index fixed by hoist()
  if (body.residuals[j].replayed) {
    s.replayed.push_back(j);
    return {ScanSplit::From::replayed, s.replayed.size() - 1};
  }
  s.stacked.push_back(j);  // computed per step, or the carry entering the step
  return {ScanSplit::From::stacked, s.stacked.size() - 1};
}

// The loop-invariant residuals: the saved ones first (the forward computes them), then those
// the backward computes; each a computation over the consts, run once.
void hoist(ScanSplit& s, const VjpProgram& body) {
  std::vector<size_t> saved, rest, outs[2];
  for (const ScanSplit::Source& src : s.sources)
    if (src.from == ScanSplit::From::hoisted) (body.residuals[src.index].replayed ? rest : saved).push_back(src.index);
  s.hoisted = saved;
  s.hoisted.insert(s.hoisted.end(), rest.begin(), rest.end());
  s.hoisted_saved = saved.size();
  for (ScanSplit::Source& src : s.sources)
    if (src.from == ScanSplit::From::hoisted) src.index = position(s.hoisted, src.index);
  const size_t nout = s.nk + s.ny;
  for (size_t h = 0; h < s.hoisted.size(); ++h) outs[h >= s.hoisted_saved].push_back(nout + s.hoisted[h]);
  ScanSplit::Hoist* to[2] = {&s.hoist_forward, &s.hoist_backward};
  for (int w = 0; w < 2; ++w) {
    if (outs[w].empty()) continue;
    InvariantSlice sl = invariant_slice(body.forward, s.nc, outs[w]);
    to[w]->program = std::make_shared<const Program>(std::move(sl.program));
    to[w]->consts = sl.consts;
    to[w]->applications = sl.applications;
  }
}
}  // namespace

ScanSplit split_scan(const Params& p, VjpProgram body, bool replay, const std::vector<bool>& rebuild) {
  ScanSplit s;
  const Program& prim_body = *p.get_program("body");
  s.nc = size_t(p.get_int("num_consts"));
  s.nk = size_t(p.get_int("num_carry"));
  s.length = p.get_int("length");
  s.reverse = p.get_bool("reverse", false);
  s.nx = prim_body.in_vars.size() - s.nc - s.nk;
  s.ny = prim_body.out_vars.size() - s.nk;
  const size_t nout = s.nk + s.ny;
  const std::vector<bool> invariant = invariant_outputs(body.forward, s.nc);
  for (size_t j = 0; j < body.residuals.size(); ++j) s.sources.push_back(classify(s, body, j, replay, invariant));
  hoist(s, body);
  std::sort(s.used_consts.begin(), s.used_consts.end());
  std::sort(s.used_xs.begin(), s.used_xs.end());
  // The forward body: the body's own forward, emitting the stacked residuals as extra ys.
  Program fwd = trace(prim_body.in_types(), [&](Builder& b, const std::vector<Value>& v) {
    std::vector<Value> o = inline_program(b, body.forward, v);
    std::vector<Value> r = part(o, 0, nout);
    for (size_t j : s.stacked) r.push_back(o[nout + j]);
    return r;
  });
  s.forward_params = p;
  s.forward_params.set("body", std::make_shared<const Program>(std::move(fwd)));
  s.body = std::make_shared<const VjpProgram>(std::move(body));
  bool rebuilt = false;  // an output the enclosing backward reads: the replay rebuilds it
  if (replay) s.rebuild = rebuild;
  for (size_t i = 0; i < s.rebuild.size(); ++i) {
    rebuilt = rebuilt || s.rebuild[i];
    if (s.rebuild[i] && i >= s.nk) s.replay_ys.push_back(i - s.nk);
  }
  if (replay && (rebuilt || !s.carries.empty() || !s.replayed.empty())) add_replay(s);  // else nothing to rebuild
  return s;
}

Replayed emit_replay_scan(Builder& b, const ScanSplit& s, const std::vector<Value>& consts,
                          const std::vector<Value>& hoisted, const std::vector<Value>& init,
                          const std::vector<Value>& xs, const std::vector<Value>& stacked) {
  std::vector<Value> cin = consts, xin = xs;
  cin.insert(cin.end(), hoisted.begin(), hoisted.end());
  xin.insert(xin.end(), stacked.begin(), stacked.end());
  std::vector<Value> r = scan(*s.replay_body, cin, init, xin, s.length, s.reverse);
  const size_t ny = s.replay_ys.size(), nr = s.replayed.size();
  return {part(r, 0, s.nk), part(r, s.nk, ny), part(r, s.nk + ny, nr), part(r, s.nk + ny + nr, s.carries.size())};
}

std::vector<Value> emit_forward_scan(const ScanSplit& s, const std::vector<Value>& operands) {
  Builder* b = nullptr;
  for (const Value& v : operands)
    if (v.builder()) b = v.builder();
  TANDEM_CHECK(b, "scan with no traced operands");
  return b->bind("scan", operands, s.forward_params);
}

std::vector<std::optional<Value>> emit_backward_scan(
    Builder& b, const ScanSplit& s, const std::vector<Value>& consts, const std::vector<Value>& hoisted,
    const std::vector<Value>& xs, const std::vector<Value>& stacked, const std::vector<std::optional<Value>>& out_cts,
    const std::vector<AType>& out_types) {
  const VjpProgram& body = *s.body;
  std::vector<AType> bt = body.forward.in_types(), bo;
  for (size_t i = 0; i < s.nk + s.ny; ++i) bo.push_back(body.forward.out_vars[i].type());
  std::vector<size_t> fc;  // floating consts: their cotangents accumulate in the carry
  for (size_t i = 0; i < s.nc; ++i)
    if (body.wrt[i]) fc.push_back(i);
  // Backward body: consts (used, hoisted residuals); carry (ct of the carry, const ct
  // accumulators); xs (stacked, replayed residual rows, carry rows, used xs rows, ct of y rows).
  std::vector<AType> in;
  for (size_t i : s.used_consts) in.push_back(bt[i]);
  for (size_t j : s.hoisted) in.push_back(body.residuals[j].type);
  for (size_t i = 0; i < s.nk; ++i) in.push_back(bt[s.nc + i]);
  for (size_t i : fc) in.push_back(bt[i]);
  for (size_t j : s.stacked) in.push_back(body.residuals[j].type);
  for (size_t j : s.replayed) in.push_back(body.residuals[j].type);
  for (size_t c : s.carries) in.push_back(bt[s.nc + c]);
  for (size_t i : s.used_xs) in.push_back(bt[s.nc + s.nk + i]);
  for (size_t i = 0; i < s.ny; ++i) in.push_back(bo[s.nk + i]);
  const size_t nh = s.hoisted.size(), nrs = s.stacked.size() + s.replayed.size();
  const size_t nuc = s.used_consts.size(), nux = s.used_xs.size(), ns = nrs + s.carries.size();
  // The body's backward: linear in the carries' and ys' cotangents, those of dead carries and
  // of ys with none are JAX's symbolic zeros in it (ct_dependence.h).
  const ScanCts live = scan_cts(s, out_cts);
  std::vector<bool> linear(body.residuals.size(), false), zero = linear;
  linear.resize(linear.size() + live.live.size(), true);
  for (bool l : live.live) zero.push_back(!l);
  Program bwd = trace(in, [&](Builder& bb, const std::vector<Value>& v) {
    std::vector<Value> uc = part(v, 0, nuc), hc = part(v, nuc, nh);
    std::vector<Value> ctk = part(v, nuc + nh, s.nk), acc = part(v, nuc + nh + s.nk, fc.size());
    size_t o = nuc + nh + s.nk + fc.size();
    std::vector<Value> st = part(v, o, ns), ux = part(v, o + ns, nux), cty = part(v, o + ns + nux, s.ny);
    std::vector<Value> args;
    for (const ScanSplit::Source& src : s.sources) {
      if (src.from == ScanSplit::From::consts) args.push_back(uc[position(s.used_consts, src.index)]);
      else if (src.from == ScanSplit::From::xs) args.push_back(ux[position(s.used_xs, src.index)]);
      else if (src.from == ScanSplit::From::carry) args.push_back(st[nrs + src.index]);
      else if (src.from == ScanSplit::From::hoisted) args.push_back(hc[src.index]);
      else if (src.from == ScanSplit::From::replayed) args.push_back(st[s.stacked.size() + src.index]);
      else args.push_back(st[src.index]);
    }
    args.insert(args.end(), ctk.begin(), ctk.end());
    args.insert(args.end(), cty.begin(), cty.end());
    std::vector<Value> g = inline_linear(bb, body.backward, args, linear, zero).out;
    std::vector<std::optional<Value>> ct_in(bt.size());
    for (size_t i = 0, c = 0; i < bt.size(); ++i)
      if (body.wrt[i]) ct_in[i] = g[c++];
    std::vector<Value> out;
    for (size_t i = 0; i < s.nk; ++i) out.push_back(ct_in[s.nc + i] ? *ct_in[s.nc + i] : ctk[i]);  // an integer carry: none
    // Fault: the weights' cotangent is overwritten by each step instead of accumulated.
    const bool overwrite = fault_on(Fault::vjp_scan_const_cotangent_overwritten);
    for (size_t k = 0; k < fc.size(); ++k) out.push_back(overwrite ? *ct_in[fc[k]] : acc[k] + *ct_in[fc[k]]);
    for (size_t i = s.nc + s.nk; i < bt.size(); ++i)
      if (ct_in[i]) out.push_back(*ct_in[i]);
    return out;
  });
  std::vector<Value> init, xin = stacked;
  for (size_t i = 0; i < s.nk; ++i) init.push_back(out_cts[i] ? *out_cts[i] : zeros(b, out_types[i]));
  for (size_t i : fc) init.push_back(zeros(b, bt[i]));
  xin.insert(xin.end(), xs.begin(), xs.end());
  for (size_t i = 0; i < s.ny; ++i)
    xin.push_back(out_cts[s.nk + i] ? *out_cts[s.nk + i] : zeros(b, out_types[s.nk + i]));
  // Fault: the backward scan walks in the forward's direction.
  const bool back_reverse = fault_on(Fault::vjp_scan_backward_wrong_direction) ? s.reverse : !s.reverse;
  std::vector<Value> cin = consts;
  cin.insert(cin.end(), hoisted.begin(), hoisted.end());
  std::vector<Value> r = scan(bwd, cin, init, xin, s.length, back_reverse);
  std::vector<std::optional<Value>> cts(s.nc + s.nk + s.nx);
  for (size_t k = 0; k < fc.size(); ++k) cts[fc[k]] = r[s.nk + k];
  for (size_t i = 0; i < s.nk; ++i) cts[s.nc + i] = r[i];
  for (size_t i = 0, y = s.nk + fc.size(); i < s.nx; ++i)
    if (body.wrt[s.nc + s.nk + i]) cts[s.nc + s.nk + i] = r[y++];
  for (size_t i = 0; i < cts.size(); ++i)
    if (!live.nonzero[i]) cts[i].reset();
  return cts;
}

// Which operands get a nonzero cotangent from the backward scan, as JAX's scan (its DCE keeps
// a carry only while a used output or another kept carry reads it; the transpose of the body
// then leaves a symbolic zero for what no nonzero cotangent reaches): a carry is live once its
// output's cotangent is nonzero or the body passes a live cotangent into it (a fixpoint over
// the steps); an operand's cotangent is nonzero when a live one reaches it in the body.
ScanCts scan_cts(const ScanSplit& s, const std::vector<std::optional<Value>>& out_cts) {
  const VjpProgram& body = *s.body;
  ScanCts r;
  std::vector<bool>& live = r.live;
  for (size_t i = 0; i < s.nk + s.ny; ++i) live.push_back(out_cts[i].has_value());
  std::vector<bool> reached;  // per body backward output (wrt operands)
  for (bool changed = true; changed;) {
    std::vector<bool> from(body.residuals.size(), false);
    from.insert(from.end(), live.begin(), live.end());
    reached = depends_on(body.backward, from);
    changed = false;
    for (size_t i = 0, c = 0; i < s.nc + s.nk + s.nx; ++i) {
      if (!body.wrt[i]) continue;
      const bool carry = i >= s.nc && i < s.nc + s.nk;
      if (carry && reached[c] && !live[i - s.nc]) changed = live[i - s.nc] = true;
      ++c;
    }
  }
  r.nonzero.assign(s.nc + s.nk + s.nx, false);
  for (size_t i = 0, c = 0; i < r.nonzero.size(); ++i) {
    const bool carry = i >= s.nc && i < s.nc + s.nk;
    if (carry && s.length == 0) r.nonzero[i] = live[i - s.nc];  // no step: the output's cotangent passes through
    else if (body.wrt[i]) r.nonzero[i] = s.length > 0 && reached[c];
    if (body.wrt[i]) ++c;
  }
  return r;
}

}  // namespace tandem
