// Executor implementation: last-use analysis, then a straight walk over the equations (a
// fused run of elementwise ones as one step).
#include "engine/ir/executor.h"

#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/ir/eqn_clock.h"
#include "engine/ir/fusion.h"

namespace tandem {
namespace {

// A literal on a device is uploaded once per process and shared from then on (tensors are
// immutable), so a timed run after its warm-up copies nothing from the host.
Tensor literal_on(const Literal& l, Device d) {
  if (d.kind == DeviceKind::cpu) return Tensor::scalar(l.value, l.dtype);
  uint64_t bits;
  std::memcpy(&bits, &l.value, sizeof bits);
  // Never destroyed: freeing device memory during static destruction would race the CUDA
  // runtime's own teardown.
  static std::mutex& mu = *new std::mutex;
  static auto& uploaded = *new std::map<std::tuple<uint64_t, int, int, int>, Tensor>;
  std::lock_guard<std::mutex> g(mu);
  Tensor& t = uploaded[{bits, int(l.dtype), int(d.kind), d.index}];
  if (!t.defined()) t = Tensor::scalar(l.value, l.dtype).to(d);
  return t;
}

// Input i, checked against the program's type, on the device. One in one of the device's host
// memory kinds (an offloaded residual) stays there: the program's device_put brings it back.
Tensor bound_input(const Tensor& x, const AType& want, size_t i, Device device) {
  if (x.type() != want) throw_bad_input(cat("input ", i, " is ", x.type().str(), ", program expects ", want.str()));
  return x.device().same_device(device) ? x : x.to(device);
}

// Last use of each var: the index of the last eqn reading it; program outputs live on.
std::unordered_map<int64_t, int64_t> last_uses(const Program& prog) {
  std::unordered_map<int64_t, int64_t> last_use;
  for (size_t e = 0; e < prog.eqns.size(); ++e)
    for (const Atom& a : prog.eqns[e].in)
      if (!a.is_literal()) last_use[a.var->id] = int64_t(e);
  for (const Atom& a : prog.out_vars)
    if (!a.is_literal()) last_use[a.var->id] = int64_t(prog.eqns.size());
  return last_use;
}

}  // namespace

std::vector<Tensor> Executor::run(const Program& prog, const std::vector<Tensor>& inputs) {
  if (inputs.size() != prog.in_vars.size())
    throw_bad_input(cat("program takes ", prog.in_vars.size(), " inputs, got ", inputs.size()));
  std::unordered_map<int64_t, Tensor> env;
  for (size_t i = 0; i < inputs.size(); ++i) env[prog.in_vars[i]->id] = bound_input(inputs[i], prog.in_vars[i]->type, i, device_);

  std::unordered_map<int64_t, int64_t> last_use = last_uses(prog);
  auto value_of = [&](const Atom& a) -> Tensor {
    if (a.is_literal()) return literal_on(*a.literal, device_);
    auto it = env.find(a.var->id);
    if (it == env.end()) throw_bad_input(cat("variable used before it is defined (id ", a.var->id, ")"));
    return it->second;
  };

  EvalContext ctx{device_, [this](const Program& p, const std::vector<Tensor>& in) {
                    Executor sub(device_);
                    sub.on_eqn_ = on_eqn_;
                    sub.axes_ = axes_;
                    sub.fusion_min_ = fusion_min_;
                    return sub.run(p, in);
                  },
                  &axes_};
  if (timing_) timings_.clear();
  std::unique_ptr<EqnClock> clock = timing_ ? make_eqn_clock(device_) : nullptr;
  const bool fuse = device_.kind == DeviceKind::cpu && !timing_ && fusion_min_ >= 0;
  const std::vector<size_t> fused_end = fuse ? plan_fusion(prog, fusion_min_) : std::vector<size_t>(prog.eqns.size());
  auto release = [&](size_t e) {  // frees what equation e read last
    for (const Atom& a : prog.eqns[e].in)
      if (!a.is_literal() && last_use[a.var->id] == int64_t(e)) env.erase(a.var->id);
  };
  for (size_t e = 0; e < prog.eqns.size(); ++e) {
    if (const size_t end = fused_end[e]) {  // a fused run: what is read after it is written out
      for (size_t f = e; f < end && on_eqn_; ++f) on_eqn_(prog.eqns[f]);
      auto written = [&](const Var& v) { return last_use.count(v->id) && last_use[v->id] >= int64_t(end); };
      run_fused(prog, e, end, value_of, written, env);
      for (size_t f = e; f < end; ++f) release(f);
      e = end - 1;
      continue;
    }
    const Eqn& eqn = prog.eqns[e];
    const Impl& impl = eqn.prim->impl(device_.kind);
    if (!impl)
      throw_unsupported(cat(eqn.prim->name, " has no ", device_.str(), " implementation"),
                        "run this case on another backend");
    if (on_eqn_) on_eqn_(eqn);
    std::vector<Tensor> args;
    args.reserve(eqn.in.size());
    for (const Atom& a : eqn.in) args.push_back(value_of(a));
    if (clock) clock->start();
    std::vector<Tensor> outs = impl(args, eqn.params, ctx);
    if (clock) {
      clock->stop();
      timings_.push_back({eqn.prim->name, 0});
    }
    args.clear();
    TANDEM_CHECK(outs.size() == eqn.out.size(), eqn.prim->name, " returned ", outs.size(), " outputs");
    for (size_t k = 0; k < outs.size(); ++k) {
      TANDEM_CHECK(outs[k].type() == eqn.out[k]->type, eqn.prim->name, " produced ",
                   outs[k].type().str(), " where ", eqn.out[k]->type.str(), " was declared");
      auto lu = last_use.find(eqn.out[k]->id);
      if (lu != last_use.end()) env[eqn.out[k]->id] = std::move(outs[k]);  // else dead: drop now
    }
    release(e);
  }

  if (clock) {  // a device clock resolves its times only once the run is over
    std::vector<double> s = clock->seconds();
    TANDEM_CHECK(s.size() == timings_.size(), "the equation clock returned ", s.size(), " times");
    for (size_t i = 0; i < s.size(); ++i) timings_[i].seconds = s[i];
  }
  std::vector<Tensor> result;
  for (const Atom& a : prog.out_vars) result.push_back(value_of(a));
  return result;
}

}  // namespace tandem
