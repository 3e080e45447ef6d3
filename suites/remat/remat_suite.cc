// The remat suite: for each model × policy, the vjp's gradients must be bitwise identical to everything_saveable's on
// CPU (within tolerance elsewhere) and match the reference's own reverse mode in f64 (itself checked against central
// differences, sampled at nightly size), nightly-size models included; the records carry the residual count and bytes
// (offloaded bytes as moved to pinned host memory), recomputed primitive applications and FLOPs, and predicted vs
// measured (allocator) peak bytes of forward + backward; the recompute counts are checked against the applications the
// executor really runs, and the saved set against an independent statement of each policy from JAX's definitions
// (policy_statement.h): a residual the policy does not permit fails the case, so the saved count and bytes are gated by
// it. Timing is the harness's.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "bridge/error_spec.h"
#include "bridge/reference_bridge.h"
#include "bridge/reference_vjp.h"
#include "engine/core/allocator.h"
#include "engine/core/error.h"
#include "engine/passes/saved_residuals.h"
#include "harness/case.h"
#include "harness/program_case.h"
#include "reference/grad.h"
#include "suites/remat/policy_statement.h"
#include "suites/remat/remat_models.h"

namespace tandem {
namespace {
using remat::Model;

std::vector<Tensor> inputs_for(const Program& p, const std::string& key) {
  std::vector<Tensor> in;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    const AType& t = p.in_vars[i]->type;
    if (t.dtype == DType::i32) {  // the LSTM's seq_lengths: ragged, T, T-1, ..., at least 1
      std::vector<double> lens;
      for (int64_t b = 0; b < num_elements(t.shape); ++b) lens.push_back(double(std::max<int64_t>(1, 4 - b)));
      in.push_back(Tensor::from_f64(lens, t.shape, t.dtype));
      continue;
    }
    in.push_back(seeded_uniform(t.shape, t.dtype, cat(key, "/", i), -0.8, 0.8));
  }
  return in;
}

// d loss / d inputs of the model traced in f64, two ways: the reference's own reverse mode
// (reference_vjp: a store-everything tape of reference ops, the oracle the engine is
// compared with) and central differences of the reference interpreter (the check on that
// oracle): at every input element for the quick models (ref::grad), at kFdSamples elements
// spread evenly over the inputs for the nightly-size ones, where every element would cost
// millions of forward evaluations. Cached per model: every policy compares with them.
constexpr int64_t kFdSamples = 8;
struct ReferenceGrads {
  std::vector<double> tape, fd;
  std::vector<int64_t> fd_at;  // the flat positions fd holds (empty: all of them)
};
const ReferenceGrads& reference_grads(const Model& m, const std::vector<Tensor>& in32, bool every_fd) {
  static std::mutex mu;
  static std::map<std::string, ReferenceGrads> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(m.label()); it != cache.end()) return it->second;
  Program p64 = m.build(DType::f64, "everything_saveable");
  std::vector<ref::Array> x, all;  // x: the floating inputs, differentiated
  for (const Tensor& t : in32) {
    all.push_back(ref::Array{t.shape(), is_floating(t.dtype()) ? DType::f64 : t.dtype(), t.to_f64()});
    if (is_floating(t.dtype())) x.push_back(all.back());
  }
  ReferenceGrads r;
  for (const ref::Array& a : reference_vjp(p64, all, {ref::scalar(DType::f64, 1)}))
    r.tape.insert(r.tape.end(), a.data.begin(), a.data.end());
  auto loss = [&](const std::vector<ref::Array>& a) {
    std::vector<ref::Array> args = all;
    for (size_t i = 0, k = 0; i < args.size(); ++i)
      if (args[i].dtype == DType::f64) args[i] = a[k++];
    return reference_eval(p64, args).at(0).data.at(0);
  };
  if (every_fd) {
    for (const ref::Array& a : ref::grad(loss, x)) r.fd.insert(r.fd.end(), a.data.begin(), a.data.end());
    return cache[m.label()] = r;
  }
  const int64_t n = int64_t(r.tape.size());
  for (int64_t j = 0; j < std::min(kFdSamples, n); ++j) {
    int64_t flat = (2 * j + 1) * n / (2 * kFdSamples), at = flat;
    size_t k = 0;
    while (at >= x[k].numel()) at -= x[k++].numel();
    double& v = x[k].data[size_t(at)];
    const double x0 = v, h = 1e-5 * std::max(1.0, std::abs(x0));  // ref::grad's step
    v = x0 + h;
    const double up = loss(x);
    v = x0 - h;
    const double down = loss(x);
    v = x0;
    r.fd_at.push_back(flat);
    r.fd.push_back((up - down) / (2 * h));
  }
  return cache[m.label()] = r;
}

