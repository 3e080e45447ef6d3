// Collectives under vmap. The examples of a vmap with axis_name are the
// members of that axis, so the reference is the mesh model (bridge/
// reference_collectives.h) with one virtual rank per example:
//  - vmap/coll/<program>/axes:<lead|last>/n:<n>: vmap(f, axis_name "batch") on the engine
//    (its collectives become array ops) against every virtual rank's f on the reference;
//  - vmap/coll/two_axes/...: vmap(vmap(f, "inner"), "outer"), collectives naming either axis
//    or both (the inner vmap carries the outer axis's collectives through its batch rules);
//  - vmap/coll/grad/<program>: vmap(vjp(f)) (the collectives' transposes, batched) against
//    the reference's own reverse mode of vmap(f);
//  - refusals: a collective over an unbound axis or with the wrong axis size is bad input.
#include <algorithm>
#include <cmath>
#include <functional>

#include "bridge/error_spec.h"
#include "bridge/reference_bridge.h"
#include "bridge/reference_collectives.h"
#include "bridge/reference_vjp.h"
#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "engine/passes/vmap.h"
#include "engine/prims/collective_prims.h"
#include "harness/program_case.h"
#include "suites/vmap/vmap_cases.h"
#include "suites/vmap/vmap_collective_programs.h"

