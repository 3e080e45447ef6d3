// generate_case: the chain first (it decides what the program may contain), then the program
// row by row, then its arguments.
#include "suites/program_fuzz/fuzz_case.h"

#include "engine/core/error.h"
#include "engine/ir/typecheck.h"
#include "engine/passes/vjp.h"
#include "suites/program_fuzz/fuzz_values.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {

const char* chain_name(ChainKind k) {
  switch (k) {
    case ChainKind::plain: return "plain";
    case ChainKind::vjp: return "vjp";
    case ChainKind::vmap: return "vmap";
    case ChainKind::vmap_of_vjp: return "vmap_of_vjp";
    case ChainKind::hoist: return "hoist";
    case ChainKind::hoist_vjp: return "hoist_vjp";
  }
  return "?";
}

ChainKind parse_chain(const std::string& s) {
  std::string names;
  for (ChainKind k : kAllChains) {
    if (s == chain_name(k)) return k;
    names += std::string(names.empty() ? "" : " | ") + chain_name(k);
  }
  throw_bad_input(cat("unknown transformation chain '", s, "'"), cat("use one of ", names));
}

bool differentiates(ChainKind k) {
  return k == ChainKind::vjp || k == ChainKind::vmap_of_vjp || k == ChainKind::hoist_vjp;
}
bool vmaps(ChainKind k) { return k == ChainKind::vmap || k == ChainKind::vmap_of_vjp; }

namespace {

const std::vector<std::string> kTopPolicies = {"everything_saveable", "nothing_saveable", "dots_saveable"};

// The program's outputs: one to three values made by equations, recent ones favoured;
// floating ones only when the chain differentiates (every output then needs a cotangent).
std::vector<Value> choose_outputs(GenState& s, size_t num_inputs, bool floating_only) {
  std::vector<Value> made(s.pool.begin() + long(num_inputs), s.pool.end());
  if (floating_only) {
    std::vector<Value> f;
    for (const Value& v : made)
      if (is_floating(v.dtype())) f.push_back(v);
    made = f;
  }
  if (made.empty()) return {s.fit(s.pool.back(), AType{{}, floating_only ? DType::f32 : s.pool.back().dtype()})};
  std::vector<Value> outs{made.back()};
  for (int64_t k = s.rng.in(0, 2); k > 0; --k) outs.push_back(s.rng.pick(made));
  return outs;
}

double random_special_rate(Rng& rng) {
  const int64_t r = rng.in(0, 9);
  return r < 4 ? 0.0 : r < 7 ? 0.05 : 0.25;
}

Shape batched(const Shape& s, int64_t axis, int64_t size) {
  Shape r = s;
  const int64_t rank = int64_t(s.size()) + 1;
  r.insert(r.begin() + (axis < 0 ? axis + rank : axis), size);
  return r;
}

std::vector<VmapAxis> random_axes(Rng& rng, const std::vector<AType>& types, bool may_be_none) {
  std::vector<VmapAxis> axes;
  for (const AType& t : types) {
    const int64_t rank = int64_t(t.shape.size()) + 1;
    if (may_be_none && rng.chance(0.25)) axes.push_back(std::nullopt);
    else axes.push_back(rng.in(-rank, rank - 1));  // negative half the time, as JAX allows
  }
  return axes;
}

}  // namespace

Program vmapped_program(const FuzzCase& c) {
  return c.chain.kind == ChainKind::vmap_of_vjp ? vjp_joint(c.program, c.wrt) : c.program;
}

void make_arguments(FuzzCase& c, Rng& rng, double special_rate) {
  c.args.clear();
  c.cotangents.clear();
  if (vmaps(c.chain.kind)) {
    const Program v = vmapped_program(c);
    const std::vector<AType> in = v.in_types(), out = v.out_types();
    if (c.chain.in_axes.size() != in.size()) c.chain.in_axes = random_axes(rng, in, true);
    if (c.chain.out_axes.size() != out.size()) c.chain.out_axes = random_axes(rng, out, false);
    const size_t primal_inputs = c.program.in_vars.size();
    for (size_t i = 0; i < in.size(); ++i) {
      AType t = in[i];
      if (c.chain.in_axes[i]) t.shape = batched(t.shape, *c.chain.in_axes[i], c.chain.axis_size);
      c.args.push_back(random_tensor(rng, t, i < primal_inputs ? special_rate : 0.0));
    }
    return;
  }
  for (const AType& t : c.program.in_types()) c.args.push_back(random_tensor(rng, t, special_rate));
  if (differentiates(c.chain.kind))
    for (const AType& t : c.program.out_types()) c.cotangents.push_back(random_tensor(rng, t, 0.0));
}

FuzzCase rechain(const FuzzCase& c, ChainKind kind) {
  if (vmaps(kind) || vmaps(c.chain.kind))
    throw_bad_input(cat("a case cannot move between chain ", chain_name(c.chain.kind), " and ", chain_name(kind)),
                    "vmap chains take batched arguments: replay them as written");
  FuzzCase r = c;
  r.chain.kind = kind;
  Rng rng(c.seed ^ 0xC7);
  if (!differentiates(kind)) r.cotangents.clear();
  else if (!differentiates(c.chain.kind))
    for (const AType& t : c.program.out_types()) r.cotangents.push_back(random_tensor(rng, t, 0.0));
  return r;
}

FuzzCase generate_case(uint64_t seed, const FuzzOptions& options) {
  Rng rng(seed);
  FuzzCase c;
  c.seed = seed;
  c.chain.kind = rng.pick(options.chains);
  GenConfig cfg = options.gen;
  const bool diff = differentiates(c.chain.kind);
  if (diff) {
    // The reference's tape has no collective rules (one process), and its reverse mode is
    // exact, so presets that round their inputs would need a tolerance it cannot model.
    cfg.collectives = false;
    cfg.lossy_dots = false;
    cfg.narrow_floats = false;
    c.chain.top_policy = rng.pick(kTopPolicies);
  }
  if (vmaps(c.chain.kind)) c.chain.axis_size = rng.in(1, 3);
  // Collectives under vmap are evaluated by the mesh reference, which has no perturbed runs.
  if (c.chain.kind == ChainKind::vmap) cfg.lossy_dots = false;
  cfg.coll_axis_size = c.chain.kind == ChainKind::vmap ? c.chain.axis_size : 1;
  c.chain.accumulate_in_carry = rng.chance(0.5);
  GenState s(rng, cfg, 0, true);
  const int64_t num_inputs = rng.in(1, 3);
  for (int64_t i = 0; i < num_inputs; ++i)
    s.new_input(AType{s.random_shape(), diff ? s.random_float() : s.random_dtype()});
  // Hoisting has nothing to do without a scan: those chains start with one.
  if (c.chain.kind == ChainKind::hoist || c.chain.kind == ChainKind::hoist_vjp) gen_table().rows.at("scan").emit(s);
  for (int64_t i = rng.in(1, cfg.eqns); i > 0; --i) emit_random_row(s);
  c.program = s.b.build(choose_outputs(s, size_t(num_inputs), diff));
  typecheck(c.program);
  make_arguments(c, rng, random_special_rate(rng));
  return c;
}

}  // namespace tandem::fuzz