// got vs want within 1e-3·|want| + 2e-4·max|want| + 1e-6: gradients through a few dozen f32
// ops against the f64 reference (or its finite differences), a loose hand-set bound whose
// headroom the record states.
CompareReport compare_grads(const std::vector<double>& got, const std::vector<double>& want) {
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  return compare(want, got, ErrorSpec{2e-4 * scale + 1e-6, 1e-3, 0, "1e-3 relative + 2e-4 max|want| + 1e-6"});
}

std::vector<double> flat_grads(const VjpRun& r) {
  std::vector<double> g;
  for (const Tensor& t : r.cotangents) {
    auto v = t.to_f64();
    g.insert(g.end(), v.begin(), v.end());
  }
  return g;
}

// What one case's checks found, gathered step by step into its record.
struct RematFindings {
  bool same = false;  // 1. identical to everything_saveable
  double max_diff = 0;
  double err = 0, scale = 0, ref_vs_fd = 0;  // 2. against the reference
  int64_t fd_count = 0;  // reference tape elements checked by central differences
  nlohmann::json vs_ref;  // the compare report, with its headroom
  bool counts_ok = false;  // 3. recompute counts
  int64_t asks = 0;  // 4. the policy's statement
  bool extra_empty = true, resaved_empty = true;
  int64_t permitted_count = 0, permitted_bytes = 0;
  bool moved_ok = false;  // 5. offloaded bytes
};

void add_failure(CaseResult& r, const std::string& why) {
  r.verdict = Verdict::fail;
  r.message += why;
}

// The backward's run with the allocator watching: its peak over the inputs, what it moved
// to and from pinned host memory, and the gradients it produced.
struct MeasuredRun {
  int64_t peak_bytes = 0, pinned_peak = 0;
  TransferStats moved;
  std::vector<double> grads;
};
MeasuredRun run_measured(const VjpProgram& v, const std::vector<Tensor>& in, const std::vector<Tensor>& ct, Device d) {
  Allocator& A = Allocator::instance();
  int64_t live0 = A.stats(d).live_bytes, in_bytes = 0;
  for (const Tensor& t : in) in_bytes += int64_t(t.nbytes());
  const Device pinned = d.with_memory(MemoryKind::pinned_host);  // where offloads go
  const int64_t pinned0 = A.stats(pinned).live_bytes;
  A.reset_peak(d);
  A.reset_peak(pinned);
  A.reset_transfers(d.kind, d.index);
  VjpRun run = run_vjp(v, in, ct, d);
  MeasuredRun m;
  m.peak_bytes = A.stats(d).peak_bytes - live0 + in_bytes;
  m.moved = A.transfers(d.kind, d.index);
  m.pinned_peak = A.stats(pinned).peak_bytes - pinned0;
  m.grads = flat_grads(run);
  return m;
}

// 1. Identical to everything_saveable (bitwise on CPU); returns that baseline's vjp.
VjpProgram check_identity(const Model& m, const std::vector<Tensor>& in, const std::vector<Tensor>& ct, Device d,
                          const std::vector<double>& g, RematFindings& f, CaseResult& r) {
  VjpProgram base = vjp(m.build(DType::f32, "everything_saveable"));
  std::vector<double> gb = flat_grads(run_vjp(base, in, ct, d));
  for (size_t i = 0; i < g.size(); ++i) f.max_diff = std::max(f.max_diff, std::abs(g[i] - gb[i]));
  f.same = d.kind == DeviceKind::cpu ? g == gb : f.max_diff <= 1e-5;
  if (!f.same) add_failure(r, cat("gradients differ from everything_saveable's by up to ", f.max_diff, "\n"));
  return base;
}

