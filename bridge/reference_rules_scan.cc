// The reference's scan, while and cond rows. scan: eval runs ref::scan (the reference's own lax.scan) with the body
// interpreted by the same interpreter; the tape unrolls the scan step by step, so every
// step's values stay stored for the backward (no remat).
#include "bridge/reference_rules.h"
#include "engine/core/error.h"
#include "engine/prims/cond.h"
#include "engine/prims/while_loop.h"
#include "reference/while_loop.h"

namespace tandem {
namespace {
using ref::Array;
using Id = ref::Tape::Id;

struct ScanSplit {
  size_t consts, carry;
  int64_t length;
  bool reverse;
};
ScanSplit split_of(const Params& p) {
  return {size_t(p.get_int("num_consts")), size_t(p.get_int("num_carry")), p.get_int("length"),
          p.get_bool("reverse", false)};
}
template <class V>
std::vector<V> part(const std::vector<V>& v, size_t from, size_t to) {
  return std::vector<V>(v.begin() + long(from), v.begin() + long(to));
}

std::vector<Array> eval_scan(const Eqn& e, const std::vector<Array>& in, const RefEvalContext& ctx) {
  const Program& body = *e.params.get_program("body");
  ScanSplit s = split_of(e.params);
  size_t nk = s.carry;
  auto fn = [&](const std::vector<Array>& c, const std::vector<Array>& carry, const std::vector<Array>& x) {
    std::vector<Array> args = c;
    args.insert(args.end(), carry.begin(), carry.end());
    args.insert(args.end(), x.begin(), x.end());
    std::vector<Array> out = ctx.run_program(body, std::move(args));
    return std::pair{part(out, 0, nk), part(out, nk, out.size())};
  };
  auto [carry, ys] = ref::scan(fn, part(in, 0, s.consts), part(in, s.consts, s.consts + nk),
                               part(in, s.consts + nk, in.size()), s.length, s.reverse);
  // A zero-length scan gives the reference no body output to learn ys' shapes from.
  for (size_t i = nk + ys.size(); i < e.out.size(); ++i) ys.push_back(Array{e.out[i]->type.shape, e.out[i]->type.dtype, {}});
  carry.insert(carry.end(), ys.begin(), ys.end());
  return carry;
}

// x_t is a taped slice of xs, the y_t's are stacked by a taped concatenate.
std::vector<Id> tape_scan(const Eqn& e, const std::vector<Id>& in, const RefTapeContext& ctx) {
  ref::Tape& t = ctx.tape;
  const Program& body = *e.params.get_program("body");
  ScanSplit s = split_of(e.params);
  size_t nk = s.carry, ny = e.out.size() - nk;
  std::vector<Id> consts = part(in, 0, s.consts), carry = part(in, s.consts, s.consts + nk);
  std::vector<Id> xs = part(in, s.consts + nk, in.size());
  std::vector<std::vector<Id>> ys(ny, std::vector<Id>(size_t(s.length), -1));
  for (int64_t i = 0; i < s.length; ++i) {
    int64_t step = s.reverse ? s.length - 1 - i : i;
    std::vector<Id> args = consts;
    args.insert(args.end(), carry.begin(), carry.end());
    for (Id x : xs) {
      std::vector<int64_t> shape = t.value(x).shape, lo(shape.size(), 0), hi = shape;
      lo[0] = step;
      hi[0] = step + 1;
      args.push_back(t.reshape(t.slice(x, lo, hi, {}), std::vector<int64_t>(shape.begin() + 1, shape.end())));
    }
    std::vector<Id> out = ctx.run_program(body, args);
    carry = part(out, 0, nk);
    for (size_t j = 0; j < ny; ++j) {
      std::vector<int64_t> shape = t.value(out[nk + j]).shape;
      shape.insert(shape.begin(), 1);
      ys[j][size_t(step)] = t.reshape(out[nk + j], shape);
    }
  }
  std::vector<Id> r = carry;
  for (size_t j = 0; j < ny; ++j) {
    const AType& ty = e.out[nk + j]->type;
    if (s.length == 0) r.push_back(t.constant(Array{ty.shape, ty.dtype, {}}));
    else r.push_back(s.length == 1 ? ys[j][0] : t.concatenate(ys[j], 0));
  }
  return r;
}

// while: ref::while_loop with cond and body interpreted. JAX has no reverse mode for it (the
// engine's rule refuses); the tape records the iterations the data ran, as it unrolls a scan,
// so the reference still has the derivative of that path (checked by finite differences in
// reference_vjp_test.cc).
struct WhileSplit {
  size_t cond, body;
};
WhileSplit while_split(const Params& p) { return {size_t(p.get_int("cond_nconsts")), size_t(p.get_int("body_nconsts"))}; }
template <class V>
std::vector<V> joined(std::vector<V> a, const std::vector<V>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Array> eval_while(const Eqn& e, const std::vector<Array>& in, const RefEvalContext& ctx) {
  const Program &cond = *e.params.get_program("cond"), &body = *e.params.get_program("body");
  WhileSplit s = while_split(e.params);
  auto holds = [&](const std::vector<Array>& c, const std::vector<Array>& carry) {
    return ctx.run_program(cond, joined(c, carry)).at(0).data.at(0) != 0;
  };
  auto step = [&](const std::vector<Array>& c, const std::vector<Array>& carry) {
    return ctx.run_program(body, joined(c, carry));
  };
  return ref::while_loop(holds, step, part(in, 0, s.cond), part(in, s.cond, s.cond + s.body),
                         part(in, s.cond + s.body, in.size()));
}

std::vector<Id> tape_while(const Eqn& e, const std::vector<Id>& in, const RefTapeContext& ctx) {
  const Program &cond = *e.params.get_program("cond"), &body = *e.params.get_program("body");
  WhileSplit s = while_split(e.params);
  const std::vector<Id> cc = part(in, 0, s.cond), bc = part(in, s.cond, s.cond + s.body);
  std::vector<Id> carry = part(in, s.cond + s.body, in.size());
  for (int64_t step = 0; ctx.tape.value(ctx.run_program(cond, joined(cc, carry)).at(0)).data.at(0) != 0; ++step) {
    if (step == kWhileMaxIterations) throw_bad_input(cat("while: the predicate still holds after ", step, " iterations"));
    carry = ctx.run_program(body, joined(bc, carry));
  }
  return carry;
}

// cond: the branch ref::switch_branch picks, interpreted on the operands; the tape records that
// branch's ops, so its derivative is the chosen branch's (the index gets none).
std::vector<Array> eval_cond(const Eqn& e, const std::vector<Array>& in, const RefEvalContext& ctx) {
  const std::vector<ProgramPtr> branches = cond_branches(e.params);
  return ctx.run_program(*branches[ref::switch_branch(in.at(0), branches.size())], part(in, 1, in.size()));
}

std::vector<Id> tape_cond(const Eqn& e, const std::vector<Id>& in, const RefTapeContext& ctx) {
  const std::vector<ProgramPtr> branches = cond_branches(e.params);
  return ctx.run_program(*branches[ref::switch_branch(ctx.tape.value(in.at(0)), branches.size())], part(in, 1, in.size()));
}
}  // namespace

ReferenceRule cond_reference_rule() { return {eval_cond, tape_cond}; }

ReferenceRule scan_reference_rule() { return {eval_scan, tape_scan}; }
ReferenceRule while_reference_rule() { return {eval_while, tape_while}; }

}  // namespace tandem
