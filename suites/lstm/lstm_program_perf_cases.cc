// The LSTM Program path timed on the performance shapes (nightly): the scan-over-a-cell
// Program (suites/common/lstm_program.h) run by the generic executor — forward ("fwd") and,
// for the training shapes, the joint program of the vjp pass ("train": forward, then the
// gradients by autodiff through the scan) — so the report sets the Program path beside the
// lstm_fwd/lstm_bwd primitives (lstm_perf_cases.cc) on the same shapes and FLOP count
// (params fwd_projection_flops / fwd_recurrent_flops; train counted as 3 × forward, the
// convention reports/plots/lstm.py draws every series with). The check compares batch row 0 of
// y, h_n, c_n with lstm_ref (rows are independent, all full length), as the primitive's does.
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/executor.h"
#include "engine/passes/vjp.h"
#include "suites/common/case.h"
#include "suites/common/lstm_program.h"
#include "suites/lstm/lstm_check.h"
#include "suites/lstm/lstm_perf_shapes.h"

namespace tandem {
namespace {

// Row 0 of a [outer, B, inner] tensor.
std::vector<double> row0(const Tensor& t, int64_t batch, int64_t outer, int64_t inner) {
  std::vector<double> a = t.to_f64(), r;
  for (int64_t o = 0; o < outer; ++o)
    r.insert(r.end(), a.begin() + o * batch * inner, a.begin() + (o * batch + 1) * inner);
  return r;
}

Case program_perf_case(const std::string& label, const LstmConfig& c, bool train) {
  Case k;
  k.suite = "lstm";
  k.name = cat("lstm/perf/", label, "/B:", c.batch, "/T:", c.seq, "/I:", c.input, "/H:", c.hidden,
               "/L:", c.layers, "/bidi:", int(c.bidirectional), "/program", train ? "/train" : "/fwd");
  LstmFlops f = lstm_forward_flops(c);
  k.params = {{"batch", c.batch}, {"seq", c.seq}, {"input", c.input}, {"hidden", c.hidden},
              {"layers", c.layers}, {"bidirectional", c.bidirectional}, {"mode", train ? "train" : "fwd"},
              {"path", "program"}, {"fwd_projection_flops", f.projection}, {"fwd_recurrent_flops", f.recurrent},
              {"flop_formula", "fwd = sum_p 2*B*T*4H*(In_p + H); train = 3*fwd"}};
  k.profiles = profiles_from("nightly");
  k.flops = (train ? 3.0 : 1.0) * (f.projection + f.recurrent);
  k.instantiate = [c, train, seed = k.name](Device dev) {
    auto prog = std::make_shared<Program>(train ? vjp_joint(lstm_program(c)) : lstm_program(c));
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
      LstmConfig one = c;
      one.batch = 1;
      const int64_t S = c.pseudo_layers(), H = c.hidden, B = c.batch;
      ref::LstmOutputs f = ref::lstm_forward(ref_shape(one), row0(host[0], B, 1, c.seq * c.input),
                                             row0(host[1], B, S, H), row0(host[2], B, S, H), host[3].to_f64(),
                                             {c.seq});
      LstmSpecs s = lstm_specs(c, false);
      std::vector<Tensor> cmp;
      for (auto& v : {row0(got[0], B, 1, c.seq * c.dirs() * H), row0(got[1], B, S, H), row0(got[2], B, S, H)})
        cmp.push_back(Tensor::from_f64(v, {int64_t(v.size())}, DType::f32));
      return compare_outputs({{"y[row 0]", f.y, s.fwd}, {"h_n[row 0]", f.h_n, s.fwd}, {"c_n[row 0]", f.c_n, s.fwd}},
                             cmp);
    };
    return inst;
  };
  return k;
}

}  // namespace

void register_lstm_program_perf_cases(Registry& r) {
  for (const LstmPerfShape& s : lstm_perf_shapes()) {
    r.add(program_perf_case(s.label, s.config, false));
    if (s.train) r.add(program_perf_case(s.label, s.config, true));
  }
}

}  // namespace tandem