// 2. Against the reference's reverse mode in f64, itself checked by central differences.
void check_against_reference(const Model& m, const std::vector<Tensor>& host, bool quick, const std::vector<double>& g,
                             RematFindings& f, CaseResult& r) {
  const ReferenceGrads& want = reference_grads(m, host, quick);
  for (double w : want.tape) f.scale = std::max(f.scale, std::abs(w));
  if (want.tape.size() != g.size()) {
    add_failure(r, cat(g.size(), " engine cotangents, ", want.tape.size(), " from the reference\n"));
  } else if (CompareReport rep = compare_grads(g, want.tape); f.err = rep.max_abs, f.vs_ref = rep.to_json(), !rep.pass) {
    int64_t bad = rep.first_bad;
    add_failure(r, cat("grad[", bad, "] = ", g[size_t(bad)], ", reference (tape) ", want.tape[size_t(bad)], "\n"));
  }
  std::vector<double> tape_at = want.tape;  // the tape where the differences were taken
  if (!want.fd_at.empty()) {
    tape_at.clear();
    for (int64_t i : want.fd_at) tape_at.push_back(want.tape[size_t(i)]);
  }
  // The tolerance's scale is the whole gradient's, also where only samples are compared.
  CompareReport frep = compare(want.fd, tape_at, ErrorSpec{2e-4 * f.scale + 1e-6, 1e-3, 0, "1e-3 relative + 2e-4 max|want| + 1e-6"});
  f.ref_vs_fd = frep.max_abs;
  f.fd_count = int64_t(want.fd.size());
  int64_t fbad = frep.pass ? -1 : want.fd_at.empty() ? frep.first_bad : want.fd_at[size_t(frep.first_bad)];
  if (fbad >= 0)
    add_failure(r, cat("the reference's reverse mode disagrees with its finite differences at [", fbad,
                "]: ", tape_at[size_t(frep.first_bad)], " vs ", want.fd[size_t(frep.first_bad)], "\n"));
}

// 3. The recompute counts are what the backward really runs: its applications beyond
// everything_saveable's, counted by the executor (scan bodies once per step).
void check_recompute_counts(const VjpProgram& v, const VjpProgram& base, const std::vector<Tensor>& host,
                            RematFindings& f, CaseResult& r) {
  std::vector<Tensor> host_ct{Tensor::scalar(1, DType::f32)};
  std::map<std::string, int64_t> measured_re = executed_recompute(v, base, host, host_ct);
  std::map<std::string, int64_t> reported_re(v.recompute.by_prim.begin(), v.recompute.by_prim.end());
  f.counts_ok = measured_re == reported_re;
  if (f.counts_ok) return;
  std::string why = "recompute counts differ from the applications the backward executes:";
  for (auto& [k, n] : measured_re) why += cat(" ", k, " ran ", n, " reported ", reported_re[k], ";");
  add_failure(r, why + "\n");
}

// 4. The policy is honoured, judged by its independent statement (policy_statement.h, from
// JAX's definitions, not the engine's predicate): what the statement says to recompute is
// recomputed, and every residual saved (or offloaded) is one the statement of the policy it
// falls under permits. A policy saving more changes memory, not gradients, so checks 1-2
// cannot see it; the saved count and bytes are gated here.
void check_policy(const Model& m, const std::string& policy, const VjpProgram& v, const SavedResiduals& s,
                  RematFindings& f, CaseResult& r) {
  const Program model = m.build(DType::f32, policy);
  f.asks = remat::statement_recomputes(model);
  if (f.asks > 0 && s.recompute.eqns == 0)
    add_failure(r, cat("policy ", policy, " says to recompute ", f.asks,
                " equations in the checkpointed bodies (its JAX definition), yet the backward recomputes none\n"));
  const std::vector<remat::Unpermitted> extra = remat::unpermitted_residuals(model, v);
  int64_t extra_bytes = 0;
  for (const remat::Unpermitted& u : extra) {
    if (!u.offloaded) extra_bytes += u.bytes;  // residual_bytes counts the device's
    add_failure(r, cat("residual ", u.residual, " (produced by ", u.producer, ") is saved, but ",
                u.policy.empty() ? policy : u.policy, " does not permit saving it\n"));
  }
  const std::vector<std::string> resaved = remat::recomputed_but_saveable(model, v);
  for (const std::string& prim : resaved)
    add_failure(r, cat("the backward recomputes ", prim, ", but ", policy, " permits saving every ", prim,
                " in the checkpointed bodies\n"));
  f.extra_empty = extra.empty();
  f.resaved_empty = resaved.empty();
  f.permitted_count = s.count_non_arguments() - int64_t(extra.size());
  f.permitted_bytes = s.bytes - s.argument_bytes - extra_bytes;
}

