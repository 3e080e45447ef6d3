// Model programs of the remat suite (see remat_models.h).
#include "suites/remat/remat_models.h"

#include <cmath>
#include <functional>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/ir/builder.h"
#include "engine/ir/builder_indexing.h"
#include "engine/prims/checkpoint.h"
#include "suites/common/lstm_program.h"

namespace tandem::remat {
namespace {
using V = std::vector<Value>;

Value half_sum_sq(Value h) {
  std::vector<int64_t> all;
  for (int i = 0; i < h.rank(); ++i) all.push_back(i);
  return reduce_sum(h * h, all) * 0.5;
}

// One MLP layer, pre = h·W and act = pre·σ(1.702·pre) (a GELU-like gate), both named:
// everything_saveable keeps h, pre and σ; dots_saveable h and pre; nothing_saveable h.
Program mlp_layer(const AType& h, const AType& w) {
  return trace({h, w}, [](Builder&, const V& v) {
    Value pre = checkpoint_name(dot(v[0], v[1]), "pre");
    return V{checkpoint_name(pre * logistic(pre * 1.702), "act")};
  });
}

Program attention_body(const AType& x, const AType& w, int64_t d) {
  return trace({x, w, w, w}, [d](Builder&, const V& v) {
    DotDims proj{{2}, {0}, {}, {}};
    Value q = dot_general(v[0], v[1], proj), k = dot_general(v[0], v[2], proj);
    Value val = dot_general(v[0], v[3], proj);
    // scores[b,t,s] = q[b,t,:]·k[b,s,:], batch b
    Value s = checkpoint_name(dot_general(q, k, DotDims{{2}, {2}, {0}, {0}}) * (1.0 / std::sqrt(double(d))), "scores");
    Value e = exp(s);
    Value denom = reduce_sum(e, {2});
    Value p = checkpoint_name(e / broadcast_in_dim(denom, e.shape(), {0, 1}), "probs");
    Value o = dot_general(p, val, DotDims{{2}, {1}, {0}, {0}});  // [b,t,d]
    return V{tanh(o) + v[0]};
  });
}

std::function<Value(Value)> recursive_sin(int n, const std::string& policy, const AType& t) {
  if (n == 1) return [](Value x) { return sin(x); };
  if (n == 2) return [](Value x) { return sin(sin(x)); };
  auto f1 = recursive_sin(n / 2, policy, t), f2 = recursive_sin(n - n / 2, policy, t);
  return [f1, f2, policy, t](Value x) {
    Program body = trace({t}, [&](Builder&, const V& v) { return V{f2(v[0])}; });
    return f1(checkpoint(body, {x}, policy)[0]);
  };
}
// The same program with every `from` type (inputs, literals, dtype params, sub-programs)
// made `to`: the f32-only LSTM Program in f64 for the finite-difference reference.
Program retype(const Program& p, DType from, DType to) {
  auto swap = [&](DType d) { return d == from ? to : d; };
  Builder b;
  std::unordered_map<int64_t, Value> env;
  for (const Var& v : p.in_vars) env[v->id] = b.input(v->type.shape, swap(v->type.dtype));
  auto val = [&](const Atom& a) {
    return a.is_literal() ? b.literal(a.literal->value, swap(a.literal->dtype)) : env.at(a.var->id);
  };
  for (const Eqn& e : p.eqns) {
    std::vector<Value> args;
    for (const Atom& a : e.in) args.push_back(val(a));
    Params q = e.params;
    for (const auto& [k, v] : e.params.items()) {
      if (auto* d = std::get_if<DType>(&v)) q.set(k, swap(*d));
      if (auto* sub = std::get_if<ProgramPtr>(&v)) q.set(k, std::make_shared<const Program>(retype(**sub, from, to)));
    }
    std::vector<Value> outs = b.bind(e.prim->name, args, q);
    for (size_t i = 0; i < outs.size(); ++i) env[e.out[i]->id] = outs[i];
  }
  std::vector<Value> outs;
  for (const Atom& a : p.out_vars) outs.push_back(val(a));
  return b.build(outs);
}
// sort by tied keys floor(2x) carrying x and y, checkpointed: which input gets which
// cotangent is the sort's order (stable, then by x), which random keys never show.
Program sort_ties(const AType& t, const std::string& policy) {
  Program f = trace({t, t}, [](Builder&, const V& v) {
    Value k = floor(v[0] * 2.0);
    V s = sort({k, v[0], v[1]}, 1, true, 2);
    return V{s[1] * s[2] + sort({k, v[1]}, 1, true, 1)[1]};
  });
  return trace({t, t}, [&](Builder&, const V& v) { return V{half_sum_sq(checkpoint(f, v, policy)[0])}; });
}
}  // namespace

std::string Model::label() const {
  if (kind == "attention") return cat(kind, "/B:", batch, "/T:", seq, "/D:", width);
  if (kind == "sin_chain") return cat(kind, "/n:", layers, "/E:", width);
  if (kind == "dots_in_scan") return cat(kind, "/L:", layers, "/D:", width);
  if (kind == "lstm") return cat(kind, "/B:", batch, "/T:", seq, "/H:", width, "/L:", layers);
  if (kind == "rnn_wt") return cat(kind, "/B:", batch, "/T:", seq, "/H:", width);
  if (kind == "sort_ties") return cat(kind, "/B:", batch, "/E:", width);
  return cat(kind, "/L:", layers, "/B:", batch, "/D:", width);
}

Program Model::build(DType dt, const std::string& policy) const {
  if (kind == "mlp") {
    AType h{{batch, width}, dt}, w{{width, width}, dt};
    std::vector<AType> in{h};
    for (int64_t i = 0; i < layers; ++i) in.push_back(w);
    Program layer = mlp_layer(h, w);
    return trace(in, [&](Builder&, const V& v) {
      Value x = v[0];
      for (int64_t i = 0; i < layers; ++i) x = checkpoint(layer, {x, v[size_t(i + 1)]}, policy)[0];
      return V{half_sum_sq(x)};
    });
  }
  if (kind == "attention") {
    AType x{{batch, seq, width}, dt}, w{{width, width}, dt};
    Program body = attention_body(x, w, width);
    return trace({x, w, w, w}, [&](Builder&, const V& v) {
      return V{half_sum_sq(checkpoint(body, v, policy)[0])};
    });
  }
  if (kind == "scan_mlp") {
    AType h{{batch, width}, dt}, w{{width, width}, dt}, ws{{layers, width, width}, dt};
    Program layer = mlp_layer(h, w);
    Program step = trace({h, w}, [&](Builder&, const V& v) { return checkpoint(layer, v, policy); });
    return trace({h, ws}, [&](Builder&, const V& v) {
      return V{half_sum_sq(scan(step, {}, {v[0]}, {v[1]}, layers)[0])};
    });
  }
  if (kind == "scan_in_checkpoint") {  // checkpoint(policy) around a scan of MLP layers
    AType h{{batch, width}, dt}, w{{width, width}, dt}, ws{{layers, width, width}, dt};
    Program layer = mlp_layer(h, w);
    Program whole = trace({h, ws}, [&](Builder&, const V& v) { return scan(layer, {}, {v[0]}, {v[1]}, layers); });
    return trace({h, ws}, [&](Builder&, const V& v) { return V{half_sum_sq(checkpoint(whole, v, policy)[0])}; });
  }
  if (kind == "dots_in_scan") {  // jax test_remat_checkpoint_dots_inside_scan, W differentiated
    AType w{{width, width}, dt}, x{{width}, dt};
    Program body = trace({w, x}, [&](Builder&, const V& v) {
      Program f = trace({w, x}, [](Builder&, const V& u) {
        Value h = u[1];
        for (int i = 0; i < 3; ++i) h = sin(dot(h, u[0], "HIGHEST"));
        return V{h};
      });
      return checkpoint(f, v, policy);
    });
    return trace({w, x}, [&](Builder&, const V& v) { return V{half_sum_sq(scan(body, {v[0]}, {v[1]}, {}, layers)[0])}; });
  }
  if (kind == "sin_chain") {
    AType t{{width}, dt};
    return trace({t}, [&](Builder&, const V& v) {
      return V{half_sum_sq(recursive_sin(int(layers), policy, t)(v[0]))};
    });
  }
  if (kind == "lstm") {  // the LSTM issue's Program (scan over a cell), checkpointed whole
    LstmConfig c{batch, seq, width, width, layers, false};
    Program net = lstm_program(c);
    if (dt != DType::f32) net = retype(net, DType::f32, dt);
    return trace(net.in_types(), [&](Builder&, const V& v) {
      V o = checkpoint(net, v, policy);
      return V{half_sum_sq(o[0]) + half_sum_sq(o[1]) + half_sum_sq(o[2])};
    });
  }
  if (kind == "rnn_wt") {  // checkpoint(policy) around h' = tanh(x·Uᵀ + h·Wᵀ), y = h'
    AType h{{batch, width}, dt}, w{{width, width}, dt}, x{{batch, width}, dt}, xs{{seq, batch, width}, dt};
    Program step = trace({w, w, h, x}, [](Builder&, const V& v) {  // the transposes: loop-invariant
      Value hn = tanh(dot(v[3], transpose(v[1], {1, 0})) + dot(v[2], transpose(v[0], {1, 0})));
      return V{hn, hn};
    });
    Program net = trace({w, w, h, xs}, [&](Builder&, const V& v) { return scan(step, {v[0], v[1]}, {v[2]}, {v[3]}, seq); });
    return trace({w, w, h, xs}, [&](Builder&, const V& v) {
      V o = checkpoint(net, v, policy);
      return V{half_sum_sq(o[0]) + half_sum_sq(o[1])};
    });
  }
  if (kind == "sort_ties") return sort_ties(AType{{batch, width}, dt}, policy);
  throw_bad_input(cat("remat suite: unknown model '", kind, "'"));
}

std::vector<std::string> policies_for(const Model& m) {
  std::vector<std::string> p = {"everything_saveable", "nothing_saveable", "dots_saveable",
                                "dots_with_no_batch_dims_saveable",
                                "offload_dot_with_no_batch_dims(device,pinned_host)"};
  if (m.names[0].empty()) return p;
  const std::string& a = m.names[0];
  const std::string& b = m.names[1];
  p.push_back(cat("save_only_these_names(", b, ")"));
  p.push_back(cat("save_any_names_but_these(", a, ")"));
  p.push_back(cat("save_anything_except_these_names(", a, ")"));
  p.push_back(cat("save_and_offload_only_these_names(", b, "|", a, ")"));
  p.push_back(cat("save_from_both_policies(dots_saveable;save_only_these_names(", b, "))"));
  return p;
}

}  // namespace tandem::remat
