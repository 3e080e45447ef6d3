// place_offloads (offload.h): insert the transfers, rename the backward's uses.
#include "engine/passes/offload.h"

#include <map>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/ir/primitive.h"

namespace tandem {
namespace {

Eqn transfer(const Var& from, const Var& to, MemoryKind dst, MemoryKind src) {
  Eqn e;
  e.prim = &primitive("device_put");
  e.in = {Atom(from)};
  e.out = {to};
  e.params = Params{{"memory_kind", std::string(memory_kind_name(dst))},
                    {"src_memory_kind", std::string(memory_kind_name(src))}};
  return e;
}

// eqns with each insert placed before the equation of its index (at the end for size()).
std::vector<Eqn> with_inserts(const std::vector<Eqn>& eqns, const std::multimap<size_t, Eqn>& inserts) {
  std::vector<Eqn> r;
  r.reserve(eqns.size() + inserts.size());
  for (size_t i = 0; i <= eqns.size(); ++i) {
    auto [lo, hi] = inserts.equal_range(i);
    for (auto it = lo; it != hi; ++it) r.push_back(it->second);
    if (i < eqns.size()) r.push_back(eqns[i]);
  }
  return r;
}

}  // namespace

void place_offloads(VjpProgram& v) {
  Program &F = v.forward, &B = v.backward;
  std::unordered_map<int64_t, size_t> producer;
  for (size_t k = 0; k < F.eqns.size(); ++k)
    for (const Var& o : F.eqns[k].out) producer[o->id] = k;
  std::multimap<size_t, Eqn> fwd, bwd;
  for (size_t j = 0; j < v.residuals.size(); ++j) {
    if (!v.residuals[j].offloaded) continue;
    Atom& out = F.out_vars.at(v.num_outputs + j);
    TANDEM_CHECK(!out.is_literal(), "place_offloads: residual ", j, " is a literal");
    Var host = new_var(out.var->type);
    auto p = producer.find(out.var->id);
    fwd.emplace(p == producer.end() ? 0 : p->second + 1, transfer(out.var, host, MemoryKind::pinned_host, MemoryKind::device));
    out = Atom(host);

    const Var in = B.in_vars.at(j);
    Var loaded = new_var(in->type);
    size_t first = B.eqns.size();
    for (size_t k = B.eqns.size(); k-- > 0;)
      for (Atom& a : B.eqns[k].in)
        if (!a.is_literal() && a.var->id == in->id) {
          a = Atom(loaded);
          first = k;
        }
    for (Atom& a : B.out_vars)
      if (!a.is_literal() && a.var->id == in->id) a = Atom(loaded);
    bwd.emplace(first, transfer(in, loaded, MemoryKind::device, MemoryKind::pinned_host));
  }
  F.eqns = with_inserts(F.eqns, fwd);
  B.eqns = with_inserts(B.eqns, bwd);
}

}  // namespace tandem