// 5. What the policy offloads is really moved: the bytes device_put copied to pinned host
// memory and back, counted by the Allocator, are the offloaded residuals' bytes.
void check_offload(const TransferStats& moved, const SavedResiduals& s, RematFindings& f, CaseResult& r) {
  f.moved_ok = moved.to_host_bytes == s.offloaded_bytes && moved.to_device_bytes == s.offloaded_bytes;
  if (!f.moved_ok)
    add_failure(r, cat(s.offloaded_bytes, " B of residuals offloaded, but ", moved.to_host_bytes,
                " B moved to pinned host memory and ", moved.to_device_bytes, " B back\n"));
}

// The record: what the checks found, the residuals, recompute and memory measured.
void record(const RematFindings& f, const MeasuredRun& run, const SavedResiduals& s, const VjpProgram& v,
            bool against_reference, CaseResult& r) {
  r.correctness = {{"identical_to_everything_saveable", f.same}, {"max_diff_vs_everything", f.max_diff},
                   {"recompute_counts_match_executed", f.counts_ok}, {"offloaded_bytes_moved", f.moved_ok},
                   {"policy_recompute_answers", f.asks}, {"policy_honoured", f.asks == 0 || s.recompute.eqns > 0},
                   {"saved_set_within_policy", f.extra_empty}, {"saveable_not_recomputed", f.resaved_empty},
                   {"residuals_permitted_by_statement", f.permitted_count},
                   {"residual_bytes_permitted_by_statement", f.permitted_bytes},
                   {"max_abs_err_vs_reference", f.err}, {"reference_grad_scale", f.scale},
                   {"reference_tape_vs_fd_max_abs", f.ref_vs_fd}, {"reference_fd_checked_elements", f.fd_count},
                   {"checked_against_reference", against_reference},
                   {"identity_check", "exact: bitwise equal to everything_saveable's on CPU"}};
  if (!f.vs_ref.is_null()) r.correctness["engine_vs_reference"] = f.vs_ref;
  r.metrics = {{"residuals", double(s.count_non_arguments()), "count", "lower"},
               {"residual_bytes", double(s.bytes - s.argument_bytes), "B", "lower"},
               {"offloaded_bytes", double(run.moved.to_host_bytes), "B", "lower"},  // measured
               {"pinned_host_peak_bytes", double(run.pinned_peak), "B", "lower"},
               {"recomputed_eqns", double(s.recompute.eqns), "count", "lower"},
               {"recomputed_flops", s.recompute.flops, "FLOP", "lower"},
               {"predicted_peak_bytes", double(predicted_vjp_peak_bytes(v)), "B", "lower"},
               {"measured_peak_bytes", double(run.peak_bytes), "B", "lower"}};
  r.info["saved_residuals"] = format_saved_residuals(s);
}

// One case's check: the measured run, then checks 1-5 in order, then its record.
CaseResult check_remat(const Model& m, const std::string& policy, const std::string& profile, bool against_reference,
                       const VjpProgram& v, const std::vector<Tensor>& in, const std::vector<Tensor>& ct, Device d,
                       const std::vector<Tensor>& host) {
  CaseResult r;
  RematFindings f;
  const MeasuredRun run = run_measured(v, in, ct, d);
  const VjpProgram base = check_identity(m, in, ct, d, run.grads, f, r);
  if (against_reference) check_against_reference(m, host, profile == "quick", run.grads, f, r);
  check_recompute_counts(v, base, host, f, r);
  SavedResiduals s = saved_residuals(v);
  check_policy(m, policy, v, s, f, r);
  check_offload(run.moved, s, f, r);
  record(f, run, s, v, against_reference, r);
  return r;
}

