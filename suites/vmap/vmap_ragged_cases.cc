// Ragged batch cases (engine/passes/vmap_ragged.h): a batch of variable-length items stored
// concatenated, run once on the engine, against a loop over the items on the reference —
// each item's own program (its own shapes) through reference_eval, and for the LSTM
// lstm_ref per sequence, outputs and gradients (dw summed over the sequences, as the one
// batched call sums it).
#include <algorithm>
#include <cmath>
#include <memory>

#include "bridge/reference_bridge.h"
#include "common/dtype.h"
#include "engine/core/error.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "engine/passes/vmap.h"
#include "engine/passes/vmap_ragged.h"
#include "engine/prims/lstm.h"
#include "harness/program_case.h"
#include "reference/lstm_ref.h"
#include "suites/vmap/vmap_cases.h"

namespace tandem::vmap_suite {
namespace {
using V = std::vector<Value>;

std::string lens_str(const std::vector<int64_t>& lens) {
  std::string s;
  for (int64_t l : lens) {
    if (!s.empty()) s += ',';
    s += std::to_string(l);
  }
  return s;
}
int64_t total(const std::vector<int64_t>& lens) {
  int64_t t = 0;
  for (int64_t l : lens) t += l;
  return t;
}

// Compares each output; `ops` / `terms` give the f32 error model as per_example_spec does.
CaseResult compare_all(const std::vector<std::vector<double>>& want, const std::vector<Tensor>& got, int ops, int64_t terms) {
  CaseResult r;
  r.correctness = nlohmann::json::object();
  VmapProgram model{"ragged", {}, {}, ops, terms};
  for (size_t j = 0; j < want.size(); ++j) {
    double mx = 1;
    for (double v : want[j]) mx = std::max(mx, std::abs(v));
    ErrorSpec spec = per_example_spec(model, mx, false);
    CompareReport rep = compare(want[j], got[j].to_f64(), spec);
    nlohmann::json jr = rep.to_json();
    jr["tolerance"] = {{"abs", spec.abs}, {"rel", spec.rel}, {"why", spec.why}};
    r.correctness[cat("output ", j)] = jr;
    if (!rep.pass) {
      r.verdict = Verdict::fail;
      r.message += cat("output ", j, ": ", rep.text(), "\n");
    }
  }
  return r;
}

Value f_elementwise(Value x) { return tanh(x) * 2.0 + x; }

// (segment_sum, segment_max, pad_to_max, unpad∘pad) of an elementwise function, ragged on axis.
Case elementwise_case(const std::vector<int64_t>& lens, int axis) {
  std::string name = cat("ragged/elementwise_segment/axis:", axis, "/lens:", lens_str(lens));
  Case c = vmap_case(name, "quick", {{"ragged", "elementwise_segment"}, {"axis", axis}, {"lens", lens}});
  c.instantiate = [lens, axis, key = c.name](Device dev) {
    const int64_t F = 4, T = total(lens), M = *std::max_element(lens.begin(), lens.end());
    Shape s = axis == 0 ? Shape{T, F} : Shape{F, T};
    auto prog = std::make_shared<Program>(trace({{s, DType::f32}}, [&](Builder&, const V& v) {
      Ragged y = ragged_map([](const V& a) { return f_elementwise(a[0]); }, {make_ragged(v[0], axis, lens)});
      return V{segment_sum(y), segment_max(y), pad_to_max(y), unpad(pad_to_max(y), axis, lens).data};
    }));
    auto in = std::make_shared<Tensor>(seeded_uniform(s, DType::f32, key));
    CaseInstance inst;
    inst.body = [prog, in, dev] { Executor(dev).run(*prog, {in->to(dev)}); };
    inst.check = [prog, in, dev, lens, axis, F, M] {
      std::vector<Tensor> got = Executor(dev).run(*prog, {in->to(dev)});
      std::vector<std::vector<double>> want(4);
      std::vector<Tensor> items_y;
      int64_t off = 0;
      Tensor x_front = axis == 0 ? *in : stack(unstack(*in, 1), 0);  // items along axis 0
      std::vector<Tensor> rows = unstack(x_front, 0);
      for (int64_t len : lens) {  // item i's own program: [len, F], the ragged axis first
        Program item = trace({{{len, F}, DType::f32}}, [&](Builder& b, const V& v) {
          Value y = f_elementwise(v[0]);
          Value padded = len == M ? y : concatenate({y, broadcast_in_dim(b.literal(0, DType::f32), {M - len, F}, {})}, 0);
          return V{reduce_sum(y, {0}), reduce_max(y, {0}), padded, y};
        });
        std::vector<Tensor> xi(rows.begin() + off, rows.begin() + off + len);
        off += len;
        std::vector<ref::Array> out = reference_eval(item, {to_ref(stack(xi, 0))});
        for (size_t j = 0; j < 3; ++j) want[j].insert(want[j].end(), out[j].data.begin(), out[j].data.end());
        items_y.push_back(from_ref(out[3]));
      }
      // the concatenation back in the input's layout
      std::vector<Tensor> ys;
      for (const Tensor& t : items_y)
        for (const Tensor& r : unstack(t, 0)) ys.push_back(r);
      want[3] = stack(ys, axis).to_f64();
      return compare_all(want, got, 3, M);
    };
    return inst;
  };
  return c;
}

// ragged_dot then an elementwise op and segment_sum: per item dot(x_i, W) → logistic → sum.
Case dot_case(const std::vector<int64_t>& lens) {
  Case c = vmap_case("ragged/dot_segment_sum/lens:" + lens_str(lens), "quick", {{"ragged", "dot_segment_sum"}, {"lens", lens}});
  c.instantiate = [lens, key = c.name](Device dev) {
    const int64_t K = 3, N = 5, T = total(lens), M = *std::max_element(lens.begin(), lens.end());
    auto prog = std::make_shared<Program>(trace({{{T, K}, DType::f32}, {{K, N}, DType::f32}}, [&](Builder&, const V& v) {
      Ragged y = ragged_dot(make_ragged(v[0], 0, lens), v[1]);
      return V{segment_sum(ragged_map([](const V& a) { return logistic(a[0]); }, {y}))};
    }));
    auto in = std::make_shared<std::vector<Tensor>>(std::vector<Tensor>{
        seeded_uniform({T, K}, DType::f32, key + "/x"), seeded_uniform({K, N}, DType::f32, key + "/w")});
    CaseInstance inst;
    inst.body = [prog, in, dev] { Executor(dev).run(*prog, *in); };
    inst.check = [prog, in, dev, lens, K, N, M] {
      std::vector<Tensor> got = Executor(dev).run(*prog, *in);
      std::vector<std::vector<double>> want(1);
      std::vector<Tensor> rows = unstack((*in)[0], 0);
      int64_t off = 0;
      for (int64_t len : lens) {
        Program item = trace({{{len, K}, DType::f32}, {{K, N}, DType::f32}}, [](Builder&, const V& v) {
          return V{reduce_sum(logistic(dot(v[0], v[1], "HIGHEST")), {0})};
        });
        std::vector<Tensor> xi(rows.begin() + off, rows.begin() + off + len);
        off += len;
        auto out = reference_eval(item, {to_ref(stack(xi, 0)), to_ref((*in)[1])});
        want[0].insert(want[0].end(), out[0].data.begin(), out[0].data.end());
      }
      return compare_all(want, got, 4, K + M);
    };
    return inst;
  };
  return c;
}

// The LSTM over a ragged batch of sequences against lstm_ref per sequence: y (ragged), h_n,
// c_n, and through vjp the gradients dx (ragged), dh0, dc0 and dw (summed over sequences).
Case lstm_case(const std::vector<int64_t>& lens) {
  Case c = vmap_case("ragged/lstm/lens:" + lens_str(lens), "quick", {{"ragged", "lstm"}, {"lens", lens}});
  c.instantiate = [lens, key = c.name](Device dev) {
    const int64_t I = 3, H = 4, B = int64_t(lens.size()), T = total(lens);
    const int64_t Tm = *std::max_element(lens.begin(), lens.end());
    LstmConfig cfg{B, Tm, I, H, 1, false};
    int64_t P = get_num_params_in_lstm(I, H, 1, false);
    Program fwd = trace({{{T, I}, DType::f32}, {{1, B, H}, DType::f32}, {{1, B, H}, DType::f32}, {{P}, DType::f32}},
                        [&](Builder&, const V& v) {
                          RaggedLstm o = ragged_lstm(make_ragged(v[0], 0, lens), v[1], v[2], v[3], lstm_params(cfg));
                          return V{o.y.data, o.h_n, o.c_n};
                        });
    auto joint = std::make_shared<Program>(vjp_joint(fwd));
    auto in = std::make_shared<std::vector<Tensor>>();
    in->push_back(seeded_uniform({T, I}, DType::f32, key + "/x"));
    in->push_back(seeded_uniform({1, B, H}, DType::f32, key + "/h0"));
    in->push_back(seeded_uniform({1, B, H}, DType::f32, key + "/c0"));
    in->push_back(seeded_uniform({P}, DType::f32, key + "/w", -0.5, 0.5));
    in->push_back(seeded_uniform({T, H}, DType::f32, key + "/dy"));
    in->push_back(seeded_uniform({1, B, H}, DType::f32, key + "/dh"));
    in->push_back(seeded_uniform({1, B, H}, DType::f32, key + "/dc"));
    CaseInstance inst;
    inst.body = [joint, in, dev] { Executor(dev).run(*joint, *in); };
    inst.check = [joint, in, dev, lens, I, H, B, Tm, P] {
      std::vector<Tensor> got = Executor(dev).run(*joint, *in);  // y, h_n, c_n, dx, dh0, dc0, dw
      std::vector<std::vector<double>> want(7);
      std::vector<double> h0 = (*in)[1].to_f64(), c0 = (*in)[2].to_f64(), w = (*in)[3].to_f64();
      std::vector<double> x = (*in)[0].to_f64(), dy = (*in)[4].to_f64(), dh = (*in)[5].to_f64(), dc = (*in)[6].to_f64();
      std::vector<double> hn(size_t(B * H)), cn(hn), dh0(hn), dc0(hn), dw(size_t(P), 0.0);
      int64_t off = 0;
      for (int64_t i = 0; i < B; ++i) {
        int64_t len = lens[size_t(i)];
        ref::LstmShape s{1, len, I, H, 1, false};
        auto seg = [&](const std::vector<double>& v, int64_t width) {
          return std::vector<double>(v.begin() + off * width, v.begin() + (off + len) * width);
        };
        auto row = [&](const std::vector<double>& v) { return std::vector<double>(v.begin() + i * H, v.begin() + (i + 1) * H); };
        ref::LstmOutputs o = ref::lstm_forward(s, seg(x, I), row(h0), row(c0), w, {len});
        ref::LstmGrads g = ref::lstm_backward(s, seg(x, I), row(h0), row(c0), w, {len}, seg(dy, H), row(dh), row(dc));
        want[0].insert(want[0].end(), o.y.begin(), o.y.end());
        want[3].insert(want[3].end(), g.dx.begin(), g.dx.end());
        std::copy(o.h_n.begin(), o.h_n.end(), hn.begin() + i * H);
        std::copy(o.c_n.begin(), o.c_n.end(), cn.begin() + i * H);
        std::copy(g.dh0.begin(), g.dh0.end(), dh0.begin() + i * H);
        std::copy(g.dc0.begin(), g.dc0.end(), dc0.begin() + i * H);
        for (int64_t k = 0; k < P; ++k) dw[size_t(k)] += g.dw[size_t(k)];
        off += len;
      }
      want[1] = hn, want[2] = cn, want[4] = dh0, want[5] = dc0, want[6] = dw;
      return compare_all(want, got, int(16 * Tm), (I + H + 1) * Tm * B);
    };
    return inst;
  };
  return c;
}
}  // namespace

void add_ragged_cases(Registry& r) {
  for (const std::vector<int64_t>& lens : {std::vector<int64_t>{3, 1, 4, 2, 5}, std::vector<int64_t>{7}, std::vector<int64_t>{2, 2, 2}})
    for (int axis : {0, 1}) r.add(elementwise_case(lens, axis));
  r.add(dot_case({3, 1, 4, 2, 5}));
  r.add(dot_case({1, 1}));
  r.add(lstm_case({5, 2, 7, 1}));
  r.add(lstm_case({3}));
  r.add(refusal_case("ragged_lens_do_not_sum", [] {
    trace({{{6, 2}, DType::f32}}, [](Builder&, const V& v) { return V{make_ragged(v[0], 0, {2, 3}).data}; });
  }, "segment_lens sum to 5"));
}

}  // namespace tandem::vmap_suite
