// saved_residuals, its printer and the liveness model behind the predicted peak bytes.
#include "engine/passes/saved_residuals.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "engine/core/error.h"
#include "engine/prims/device_put.h"

namespace tandem {
namespace {
int64_t bytes_of(const AType& t) { return num_elements(t.shape) * int64_t(dtype_size(t.dtype)); }

// Input bytes and the peak of live non-input bytes while the executor runs p.
std::pair<int64_t, int64_t> liveness(const Program& p) {
  std::unordered_set<int64_t> inputs;
  int64_t in_bytes = 0;
  for (const Var& v : p.in_vars)
    if (inputs.insert(v->id).second) in_bytes += bytes_of(v->type);
  std::unordered_map<int64_t, size_t> last;
  const size_t forever = p.eqns.size();
  for (size_t e = 0; e < p.eqns.size(); ++e)
    for (const Atom& a : p.eqns[e].in)
      if (!a.is_literal()) last[a.var->id] = e;
  for (const Atom& a : p.out_vars)
    if (!a.is_literal()) last[a.var->id] = forever;
  std::unordered_map<int64_t, int64_t> live;
  int64_t cur = 0, peak = 0;
  for (size_t e = 0; e < p.eqns.size(); ++e) {
    const Eqn& q = p.eqns[e];
    // No new device buffer: a view, a name, or a copy into host memory (an offload).
    bool view = q.prim->name == "reshape" || q.prim->name == "checkpoint_name" || is_offload(q);
    for (const Var& v : q.out) {
      int64_t b = view ? 0 : bytes_of(v->type);
      cur += b;
      if (last.count(v->id)) live[v->id] = b;
    }
    peak = std::max(peak, cur);
    for (const Var& v : q.out)
      if (!last.count(v->id)) cur -= view ? 0 : bytes_of(v->type);
    for (const Atom& a : q.in)
      if (!a.is_literal() && last[a.var->id] == e && live.count(a.var->id)) {
        cur -= live[a.var->id];
        live.erase(a.var->id);
      }
  }
  return {in_bytes, peak};
}
}  // namespace

int64_t SavedResiduals::count_non_arguments() const {
  return int64_t(std::count_if(residuals.begin(), residuals.end(), [](const Residual& r) { return !r.is_argument; }));
}

SavedResiduals saved_residuals(const VjpProgram& v) {
  SavedResiduals s;
  s.residuals = v.residuals;
  s.recompute = v.recompute;
  for (const Residual& r : v.residuals) {
    (r.offloaded ? s.offloaded_bytes : s.bytes) += r.bytes();
    if (r.is_argument) s.argument_bytes += r.bytes();
  }
  return s;
}

SavedResiduals saved_residuals(const Program& p, const Policy& top, std::vector<bool> wrt) {
  return saved_residuals(vjp(p, std::move(wrt), top));
}

std::string format_saved_residuals(const SavedResiduals& s) {
  std::ostringstream o;
  for (const Residual& r : s.residuals)
    o << r.type.str() << "  " << r.bytes() << " B  " << r.source << (r.offloaded ? "  [offloaded]" : "") << "\n";
  o << "total: " << s.residuals.size() << " residuals, " << s.bytes << " B saved (" << s.argument_bytes
    << " B of them arguments), " << s.offloaded_bytes << " B offloaded\n";
  o << "recomputed in the backward: " << s.recompute.eqns << " primitive applications, "
    << s.recompute.flops << " FLOPs";
  const char* sep = " (";
  for (auto& [k, n] : s.recompute.by_prim) {
    o << sep << k << " x" << n;
    sep = ", ";
  }
  if (!s.recompute.by_prim.empty()) o << ")";
  o << "\n";
  return o.str();
}

int64_t predicted_peak_bytes(const Program& p) {
  auto [in, peak] = liveness(p);
  return in + peak;
}

int64_t predicted_vjp_peak_bytes(const VjpProgram& v) {
  auto [f_in, f_peak] = liveness(v.forward);
  int64_t held = f_in;  // the caller's inputs
  for (size_t i = 0; i < v.forward.out_vars.size(); ++i) {  // offloaded residuals: in host memory
    const Residual* r = i >= v.num_outputs ? &v.residuals[i - v.num_outputs] : nullptr;
    if (!r || !(r->is_argument || r->offloaded)) held += bytes_of(v.forward.out_vars[i].type());  // outputs and saved residuals
  }
  for (size_t i = 0; i < v.num_outputs; ++i) held += bytes_of(v.forward.out_vars[i].type());  // cts
  return std::max(f_in + f_peak, held + liveness(v.backward).second);
}

std::function<void(const char*, const Eqn&)> backward_counter(std::map<std::string, int64_t>& into) {
  return [&into](const char* phase, const Eqn& e) {  // offloaded residuals' reloads: transfers, not recomputation
    if (std::string(phase) == "backward" && e.prim->name != "device_put") ++into[e.prim->name];
  };
}

std::map<std::string, int64_t> executed_backward_applications(const VjpProgram& v, const std::vector<Tensor>& inputs,
                                                              const std::vector<Tensor>& output_cts) {
  std::map<std::string, int64_t> c;
  run_vjp(v, inputs, output_cts, Device::cpu(), backward_counter(c));
  return c;
}

std::map<std::string, int64_t> executed_recompute(const VjpProgram& v, const VjpProgram& baseline, const std::vector<Tensor>& inputs,
                                                  const std::vector<Tensor>& output_cts) {
  std::map<std::string, int64_t> d = executed_backward_applications(v, inputs, output_cts);
  for (auto& [k, n] : executed_backward_applications(baseline, inputs, output_cts)) d[k] -= n;
  for (auto it = d.begin(); it != d.end();) it = it->second == 0 ? d.erase(it) : std::next(it);
  return d;
}

}  // namespace tandem
