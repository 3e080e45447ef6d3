// LSTM performance shapes (nightly): DeepBench training (H {512,1024} × B {16,32,64}, T 25;
// H 256, B 16, T 150), PyTorch fastrnns' default (T 100, B 64, I = H = 512), a 2-layer
// bidirectional shape, and batch-1 inference. Each shape times the forward ("fwd", lstm_fwd)
// and forward+backward ("train", lstm_fwd in training mode + lstm_bwd on its reserve).
// FLOP formula (GEMM terms only; the gate math is O(B·T·H)): per pseudo-layer p,
//   forward  = 2·B·T·4H·In_p (input projection) + 2·B·T·4H·H (recurrence),
//   backward = 2 × forward (d(inputs) and d(weights)), so train = fwd + bwd = 3 × fwd, the
// useful work (the backward reads the forward's reserve and re-runs nothing; PyTorch's
// fastrnns counts the same way). The check compares batch row 0 (all rows full length, rows are
// independent) with lstm_ref, so the f64 oracle stays affordable on large shapes.
// Each shape also runs the Program path (suites/common/lstm_program.h: the scan over a cell,
// run by the generic executor; "train" is the vjp pass's joint program, gradients by autodiff
// through the scan, with the backward scan's weight-gradient sums moved out by
// hoist_scan_accumulations: lstm_program_joint), named ".../program/fwd|train" with params.path "program", on the same
// FLOP count, so the report sets it beside the primitives.
#include "engine/core/error.h"
#include "engine/cpu/sgemm.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "engine/prims/lstm.h"
#include "harness/case.h"
#include "suites/common/lstm_program.h"
#include "suites/lstm/lstm_check.h"
#include "suites/lstm/lstm_gemm_anchor.h"
#include "suites/lstm/lstm_perf_shapes.h"

namespace tandem {
namespace {


// The perf cases' precision: f32 math, TF32 off (cuDNN's CUDNN_FMA_MATH). Recorded as
// params.math ("fp32" / "tf32") so a comparison with another library pairs the same mode
// (ci/gpu_lstm_vs_torch.py, tools/oracles/torch_lstm_bench.py --math).
constexpr const char* kPerfPrecision = "HIGHEST";

// path: "kernel" (the lstm_fwd / lstm_bwd primitives) or "program" (the Program path).
Case perf_case(const std::string& label, const LstmConfig& c, bool train, const std::string& path) {
  const bool program = path == "program";
  Case k;
  k.suite = "lstm";
  k.name = cat("lstm/perf/", label, "/B:", c.batch, "/T:", c.seq, "/I:", c.input, "/H:", c.hidden,
               "/L:", c.layers, "/bidi:", int(c.bidirectional), program ? "/program" : "", train ? "/train" : "/fwd");
  LstmFlops f = lstm_forward_flops(c);
  k.params = {{"batch", c.batch}, {"seq", c.seq}, {"input", c.input}, {"hidden", c.hidden},
              {"layers", c.layers}, {"bidirectional", c.bidirectional}, {"mode", train ? "train" : "fwd"},
              {"path", path}, {"precision", kPerfPrecision},
              {"math", lstm_allow_tf32(kPerfPrecision) ? "tf32" : "fp32"},
              {"fwd_projection_flops", f.projection}, {"fwd_recurrent_flops", f.recurrent},
              {"flop_formula", "fwd = sum_p 2*B*T*4H*(In_p + H); train = 3*fwd (bwd = 2*fwd)"}};
  k.profiles = profiles_from("nightly");
  k.flops = (train ? 3.0 : 1.0) * (f.projection + f.recurrent);
  k.instantiate = [c, train, program, seed = k.name](Device dev) {
    auto prog = std::make_shared<Program>(program ? (train ? lstm_program_joint(c) : lstm_program(c, kPerfPrecision))
                                                  : (train ? lstm_train_program(c, kPerfPrecision)
                                                           : lstm_fwd_program(c, kPerfPrecision)));
    std::vector<Tensor> host = make_lstm_inputs(c, lengths_pattern("full", c.batch, c.seq, seed), seed);
    if (!train) host.resize(5);
    auto in = std::make_shared<std::vector<Tensor>>();
    for (const Tensor& t : host) in->push_back(t.to(dev));
    CaseInstance inst;
    inst.body = [prog, in, dev] {
      Executor(dev).run(*prog, *in);
      if (dev.kind == DeviceKind::cuda) cuda_synchronize(dev.index);
    };
    inst.check = [prog, in, host, c, dev] {
      std::vector<Tensor> got = Executor(dev).run(*prog, *in);
      // Row 0 of x, h0, c0, y, h_n, c_n.
      LstmConfig one = c;
      one.batch = 1;
      const int64_t S = c.pseudo_layers(), H = c.hidden;
      auto row0 = [&](const Tensor& t, int64_t outer, int64_t inner) {
        std::vector<double> a = t.to_f64(), r;
        for (int64_t o = 0; o < outer; ++o)
          r.insert(r.end(), a.begin() + o * c.batch * inner, a.begin() + (o * c.batch + 1) * inner);
        return r;
      };
      ref::LstmOutputs f = ref::lstm_forward(ref_shape(one), row0(host[0], 1, c.seq * c.input), row0(host[1], S, H),
                                             row0(host[2], S, H), host[3].to_f64(), {c.seq});
      LstmSpecs s = lstm_specs(c, false);
      std::vector<Tensor> cmp;
      for (auto& v : {row0(got[0], 1, c.seq * c.dirs() * H), row0(got[1], S, H), row0(got[2], S, H)})
        cmp.push_back(Tensor::from_f64(v, {int64_t(v.size())}, DType::f32));
      return compare_outputs({{"y[row 0]", f.y, s.fwd}, {"h_n[row 0]", f.h_n, s.fwd},
                              {"c_n[row 0]", f.c_n, s.fwd}}, cmp);
    };
    if (dev.kind == DeviceKind::cpu) {  // the GEMMs alone: the gate's yardstick (harness/anchor.h)
      inst.anchor_name = cat("lstm_gemms/", cpu::sgemm_library(), "/", train ? "train" : "fwd");
      inst.anchor = lstm_gemm_anchor(c, train);
    }
    return inst;
  };
  return k;
}

}  // namespace

std::vector<LstmPerfShape> lstm_perf_shapes() {
  std::vector<LstmPerfShape> shapes;
  for (int64_t H : {512, 1024})
    for (int64_t B : {16, 32, 64}) shapes.push_back({"deepbench", {B, 25, H, H, 1, false}, true});
  shapes.push_back({"deepbench", {16, 150, 256, 256, 1, false}, true});
  shapes.push_back({"fastrnns", {64, 100, 512, 512, 1, false}, true});
  shapes.push_back({"bidi2", {32, 50, 256, 256, 2, true}, true});
  shapes.push_back({"infer_b1", {1, 100, 512, 512, 1, false}, false});
  shapes.push_back({"infer_b1", {1, 100, 1024, 1024, 1, false}, false});
  return shapes;
}

void register_lstm_perf_cases(Registry& r) {
  for (const LstmPerfShape& s : lstm_perf_shapes()) {
    for (const char* path : {"kernel", "program"}) {
      r.add(perf_case(s.label, s.config, false, path));
      if (s.train) r.add(perf_case(s.label, s.config, true, path));
    }
  }
}

}  // namespace tandem
