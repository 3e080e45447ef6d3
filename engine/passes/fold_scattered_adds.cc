// fold_scattered_adds (see the header): one walk per program level over the original use
// lists; each matching add is replaced in place by dynamic_slice + add + dynamic_update_slice
// on the other operand, and the zeros and the scattered update become dead and are dropped.
#include "engine/passes/fold_scattered_adds.h"

#include <map>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"
#include "engine/passes/hoist_analysis.h"
#include "engine/passes/hoist_rewrite.h"
#include "engine/passes/pass_typecheck.h"

namespace tandem {
namespace {

using hoist::emit;

// The eqn that defines `a` when it is `prim` read only by `reader`, else nullptr.
const Eqn* sole_def(const Program& p, const hoist::Uses& u, const Atom& a, const char* prim, size_t reader) {
  if (a.is_literal() || u.outputs.count(a.var->id)) return nullptr;
  auto d = u.def_eqn.find(a.var->id);
  if (d == u.def_eqn.end() || p.eqns[d->second].prim->name != prim) return nullptr;
  std::vector<size_t> r = u.readers_of(a.var);
  return r.size() == 1 && r[0] == reader ? &p.eqns[d->second] : nullptr;
}

// dynamic_update_slice(zeros, g, starts...) read only by eqn `reader`, or nullptr.
const Eqn* scattered_update(const Program& p, const hoist::Uses& u, const Atom& a, size_t reader) {
  const Eqn* dus = sole_def(p, u, a, "dynamic_update_slice", reader);
  if (!dus) return nullptr;
  size_t at = u.def_eqn.at(dus->out[0]->id);
  const Eqn* zeros = sole_def(p, u, dus->in[0], "broadcast_in_dim", at);
  bool zero = zeros && zeros->in[0].is_literal() && zeros->in[0].literal->value == 0.0;
  return zero ? dus : nullptr;
}

void fold_level(Program& p, const std::string& path, HoistResult& out) {
  hoist::Uses u = hoist::compute_uses(p);
  const int rewrites_before = out.rewrites;
  std::vector<Eqn> eqns;
  for (size_t e = 0; e < p.eqns.size(); ++e) {
    const Eqn& add = p.eqns[e];
    const Eqn* dus = nullptr;
    size_t side = 0;
    if (add.prim->name == "add" && add.in.size() == 2 && add.in[0].type() == add.in[1].type())
      for (side = 0; side < 2 && !dus; ++side) dus = scattered_update(p, u, add.in[side], e);
    if (!dus) {
      eqns.push_back(add);
      continue;
    }
    --side;  // the scattered operand; the other is X
    const Atom& x = add.in[1 - side];
    const Atom& g = dus->in[1];
    std::vector<Atom> starts(dus->in.begin() + 2, dus->in.end());
    std::vector<Atom> ds_in{x};
    ds_in.insert(ds_in.end(), starts.begin(), starts.end());
    Var window = emit(eqns, "dynamic_slice", ds_in, {{"slice_sizes", g.type().shape}});
    Var sum = side == 0 ? emit(eqns, "add", {g, window}, {}) : emit(eqns, "add", {window, g}, {});
    std::vector<Atom> dus_in{x, sum};
    dus_in.insert(dus_in.end(), starts.begin(), starts.end());
    emit(eqns, "dynamic_update_slice", dus_in, {}, add.out[0]);
    out.notes.push_back(PassNote{true, "", cat(path, "add@", e),
                                 cat("adds ", g.type().str(), " into a window of ", x.type().str(),
                                     " instead of a full-size add of scattered zeros")});
    ++out.rewrites;
  }
  const bool changed = eqns.size() != p.eqns.size() || out.rewrites != rewrites_before;
  p.eqns = std::move(eqns);
  if (changed) p = hoist::remove_dead_eqns(p);  // the zeros and scattered updates now unread
  for (size_t i = 0; i < p.eqns.size(); ++i) {
    Eqn& e = p.eqns[i];
    for (const auto& [key, param] : std::map<std::string, Param>(e.params.items()))
      if (auto* sub = std::get_if<ProgramPtr>(&param)) {
        Program inner = **sub;
        int before = out.rewrites;
        fold_level(inner, cat(path, e.prim->name, "@", i, "/", key, ": "), out);
        if (out.rewrites != before) e.params.set(key, std::make_shared<const Program>(std::move(inner)));
      }
  }
}

}  // namespace

HoistResult fold_scattered_adds(const Program& program) {
  HoistResult r;
  r.program = program;
  fold_level(r.program, "", r);
  typecheck_after_pass(r.program, "fold_scattered_adds");
  r.log = note_strings(r.notes);
  return r;
}

}  // namespace tandem
