// The LSTM suite: JAX's test grid in full (batch {1,4} × seq {1,4} × input {1,2} × hidden {1,6} × layers {1,4} ×
// bidirectional {0,1}) with seeded ragged lengths, plus adversarial lengths (all full, all 1, all equal, unsorted,
// batch > T), on two paths — the lstm_fwd / lstm_bwd primitives (fast CPU kernel, cuDNN) and the LSTM Program (scan
// over a cell, its gradients by the vjp pass) — every output (y, h_n, c_n, dx, dh0, dc0, dw) compared on its own with
// lstm_ref (f64). Padding is inert: y is exactly 0 at padded steps, and a random dy there changes nothing. Length
// policy: seq_length 0 is rejected with a bad-input error by lstm_ref and the primitives (as cuDNN does); the Program
// path cannot raise on data, and its mask gives y = 0, h_n = h0, c_n = c0 for such a row, which the "zero" case checks.
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "harness/case.h"
#include "suites/common/lstm_program.h"
#include "suites/lstm/lstm_check.h"

namespace tandem {
void register_lstm_perf_cases(Registry& r);

namespace {

std::string config_name(const LstmConfig& c) {
  return cat("B:", c.batch, "/T:", c.seq, "/I:", c.input, "/H:", c.hidden, "/L:", c.layers,
             "/bidi:", int(c.bidirectional));
}

Case base_case(const LstmConfig& c, const std::string& lens_tag, const std::string& path, const std::string& profile) {
  Case k;
  k.suite = "lstm";
  k.name = cat("lstm/", config_name(c), "/lens:", lens_tag, "/path:", path);
  k.params = {{"batch", c.batch}, {"seq", c.seq}, {"input", c.input}, {"hidden", c.hidden},
              {"layers", c.layers}, {"bidirectional", c.bidirectional}, {"lens", lens_tag},
              {"path", path}};
  k.profiles = profiles_from(profile);
  return k;
}

void sync(Device d) {
  if (d.kind == DeviceKind::cuda) cuda_synchronize(d.index);
}

std::vector<Tensor> to_device(const std::vector<Tensor>& in, Device d) {
  std::vector<Tensor> r;
  for (const Tensor& t : in) r.push_back(t.to(d));
  return r;
}

// Primitive path: lstm_fwd + lstm_bwd, seven outputs against lstm_ref.
Case prim_case(const LstmConfig& c, const std::string& tag, const std::string& profile) {
  Case k = base_case(c, tag, "prim", profile);
  k.instantiate = [c, tag, seed = k.name](Device dev) {
    auto prog = std::make_shared<Program>(lstm_train_program(c));
    std::vector<Tensor> host = make_lstm_inputs(c, lengths_pattern(tag, c.batch, c.seq, seed), seed);
    auto in = std::make_shared<std::vector<Tensor>>(to_device(host, dev));
    CaseInstance inst;
    inst.body = [prog, in, dev] { Executor(dev).run(*prog, *in); sync(dev); };
    inst.check = [prog, in, host, c, dev] {
      std::vector<Tensor> got = Executor(dev).run(*prog, *in);
      std::vector<double> v[8];
      for (int i = 0; i < 8; ++i) v[i] = host[size_t(i)].to_f64();
      std::vector<int64_t> lens = lens_of(host[4]);
      ref::LstmOutputs f = ref::lstm_forward(ref_shape(c), v[0], v[1], v[2], v[3], lens);
      ref::LstmGrads g = ref::lstm_backward(ref_shape(c), v[0], v[1], v[2], v[3], lens, v[5], v[6], v[7]);
      return compare_outputs(bounded_outputs(c, host, {f.y, f.h_n, f.c_n, g.dx, g.dh0, g.dc0, g.dw}), got);
    };
    return inst;
  };
  return k;
}

// Program path: the scan-over-a-cell Program against lstm_ref. With valid lengths the case
// runs the joint program of the engine's vjp pass — (x, h0, c0, w, seq_lengths, dy, dh_n,
// dc_n) → (y, h_n, c_n, dx, dh0, dc0, dw) — so the Program path's gradients (autodiff through
// the scan, dW_hh summed by one GEMM after it: lstm_program_joint) are checked output by
// output like the primitive's. The "zero" case (length 0, which lstm_ref rejects) checks the
// forward's masking only.
Case program_case(const LstmConfig& c, const std::string& tag, const std::string& profile) {
  Case k = base_case(c, tag, "program", profile);
  k.instantiate = [c, tag, seed = k.name](Device dev) {
    const bool grads = tag != "zero";
    auto prog = std::make_shared<Program>(grads ? lstm_program_joint(c) : lstm_program(c));
    std::vector<Tensor> host = make_lstm_inputs(c, lengths_pattern(tag, c.batch, c.seq, seed), seed);
    if (!grads) host.resize(5);
    auto in = std::make_shared<std::vector<Tensor>>(to_device(host, dev));
    CaseInstance inst;
    inst.body = [prog, in, dev] { Executor(dev).run(*prog, *in); sync(dev); };
    inst.check = [prog, in, host, c, dev, tag, grads] {
      std::vector<Tensor> got = Executor(dev).run(*prog, *in);
      std::vector<double> x = host[0].to_f64(), h0 = host[1].to_f64(), c0 = host[2].to_f64();
      std::vector<int64_t> lens = lens_of(host[4]);
      if (tag == "zero") {  // row 0 has length 0: y = 0, h_n = h0, c_n = c0 for that row
        ref::LstmShape rs = ref_shape(c);
        rs.batch = c.batch - 1;
        auto drop_row0 = [&](const std::vector<double>& a, int64_t outer, int64_t row) {
          std::vector<double> r;
          for (int64_t o = 0; o < outer; ++o)
            r.insert(r.end(), a.begin() + (o * c.batch + 1) * row, a.begin() + (o * c.batch + c.batch) * row);
          return r;
        };
        const int64_t S = c.pseudo_layers(), H = c.hidden, TI = c.seq * c.input;
        ref::LstmOutputs f = ref::lstm_forward(rs, std::vector<double>(x.begin() + TI, x.end()), drop_row0(h0, S, H),
                                               drop_row0(c0, S, H), host[3].to_f64(), {lens.begin() + 1, lens.end()});
        const int64_t TY = c.seq * c.dirs() * H;
        std::vector<double> y(size_t(TY), 0.0), hn, cn;
        y.insert(y.end(), f.y.begin(), f.y.end());
        for (int64_t p = 0; p < S; ++p) {
          hn.insert(hn.end(), h0.begin() + p * c.batch * H, h0.begin() + (p * c.batch + 1) * H);
          hn.insert(hn.end(), f.h_n.begin() + p * rs.batch * H, f.h_n.begin() + (p + 1) * rs.batch * H);
          cn.insert(cn.end(), c0.begin() + p * c.batch * H, c0.begin() + (p * c.batch + 1) * H);
          cn.insert(cn.end(), f.c_n.begin() + p * rs.batch * H, f.c_n.begin() + (p + 1) * rs.batch * H);
        }
        return compare_outputs(bounded_outputs(c, host, {y, hn, cn}), got);
      }
      std::vector<double> w = host[3].to_f64();
      ref::LstmOutputs f = ref::lstm_forward(ref_shape(c), x, h0, c0, w, lens);
      ref::LstmGrads g = ref::lstm_backward(ref_shape(c), x, h0, c0, w, lens, host[5].to_f64(),
                                            host[6].to_f64(), host[7].to_f64());
      return compare_outputs(bounded_outputs(c, host, {f.y, f.h_n, f.c_n, g.dx, g.dh0, g.dc0, g.dw}), got);
    };
    return inst;
  };
  return k;
}

// Padding is inert on the primitive path: y exactly 0 at padded steps; dy at padded steps
// (random vs zero) leaves dx (exactly 0 there), dh0, dc0 and dw bit-for-bit unchanged.
Case padding_case(const LstmConfig& c) {
  Case k = base_case(c, "unsorted", "prim_padding", "quick");
  k.instantiate = [c, seed = k.name](Device dev) {
    auto prog = std::make_shared<Program>(lstm_train_program(c));
    std::vector<int32_t> lens = lengths_pattern("unsorted", c.batch, c.seq, seed);
    std::vector<Tensor> host = make_lstm_inputs(c, lens, seed);
    const int64_t DH = c.dirs() * c.hidden;
    std::vector<double> dy = host[5].to_f64();
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t t = lens[b]; t < c.seq; ++t)
        for (int64_t j = 0; j < DH; ++j) dy[(b * c.seq + t) * DH + j] = 0.0;
    std::vector<Tensor> masked = host;
    masked[5] = Tensor::from_f64(dy, host[5].shape(), DType::f32);
    CaseInstance inst;
    inst.body = [] {};
    inst.check = [prog, host, masked, lens, c, dev, DH] {
      std::vector<Tensor> a = Executor(dev).run(*prog, to_device(host, dev));
      std::vector<Tensor> b = Executor(dev).run(*prog, to_device(masked, dev));
      CaseResult r;
      std::vector<double> y = a[0].to_f64(), dx = a[3].to_f64();
      for (int64_t bb = 0; bb < c.batch; ++bb)
        for (int64_t t = lens[bb]; t < c.seq; ++t) {
          for (int64_t j = 0; j < DH; ++j)
            if (y[(bb * c.seq + t) * DH + j] != 0.0) r.message += cat("y[", bb, ",", t, "] != 0\n");
          for (int64_t j = 0; j < c.input; ++j)
            if (dx[(bb * c.seq + t) * c.input + j] != 0.0) r.message += cat("dx[", bb, ",", t, "] != 0\n");
        }
      const char* names[] = {"dx", "dh0", "dc0", "dw"};
      for (int i = 0; i < 4; ++i)
        if (a[size_t(3 + i)].to_f64() != b[size_t(3 + i)].to_f64())
          r.message += cat(names[i], " changes with dy at padded steps\n");
      if (!r.message.empty()) r.verdict = Verdict::fail;
      return r;
    };
    return inst;
  };
  return k;
}

// Length 0 on the primitive path: a bad-input error naming seq_lengths, from the engine
// and from lstm_ref alike.
Case zero_length_reject_case(const LstmConfig& c) {
  Case k = base_case(c, "zero", "prim_reject", "quick");
  k.instantiate = [c, seed = k.name](Device dev) {
    std::vector<Tensor> host = make_lstm_inputs(c, lengths_pattern("zero", c.batch, c.seq, seed), seed);
    host.resize(5);
    CaseInstance inst;
    inst.body = [] {};
    inst.check = [c, host, dev] {
      CaseResult r;
      try {
        Executor(dev).run(lstm_fwd_program(c), to_device(host, dev));
        r.message = "lstm_fwd accepted seq_length 0\n";
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::bad_input || std::string(e.what()).find("seq_lengths[0]") == std::string::npos)
          r.message = cat("unexpected error: ", e.what(), "\n");
      }
      try {
        ref::lstm_forward(ref_shape(c), host[0].to_f64(), host[1].to_f64(), host[2].to_f64(),
                          host[3].to_f64(), lens_of(host[4]));
        r.message += "lstm_ref accepted seq_length 0\n";
      } catch (const std::invalid_argument&) {
      }
      if (!r.message.empty()) r.verdict = Verdict::fail;
      return r;
    };
    return inst;
  };
  return k;
}

}  // namespace