// The forward program with its checkpoint policies, for jax.vjp (harness/oracle_program.h).
std::vector<OracleProgram> remat_oracle(const Model& m, const std::string& policy, const VjpProgram& v,
                                        const std::vector<Tensor>& host) {
  OracleProgram o;
  o.label = "forward";
  o.program = m.build(DType::f32, policy);
  o.inputs = host;
  o.output_cts = {Tensor::scalar(1, DType::f32)};
  o.wrt = v.wrt;
  VjpRun run = run_vjp(v, host, o.output_cts, Device::cpu());
  o.engine = run.outputs;
  o.engine.insert(o.engine.end(), run.cotangents.begin(), run.cotangents.end());
  o.note = "run_vjp(vjp(forward)): tandem's forward + backward under the policy";
  o.residuals = v.residuals;
  o.recompute = v.recompute;
  return std::vector<OracleProgram>{o};
}

Case remat_case(const Model& m, const std::string& policy, const std::string& profile, bool against_reference) {
  Case c;
  c.suite = "remat";
  c.name = cat("remat/", m.label(), "/policy:", policy);
  c.params = {{"model", m.kind}, {"layers", m.layers}, {"batch", m.batch}, {"width", m.width},
              {"seq", m.seq}, {"policy", policy}};
  c.profiles = profiles_from(profile);
  c.instantiate = [m, policy, profile, against_reference, name = m.label()](Device d) {
    auto v = std::make_shared<VjpProgram>(vjp(m.build(DType::f32, policy)));
    std::vector<Tensor> host = inputs_for(v->forward, name);
    auto in = std::make_shared<std::vector<Tensor>>();
    for (const Tensor& t : host) in->push_back(t.to(d));
    auto ct = std::make_shared<std::vector<Tensor>>(std::vector<Tensor>{Tensor::scalar(1, DType::f32).to(d)});
    CaseInstance inst;
    inst.body = [v, in, ct, d] { run_vjp(*v, *in, *ct, d); };
    inst.check = [m, v, in, ct, d, host, against_reference, policy, profile] {
      return check_remat(m, policy, profile, against_reference, *v, *in, *ct, d, host);
    };
    inst.oracle = [m, policy, v, host] { return remat_oracle(m, policy, *v, host); };
    return inst;
  };
  return c;
}
}  // namespace

void register_remat_suite(Registry& r) {
  std::vector<std::pair<Model, std::string>> models = {
      {Model{"mlp", 4, 4, 8, 4, {"pre", "act"}}, "quick"},
      {Model{"attention", 1, 2, 8, 4, {"scores", "probs"}}, "quick"},
      {Model{"scan_mlp", 4, 4, 8, 4, {"pre", "act"}}, "quick"},
      {Model{"scan_in_checkpoint", 4, 4, 8, 4, {"pre", "act"}}, "quick"},
      {Model{"sin_chain", 16, 1, 8, 1, {"", ""}}, "quick"},
      {Model{"lstm", 1, 3, 4, 4, {"", ""}}, "quick"},
      {Model{"dots_in_scan", 2, 1, 5, 1, {"", ""}}, "quick"},
      {Model{"rnn_wt", 1, 3, 4, 4, {"", ""}}, "quick"},
      {Model{"sort_ties", 1, 3, 6, 1, {"", ""}}, "quick"},
  };
  for (auto& [m, profile] : models)
    for (const std::string& p : remat::policies_for(m)) r.add(remat_case(m, p, profile, true));
  // Nightly size, also against the reference (its reverse mode blocked and threaded, its
  // finite differences sampled; lab/README.md "Reference reverse mode at nightly size"):
  // the memory-time trade of an 8-layer 512-wide MLP, each layer checkpointed; the LSTM
  // Program at DeepBench's smallest training shape; recursive checkpointing of a long chain.
  Model big{"mlp", 8, 512, 512, 1, {"pre", "act"}};
  for (const std::string& p : remat::policies_for(big)) r.add(remat_case(big, p, "nightly", true));
  Model lstm{"lstm", 1, 16, 512, 25, {"", ""}};
  for (const std::string& p : remat::policies_for(lstm)) r.add(remat_case(lstm, p, "nightly", true));
  Model chain{"sin_chain", 64, 1, 1 << 16, 1, {"", ""}};
  for (const char* p : {"everything_saveable", "nothing_saveable"}) r.add(remat_case(chain, p, "nightly", true));
}

}  // namespace tandem
