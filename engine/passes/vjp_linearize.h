// The vjp pass's linearization of one level (vjp.cc: the forward steps and the fixed point
// over the scans' replays; vjp_backward.cc: the backward steps). Private to the pass.
#pragma once
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/passes/vjp.h"
#include "engine/passes/vjp_level.h"
#include "engine/passes/vjp_scan.h"

namespace tandem::vjp_detail {

// A level's linearization: a round that finds a scan output its replay does not rebuild asks
// for it in the next (monotone: the outputs are finitely many).
VjpProgram linearize(const Program& p, const std::vector<bool>& wrt, const Policy& pol, const LevelOpts& o);

// What the backward does for one equation of the level, filled in by the forward copy.
struct Task {
  size_t feqn = 0;                       // regular, scan: index of its forward eqn
  std::shared_ptr<VjpProgram> inner;     // checkpoint: the body's linearization
  std::shared_ptr<ScanSplit> scan;       // scan: the body split by the policy
  std::vector<Value> in, out, res;       // checkpoint / scan: operands, outputs, residuals
  bool replays = false;                  // scan under remat: rebuilds what it does not save
  std::optional<Replayed> replayed;      // ... its replay, once emitted
  std::vector<Value> hoisted;            // scan: its saved loop-invariant residuals, in the forward
  std::optional<std::vector<Value>> hoisted_b;  // ... all of them in the backward, once emitted
};

// One linearization of a level, the scans' replays rebuilding the outputs in `needs`; an
// output the backward reads beyond them is added to `missed` (the result is then not used).
// The steps, in order: the forward copy (forward(): each checkpoint's own forward inlined,
// each scan split), the buffers a value shares with its names (group_buffers()), the
// backward in reverse equation order (backward(): a residual is saved or recomputed on
// demand by need()), what a replayed scan body must save (save_for_replay()), and the
// two programs (finish()). Control flow is told apart by trait (kRemat, kLoop), never by name.
class Linearizer {
 public:
  Linearizer(const Program& p, const std::vector<bool>& wrt, const Policy& pol, const LevelOpts& opts,
             const ScanNeeds& needs, ScanNeeds& missed)
      : p_(p), wrt_(wrt), pol_(pol), opts_(opts), needs_(needs), missed_(missed) {}
  VjpProgram run() {
    forward();
    group_buffers();
    backward();
    save_for_replay();
    return finish();
  }

 private:
  // ---- forward -----------------------------------------------------------------------
  void forward();
  void forward_checkpoint(const Eqn& e, const std::vector<Value>& args, Task& t, std::vector<Value>& outs);
  void forward_scan(size_t ei, const Eqn& e, const std::vector<Value>& args, Task& t, std::vector<Value>& outs);
  std::vector<bool> scan_wrt(const Eqn& e, const std::vector<Value>& args) const;
  Value fval(const Atom& a) {
    return a.is_literal() ? F.literal(a.literal->value, a.literal->dtype) : fenv.at(a.var->id);
  }
  // Activity analysis, as JAX's symbolic zeros: a value is active when it is floating and a
  // differentiated input reaches it; only active values get a cotangent, so an equation
  // no differentiated input reaches is not differentiated and saves nothing.
  void mark_active(const std::vector<Value>& args, const std::vector<Value>& outs);
  bool active(const Value& fv) const { return !fv.atom().is_literal() && active_.count(fv.atom().var->id) > 0; }
  std::vector<bool> active_of(const std::vector<Value>& args) const {
    std::vector<bool> r;
    for (const Value& v : args) r.push_back(active(v));
    return r;
  }
  void mark_new(size_t from) {
    for (size_t k = from; k < F.eqns().size(); ++k)
      for (const Var& v : F.eqns()[k].out) producer[v->id] = int64_t(k);
  }
  // ---- buffers and the policy --------------------------------------------------------
  void group_buffers();
  int64_t root_of(int64_t id) const;
  Remat decide(int64_t id) const;
  // ---- backward ----------------------------------------------------------------------
  Value need(const Value& fv);
  Value save_residual(const Value& fv, int64_t root, Remat how, bool replayed = false);
  Value recompute(const Value& fv);
  bool on_replay_path(int64_t id);
  bool loop_invariant(int64_t id);
  std::optional<Value> rebuilt(size_t ti, int64_t id);
  const Replayed& replay_of(Task& t);
  const std::vector<Value>& hoisted_of(Task& t);
  void accumulate(const Value& fv, const Value& ct);
  std::optional<Value> ct_of(const Value& fv) const {
    auto it = fv.atom().is_literal() ? cts.end() : cts.find(fv.atom().var->id);
    return it == cts.end() ? std::nullopt : std::optional<Value>(it->second);
  }
  void backward();
  void backward_checkpoint(Task& t, const std::vector<std::optional<Value>>& oc);
  void backward_scan(Task& t, const std::vector<std::optional<Value>>& oc);
  void backward_eqn(const Task& t);
  void reach(const Value& fv);
  void save_for_replay();
  VjpProgram finish();

  const Program& p_;
  const std::vector<bool>& wrt_;
  const Policy& pol_;
  const LevelOpts& opts_;
  const ScanNeeds& needs_;
  ScanNeeds& missed_;
  // The forward: its builder, the level's vars in it, and who produced each.
  Builder F;
  std::unordered_map<int64_t, Value> fenv;
  std::unordered_map<int64_t, int64_t> producer;  // forward var id -> eqn index (-1-i: input i)
  std::unordered_map<int64_t, Var> var_of;
  std::unordered_set<int64_t> active_;  // forward var ids a differentiated input reaches
  std::vector<Task> tasks;
  std::unordered_map<size_t, size_t> scan_task;     // forward eqn of a scan -> its task
  std::unordered_map<int64_t, Residual> inner_res;  // inner residuals keep their name and pool
  std::unordered_map<int64_t, Residual> stacked;    // a scan's stacked residuals: saved here
  std::vector<Value> fouts;
  std::unordered_map<int64_t, std::vector<int64_t>> buffer;  // root -> the value and its names
  // The backward.
  VjpProgram r;
  Builder B;
  std::vector<Var> ct_vars, res_vars;
  std::vector<Value> res_fvals;
  std::unordered_map<int64_t, Value> bvals, cts;  // keyed by forward var id
  std::unordered_map<int64_t, Value> saved_root;  // buffer root -> its residual
  std::unordered_set<int64_t> reached;
  std::optional<std::unordered_set<int64_t>> replay_path;  // on_replay_path's, once computed
  std::unordered_map<int64_t, bool> invariant;             // loop_invariant's
};

}  // namespace tandem::vjp_detail