namespace tandem::vmap_suite {
namespace {

// f32 against f64: a sum over n members, each term rounded once, then a few elementwise
// ops: (n + 4) roundoffs of the largest magnitude, doubled for headroom.
ErrorSpec member_spec(int64_t n, double scale) {
  ErrorSpec s;
  s.abs = 2.0 * double(n + 4) * std::ldexp(1.0, -24) * std::max(scale, 1.0);
  s.why = cat("2 x (n + 4) f32 roundoffs of max |want| (n = ", n, ": a sum over the members)");
  return s;
}

void compare_into(CaseResult& r, const std::string& label, const Tensor& want, const Tensor& got, int64_t n) {
  if (got.shape() != want.shape()) {
    r.verdict = Verdict::fail;
    r.message += cat(label, ": shape ", got.type().str(), ", the reference gives ", want.type().str(), "\n");
    return;
  }
  std::vector<double> wv = want.to_f64();
  double mx = 0;
  for (double v : wv) mx = std::max(mx, std::abs(v));
  ErrorSpec spec = member_spec(n, mx);
  CompareReport rep = compare(wv, got.to_f64(), spec);
  r.correctness[label] = rep.to_json();
  if (!rep.pass) {
    r.verdict = Verdict::fail;
    r.message += label + ": " + rep.text() + "\n";
  }
}

// The mesh reference's outputs of every member, stacked: member m's output j at index m of
// axis `axis` (a one-axis mesh), or at [o][i] of axes 0 and 1 (outer-major, two axes).
std::vector<Tensor> stacked(const std::vector<std::vector<ref::Array>>& per_member, int64_t axis, int64_t inner = 0) {
  std::vector<Tensor> r;
  for (size_t j = 0; j < per_member[0].size(); ++j) {
    std::vector<Tensor> all;
    for (const auto& m : per_member) all.push_back(from_ref(m[j]));
    if (inner == 0) {
      r.push_back(stack(all, axis));
      continue;
    }
    std::vector<Tensor> rows;
    for (size_t o = 0; o < all.size(); o += size_t(inner))
      rows.push_back(stack(std::vector<Tensor>(all.begin() + long(o), all.begin() + long(o) + inner), 0));
    r.push_back(stack(rows, 0));
  }
  return r;
}

// The batched axis of a value of per-example rank r: lead 0, last -1, neg_lead -(r + 1) (the
// leading axis written negative).
int64_t config_axis(const std::string& config, int r) { return config == "lead" ? 0 : config == "last" ? -1 : -(r + 1); }

Case collective_case(const CollectiveProgram& cp, const std::string& config, int64_t n) {
  Case c = vmap_case(cat("coll/", cp.name, "/axes:", config, "/n:", n), "quick",
                     {{"program", cp.name}, {"axes", config}, {"n", n}, {"collectives", true}});
  c.instantiate = [cp, config, n, key = c.name](Device dev) {
    auto f = std::make_shared<Program>(cp.build(n));
    std::vector<VmapAxis> in_axes, out_axes;
    auto xs = std::make_shared<std::vector<Tensor>>();
    for (size_t i = 0; i < f->in_vars.size(); ++i) {
      AType t = f->in_vars[i]->type;
      if (int(i) < cp.unmapped_inputs) {
        in_axes.push_back(std::nullopt);
      } else {
        int64_t a = config_axis(config, t.rank());
        in_axes.push_back(a);
        t.shape.insert(t.shape.begin() + (a < 0 ? a + t.rank() + 1 : a), n);
      }
      xs->push_back(seeded_uniform(t.shape, t.dtype, i ? cat(key, "/", i) : key, -1, 1));
    }
    for (const AType& o : f->out_types()) out_axes.push_back(config_axis(config, o.rank()));
    auto batched = std::make_shared<Program>(vmap(*f, in_axes, out_axes, n, "batch"));
    auto on = [xs](Device d) {
      std::vector<Tensor> r;
      for (const Tensor& x : *xs) r.push_back(x.to(d));
      return r;
    };
    CaseInstance inst;
    inst.body = [batched, on, dev] { Executor(dev).run(*batched, on(dev)); };
    inst.check = [f, batched, xs, on, in_axes, dev, config, n] {
      std::vector<Tensor> got = Executor(dev).run(*batched, on(dev));
      std::vector<std::vector<ref::Array>> members(static_cast<size_t>(n));
      for (size_t i = 0; i < xs->size(); ++i) {
        std::vector<Tensor> per = in_axes[i] ? unstack((*xs)[i], *in_axes[i]) : std::vector<Tensor>(size_t(n), (*xs)[i]);
        for (int64_t m = 0; m < n; ++m) members[size_t(m)].push_back(to_ref(per[size_t(m)]));
      }
      std::vector<Tensor> want = stacked(reference_eval_mesh(*f, members, RefMesh{{{"batch", int(n)}}}), config == "last" ? -1 : 0);
      CaseResult r;
      r.correctness = nlohmann::json::object();
      for (size_t j = 0; j < want.size(); ++j) compare_into(r, cat("output ", j), want[j], got[j].to(Device::cpu()), n);
      r.info["batched_eqns"] = batched->eqns.size();
      return r;
    };
    return inst;
  };
  return c;
}

Case two_axes_case(int64_t n_outer, int64_t n_inner) {
  Case c = vmap_case(cat("coll/two_axes/outer:", n_outer, "/inner:", n_inner), "quick",
                     {{"outer", n_outer}, {"inner", n_inner}, {"collectives", true}});
  c.instantiate = [n_outer, n_inner, key = c.name](Device dev) {
    auto f = std::make_shared<Program>(two_axis_program("outer", n_outer, "inner", n_inner));
    Program inner = vmap(*f, {0}, {}, n_inner, "inner");
    auto batched = std::make_shared<Program>(vmap(inner, {0}, {}, n_outer, "outer"));
    auto x = std::make_shared<Tensor>(seeded_uniform({n_outer, n_inner, 2, 3}, DType::f32, key, -1, 1));
    CaseInstance inst;
    inst.body = [batched, x, dev] { Executor(dev).run(*batched, {x->to(dev)}); };
    inst.check = [f, batched, x, dev, n_outer, n_inner] {
      std::vector<Tensor> got = Executor(dev).run(*batched, {x->to(dev)});
      std::vector<std::vector<ref::Array>> members;
      for (const Tensor& o : unstack(*x, 0))
        for (const Tensor& i : unstack(o, 0)) members.push_back({to_ref(i)});
      RefMesh mesh{{{"outer", int(n_outer)}, {"inner", int(n_inner)}}};
      std::vector<Tensor> want = stacked(reference_eval_mesh(*f, members, mesh), 0, n_inner);
      CaseResult r;
      r.correctness = nlohmann::json::object();
      for (size_t j = 0; j < want.size(); ++j)
        compare_into(r, cat("output ", j), want[j], got[j].to(Device::cpu()), n_outer * n_inner);
      return r;
    };
    return inst;
  };
  return c;
}

// vmap(vjp(f)): each example's input cotangent, through the collectives' transposes over
// the vmapped axis, against the reference's reverse mode of the batched program vmap(f)
// (array ops only) with the same stacked output cotangents.
Case gradient_case(const CollectiveProgram& cp, int64_t n) {
  Case c = vmap_case(cat("coll/grad/", cp.name, "/n:", n), "quick", {{"program", cp.name}, {"n", n}, {"gradient", true}});
  c.instantiate = [cp, n, key = c.name](Device dev) {
    Program f = cp.build(n);
    size_t nout = f.out_vars.size();
    auto fwd = std::make_shared<Program>(vmap(f, {0}, {}, n, "batch"));
    auto joint = std::make_shared<Program>(vmap(vjp_joint(f), {}, {}, n, "batch"));
    auto args = std::make_shared<std::vector<Tensor>>();
    AType t = f.in_vars[0]->type;
    Shape s = t.shape;
    s.insert(s.begin(), n);
    args->push_back(seeded_uniform(s, t.dtype, key + "/x", -1, 1));
    for (const AType& o : fwd->out_types()) args->push_back(seeded_uniform(o.shape, o.dtype, cat(key, "/ct", args->size()), -1, 1));
    CaseInstance inst;
    inst.body = [joint, args, dev] { Executor(dev).run(*joint, *args); };
    inst.check = [fwd, joint, args, dev, nout, n] {
      std::vector<Tensor> dev_args;
      for (const Tensor& a : *args) dev_args.push_back(a.to(dev));
      std::vector<Tensor> got = Executor(dev).run(*joint, dev_args);
      std::vector<ref::Array> cts;
      for (size_t j = 1; j < args->size(); ++j) cts.push_back(to_ref((*args)[j]));
      std::vector<ref::Array> want = reference_vjp(*fwd, {to_ref((*args)[0])}, cts);
      CaseResult r;
      r.correctness = nlohmann::json::object();
      compare_into(r, "d/dx", from_ref(want[0]), got[nout].to(Device::cpu()), n);
      return r;
    };
    return inst;
  };
  return c;
}

// Runs f's collective where `axis` is not bound (neither vmapped nor in the axis env).
void run_unbound() {
  Program f = trace({AType{{3}, DType::f32}}, [](Builder&, const std::vector<Value>& v) {
    return std::vector<Value>{psum(v[0], "ranks")};
  });
  Program batched = vmap(f, {0}, {0}, 2, "batch");
  Executor(Device::cpu()).run(batched, {Tensor::zeros({2, 3}, DType::f32)});
}
}  // namespace

void add_collective_cases(Registry& r) {
  for (const CollectiveProgram& cp : collective_programs()) {
    for (const char* cfg : {"lead", "last", "neg_lead"})
      for (int64_t n : {1, 3, 4}) r.add(collective_case(cp, cfg, n));
    if (cp.differentiable && cp.unmapped_inputs == 0) r.add(gradient_case(cp, 3));  // one mapped input
  }
  // The axes JAX binds as given and so refuses negative (lax/parallel.py: only all_gather
  // canonicalizes): tandem refuses them as bad input, not a wrong layout.
  auto negative = [](std::function<Value(Value)> op) {  // traces op on an f32[3, 6]
    return [op] { trace({AType{{3, 6}, DType::f32}}, [&](Builder&, const std::vector<Value>& v) { return std::vector<Value>{op(v[0])}; }); };
  };
  r.add(refusal_case("psum_scatter_negative_dimension", negative([](Value x) { return psum_scatter(x, "batch", 3, -2); }),
                     "scatter_dimension -2 is negative"));
  r.add(refusal_case("psum_scatter_tiled_negative_dimension",
                     negative([](Value x) { return psum_scatter(x, "batch", 3, -1, true); }), "scatter_dimension -1 is negative"));
  r.add(refusal_case("all_to_all_negative_split_axis", negative([](Value x) { return all_to_all(x, "batch", 3, -2, 1); }),
                     "split_axis -2 is negative"));
  r.add(refusal_case("all_to_all_negative_concat_axis",
                     negative([](Value x) { return all_to_all(x, "batch", 3, 0, -1, true); }), "concat_axis -1 is negative"));
  r.add(refusal_case("all_gather_axis_out_of_range", negative([](Value x) { return all_gather(x, "batch", 3, -4); }),
                     "axis -4 is out of range for rank 3"));
  r.add(two_axes_case(2, 3));
  r.add(two_axes_case(3, 1));
  r.add(refusal_case("collective_axis_not_bound", run_unbound, "axis 'ranks': the axis is not bound"));
  r.add(refusal_case("collective_axis_size_mismatch", [] {
    Program f = trace({AType{{3}, DType::f32}}, [](Builder&, const std::vector<Value>& v) {
      return std::vector<Value>{all_gather(v[0], "batch", 3)};
    });
    vmap(f, {0}, {}, 4, "batch");
  }, "built for axis_size 3"));
}

}  // namespace tandem::vmap_suite
