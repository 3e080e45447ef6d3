// The batching rule of while (JAX's _while_loop_batching_rule). Mapped consts go to axis 0;
// which carries are mapped is a fixed point (a carry the body makes mapped enters mapped).
// When the predicate stays unmapped every example runs the same number of steps: the loop
// with its cond and body batched. When it is mapped, examples stop at different steps: the
// loop runs while any example's predicate holds, and its body keeps the carry of an example
// whose predicate no longer holds (a select), so that carry leaves as it was when it stopped.
#include "engine/core/error.h"
#include "engine/ir/inline_program.h"
#include "engine/prims/batch_rules.h"

namespace tandem {
namespace {
using Result = std::pair<std::vector<Value>, std::vector<BatchAxis>>;
using Axes = std::vector<BatchAxis>;

struct WhileParts {
  size_t nc, nb, nk;
  const Program& cond;
  const Program& body;
};

Axes concat(Axes a, const Axes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The carries that must be mapped, and whether the predicate is: to a fixed point, as a
// mapped predicate maps every carry (each example keeps its own).
std::pair<std::vector<bool>, bool> mapped_carries(const WhileParts& w, const Axes& cc, const Axes& bc,
                                                  std::vector<bool> carry, int64_t size) {
  bool pred = false;
  for (bool changed = true; changed;) {
    Axes ka(w.nk);
    for (size_t k = 0; k < w.nk; ++k) ka[k] = carry[k] ? BatchAxis(0) : std::nullopt;
    BatchedProgram tb = batch_program(w.body, concat(bc, ka), {}, size, "vmap of while (body)");
    BatchedProgram tc = batch_program(w.cond, concat(cc, ka), {}, size, "vmap of while (cond)");
    pred = tc.out_axes[0].has_value();
    changed = false;
    for (size_t k = 0; k < w.nk; ++k)
      if ((pred || tb.out_axes[k]) && !carry[k]) changed = carry[k] = true;
  }
  return {carry, pred};
}

// The cond of a loop over examples: any example's predicate (bool[N]) holds.
Program any_cond(const Program& bcond) {
  return trace(bcond.in_types(), [&](Builder& b, const std::vector<Value>& v) {
    Value p = convert_element_type(inline_program(b, bcond, v)[0], DType::f32);
    return std::vector<Value>{compare(reduce_max(p, {0}), b.literal(0.0, DType::f32), "gt")};
  });
}

// The body of that loop, over (cond_consts..., body_consts..., carry...): one step of the
// batched body, kept only for the examples whose predicate holds.
Program select_body(const WhileParts& w, const Program& bcond, const Program& bbody) {
  std::vector<AType> in = bcond.in_types();
  in.resize(w.nc);
  std::vector<AType> rest = bbody.in_types();
  in.insert(in.end(), rest.begin(), rest.end());
  return trace(in, [&](Builder& b, const std::vector<Value>& v) {
    std::vector<Value> carry(v.end() - long(w.nk), v.end());
    std::vector<Value> cargs(v.begin(), v.begin() + long(w.nc));
    cargs.insert(cargs.end(), carry.begin(), carry.end());
    Value pred = inline_program(b, bcond, cargs)[0];
    std::vector<Value> next = inline_program(b, bbody, std::vector<Value>(v.begin() + long(w.nc), v.end()));
    for (size_t k = 0; k < w.nk; ++k)
      next[k] = select(broadcast_in_dim(pred, carry[k].shape(), {0}), next[k], carry[k]);
    return next;
  });
}

Result while_rule(const std::vector<Value>& in, const Axes& axes, const Params& p) {
  const size_t nc = size_t(p.get_int("cond_nconsts")), nb = size_t(p.get_int("body_nconsts"));
  WhileParts w{nc, nb, in.size() - nc - nb, *p.get_program("cond"), *p.get_program("body")};
  const int64_t size = batch_size_of(in, axes);
  std::vector<Value> args(in.size());
  Axes cc(nc), bc(nb);
  std::vector<bool> carry(w.nk);
  for (size_t i = 0; i < in.size(); ++i) {
    args[i] = axes[i] && i < nc + nb ? move_axis(in[i], *axes[i], 0) : in[i];
    if (i < nc) cc[i] = axes[i] ? BatchAxis(0) : std::nullopt;
    else if (i < nc + nb) bc[i - nc] = axes[i] ? BatchAxis(0) : std::nullopt;
    else carry[i - nc - nb] = axes[i].has_value();
  }
  auto [mapped, pred] = mapped_carries(w, cc, bc, carry, size);
  Axes ka(w.nk), out_axes(w.nk);
  std::vector<OutDest> dests(w.nk);
  for (size_t k = 0; k < w.nk; ++k) {
    ka[k] = out_axes[k] = mapped[k] ? BatchAxis(0) : std::nullopt;
    dests[k] = mapped[k] ? OutDest::at_axis(0) : OutDest::not_mapped();
    if (mapped[k]) args[nc + nb + k] = match_axis(in[nc + nb + k], axes[nc + nb + k], 0, size);
  }
  Program bbody = batch_program(w.body, concat(bc, ka), dests, size, "vmap of while (body)").program;
  Params q = p;
  Builder* b = nullptr;
  for (const Value& v : args)
    if (v.builder()) b = v.builder();
  if (!pred) {
    q.set("cond", std::make_shared<const Program>(
                      batch_program(w.cond, concat(cc, ka), {OutDest::not_mapped()}, size, "vmap of while (cond)").program));
    q.set("body", std::make_shared<const Program>(bbody));
    return Result{b->bind("while", args, q), out_axes};
  }
  Program bcond = batch_program(w.cond, concat(cc, ka), {OutDest::at_axis(0)}, size, "vmap of while (cond)").program;
  q.set("cond", std::make_shared<const Program>(any_cond(bcond)));
  q.set("body", std::make_shared<const Program>(select_body(w, bcond, bbody)));
  q.set("body_nconsts", int64_t(nc + nb));
  std::vector<Value> operands(args.begin(), args.begin() + long(nc));  // the cond's consts, then the body's
  operands.insert(operands.end(), args.begin(), args.end());
  return Result{b->bind("while", operands, q), out_axes};
}
}  // namespace

void register_while_batch_rules() { mutable_primitive("while").batch = while_rule; }

}  // namespace tandem