void register_lstm_suite(Registry& r) {
  for (int64_t B : {1, 4})
    for (int64_t T : {1, 4})
      for (int64_t I : {1, 2})
        for (int64_t H : {1, 6})
          for (int64_t L : {1, 4})
            for (bool bidi : {false, true}) {
              LstmConfig c{B, T, I, H, L, bidi};
              r.add(prim_case(c, "ragged", "quick"));
              r.add(program_case(c, "ragged", "quick"));
            }
  const LstmConfig adv[] = {{4, 5, 3, 4, 2, true}, {3, 4, 2, 5, 1, false}};
  for (const LstmConfig& c : adv)
    for (const char* tag : {"full", "ones", "equal", "unsorted"}) {
      r.add(prim_case(c, tag, "quick"));
      r.add(program_case(c, tag, "quick"));
    }
  const LstmConfig wide{7, 3, 2, 3, 2, true};  // batch > T
  r.add(prim_case(wide, "unsorted", "quick"));
  r.add(program_case(wide, "unsorted", "quick"));
  r.add(padding_case({5, 6, 3, 4, 2, true}));
  r.add(zero_length_reject_case({3, 4, 2, 3, 2, true}));
  r.add(program_case({3, 4, 2, 3, 2, true}, "zero", "quick"));
  register_lstm_perf_cases(r);
}

}  // namespace tandem
