// Elementwise fusion (engine/ir/fusion.h) computes what the per-equation walk computes, bit for
// bit: on generated programs (every run of two or more elementwise equations fused, at any
// size, under the plain, vjp and vmap chains) and on the LSTM over scan, forward and gradient,
// at a size whose runs span several blocks (and threads, where there are several).
#include <gtest/gtest.h>

#include <cstring>

#include "bridge/seeded_inputs.h"
#include "engine/core/error.h"
#include "engine/ir/fusion.h"
#include "engine/passes/vmap.h"
#include "suites/common/lstm_program.h"
#include "suites/program_fuzz/fuzz_engine.h"

namespace tandem::fuzz {
namespace {

// The results at a fusion setting, or the error's text.
std::string run_bits(const Program& p, const std::vector<Tensor>& args, int64_t fusion_min, std::vector<Tensor>& out) {
  Executor ex = fuzz_executor(Device::cpu());
  ex.set_fusion(fusion_min);
  try {
    out = ex.run(p, args);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

void expect_same_bits(const Program& p, const std::vector<Tensor>& args, const std::string& what) {
  std::vector<Tensor> walk, fused;
  ASSERT_EQ(run_bits(p, args, -1, walk), run_bits(p, args, 0, fused)) << what;
  ASSERT_EQ(walk.size(), fused.size()) << what;
  for (size_t i = 0; i < walk.size(); ++i) {
    ASSERT_EQ(walk[i].type(), fused[i].type()) << what << " output " << i;
    EXPECT_EQ(std::memcmp(walk[i].raw(), fused[i].raw(), walk[i].nbytes()), 0) << what << " output " << i;
  }
}

// The fused runs planned at any size, sub-programs (scan and checkpoint bodies) included.
int fused_runs(const Program& p) {
  int n = 0;
  for (size_t end : plan_fusion(p, 0)) n += end > 0;
  for (const Eqn& e : p.eqns)
    for (const auto& [key, param] : e.params.items())
      if (const ProgramPtr* sub = std::get_if<ProgramPtr>(&param)) n += fused_runs(**sub);
  return n;
}

TEST(Fusion, GeneratedProgramsGiveTheWalksBits) {
  FuzzOptions o;
  o.chains = {ChainKind::plain, ChainKind::vjp, ChainKind::vmap};
  int runs = 0;
  for (uint64_t seed = 1; seed <= 900; ++seed) {
    const FuzzCase c = generate_case(seed, o);
    Program p = c.program;
    std::vector<Tensor> args = c.args;
    try {
      if (c.chain.kind == ChainKind::vjp) {
        p = vjp_joint(c.program, c.wrt);
        args.insert(args.end(), c.cotangents.begin(), c.cotangents.end());
      } else if (c.chain.kind == ChainKind::vmap) {
        p = vmap(vmapped_program(c), c.chain.in_axes, c.chain.out_axes, c.chain.axis_size, kCollectiveAxis);
      }
    } catch (const Error&) {
      continue;  // a chain the engine refuses: nothing runs
    }
    runs += fused_runs(p);
    expect_same_bits(p, args, cat("seed ", seed, " chain ", chain_name(c.chain.kind)));
  }
  EXPECT_GT(runs, 300) << "too few fused runs to say much";
}

TEST(Fusion, LstmOverScanGivesTheWalksBits) {
  LstmConfig c;
  c.batch = 32, c.seq = 3, c.input = 16, c.hidden = 1024;  // [B, H]: 16 blocks, the backward's run shared
  const Program p = lstm_program_joint(c);
  std::vector<Tensor> args;
  for (size_t i = 0; i < p.in_vars.size(); ++i) {
    const AType& t = p.in_vars[i]->type;
    args.push_back(t.dtype == DType::i32 ? Tensor::from_f64(std::vector<double>(32, 3), t.shape, t.dtype)
                                         : seeded_uniform(t.shape, t.dtype, cat("fusion", i), -1, 1));
  }
  EXPECT_GE(fused_runs(p), 2);  // the cell's gates forward and back
  expect_same_bits(p, args, "lstm joint");
}

}  // namespace
}  // namespace tandem::fuzz
