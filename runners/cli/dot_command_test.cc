// `tandem dot` end to end: the binary is run on .npy directories. Small-integer inputs make every preset's answer
// exact, so the dimension numbers (batch, non-default and multiple contracting axes), the dtypes in and out (f16 .npy,
// bf16 by --lhs-dtype, bf16 results written as f32) and preferred_element_type are checked bit for bit against a plain
// loop; bf16 rounding on load and f64 accumulation of an f64 result are checked on values that show them; every kind of
// bad input exits 4 with a hint; and, where JAX is installed, tools/oracles/dot_vs_jax.py checks every preset against
// JAX itself.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/error.h"
#include "runners/cli/cli_test_support.h"
#include "runners/cli/npy_io.h"

namespace tandem {
namespace {
namespace fs = std::filesystem;

using cli_test::Outcome;
using cli_test::slurp;
Outcome run_dot(const std::string& args, const std::string& env = "") { return cli_test::run_subcommand("dot", args, env); }

struct TempDir : cli_test::ScratchDir {
  explicit TempDir(const std::string& tag) : ScratchDir(cat("tandem_dot_", tag)) { fs::create_directories(path / "in"); }
  std::string in() const { return (path / "in").string(); }
  std::string out() const { return (path / "out").string(); }
  std::string dirs() const { return cat("--in ", in(), " --out ", out(), " -q"); }
  void operands(const Tensor& lhs, const Tensor& rhs) const {
    save_npy_tensor(in() + "/lhs.npy", lhs), save_npy_tensor(in() + "/rhs.npy", rhs);
  }
};

// Small integers in [-3, 3]: every product and partial sum below is exact in bf16 and f16
// storage and in every accumulator, so each preset must give the exact answer.
Tensor small_ints(const Shape& s, DType d, int salt) {
  Tensor t = Tensor::empty(s, DType::f64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = double((i * 7 + salt * 3) % 7 - 3);
  return Tensor::from_f64(t.to_f64(), s, d);
}

Tensor f32(const std::vector<double>& v, const Shape& s) { return Tensor::from_f64(v, s, DType::f32); }

nlohmann::json run_json(const TempDir& d) { return nlohmann::json::parse(slurp(fs::path(d.out()) / "run.json")); }

// lhs [B=2, K1=3, M=4, K2=5], rhs [K2=5, N=6, B=2, K1=3]: batch (0 | 2), contracting (1,3 | 3,0),
// out [B, M, N]; the exact answer by a plain loop.
std::vector<double> batched_expected(const Tensor& l, const Tensor& r) {
  std::vector<double> a = l.to_f64(), b = r.to_f64(), out(2 * 4 * 6, 0.0);
  for (int bb = 0; bb < 2; ++bb)
    for (int m = 0; m < 4; ++m)
      for (int n = 0; n < 6; ++n)
        for (int k1 = 0; k1 < 3; ++k1)
          for (int k2 = 0; k2 < 5; ++k2)
            out[(bb * 4 + m) * 6 + n] += a[((bb * 3 + k1) * 4 + m) * 5 + k2] * b[((k2 * 6 + n) * 2 + bb) * 3 + k1];
  return out;
}
const char* kBatchedDims = "--lhs-batch 0 --rhs-batch 2 --lhs-contracting 1,3 --rhs-contracting 3,0";

TEST(DotCommand, EveryPresetExactOnSmallIntegersWithBatchAndTwoContractingAxes) {
  TempDir d("presets");
  for (DType in : {DType::f32, DType::f16, DType::f64}) {
    Tensor l = small_ints({2, 3, 4, 5}, in, 1), r = small_ints({5, 6, 2, 3}, in, 2);
    d.operands(l, r);
    const std::vector<double> want = batched_expected(l, r);
    for (const char* alg : {"DEFAULT", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16", "BF16_BF16_F32",
                            "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32",
                            "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64", "ANY_F8_ANY_F8_F32",
                            "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"}) {
      SCOPED_TRACE(cat(dtype_name(in), " ", alg));
      Outcome o = run_dot(cat(d.dirs(), " ", kBatchedDims, " --algorithm ", alg));
      ASSERT_EQ(o.code, 0) << o.err;
      Tensor got = load_npy_tensor(d.out() + "/out.npy", in, "out.npy");  // result dtype = input dtype
      EXPECT_EQ(got.shape(), (Shape{2, 4, 6}));
      EXPECT_EQ(got.to_f64(), want);
      const char* by_default = in == DType::f64 ? "F64_F64_F64" : in == DType::f16 ? "F16_F16_F32" : "F32_F32_F32";
      EXPECT_EQ(run_json(d)["algorithm_run"], alg == std::string("DEFAULT") ? by_default : alg);
    }
  }
}

TEST(DotCommand, Bf16InputsAreRoundedOnLoadAndWrittenAsF32) {
  TempDir d("bf16");
  // 1 + 2^-9 rounds to 1 in bf16 (8 significant bits), 1 + 2^-7 is kept; rhs ones.
  d.operands(f32({1 + 0x1p-9, 1 + 0x1p-7}, {1, 2}), f32({1, 1}, {2, 1}));
  Outcome o = run_dot(cat(d.dirs(), " --lhs-dtype bf16 --rhs-dtype bf16 --precision HIGHEST"));
  ASSERT_EQ(o.code, 0) << o.err;
  // 1 + (1 + 2^-7) = 2 + 2^-7, which a bf16 result rounds to 2 (ulp 2^-6 there).
  EXPECT_EQ(load_npy_tensor(d.out() + "/out.npy", DType::f32, "out.npy").to_f64(), std::vector<double>{2.0});
  nlohmann::json j = run_json(d);
  EXPECT_EQ(j["lhs_dtype"], "bf16");
  EXPECT_EQ(j["out_dtype"], "bf16");
  EXPECT_EQ(j["out_file_dtype"], "f32");
  // preferred f32 keeps the exact 2 + 2^-7 (bf16 products, f32 accumulation).
  o = run_dot(cat(d.dirs(), " --lhs-dtype bf16 --rhs-dtype bf16 --preferred-element-type f32"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(load_npy_tensor(d.out() + "/out.npy", DType::f32, "out.npy").to_f64(), std::vector<double>{2 + 0x1p-7});
}

TEST(DotCommand, F64ResultOfF32InputsAccumulatesInF64WithoutAPreset) {
  TempDir d("f64acc");
  // 1 + 2^-30 + ... : f32 accumulation loses the 2^-30s (below half an f32 ulp of 1), f64 keeps them.
  d.operands(f32({1, 0x1p-30, 0x1p-30}, {1, 3}), f32({1, 1, 1}, {3, 1}));
  Outcome o = run_dot(cat(d.dirs(), " --preferred-element-type f64"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(load_npy_tensor(d.out() + "/out.npy", DType::f64, "out.npy").to_f64(), std::vector<double>{1 + 0x1p-29});
  EXPECT_EQ(run_json(d)["algorithm_run"], "F64_F64_F64");
  // An explicit preset keeps its own accumulation type: F32_F32_F32 loses them.
  o = run_dot(cat(d.dirs(), " --preferred-element-type f64 --algorithm F32_F32_F32"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(load_npy_tensor(d.out() + "/out.npy", DType::f64, "out.npy").to_f64(), std::vector<double>{1.0});
}

TEST(DotCommand, F16FilesInAndOut) {
  TempDir d("f16");
  d.operands(small_ints({3, 4}, DType::f16, 3), small_ints({4, 2}, DType::f16, 4));
  Outcome o = run_dot(d.dirs());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(slurp(fs::path(d.out()) / "out.npy").find("'<f2'"), std::string::npos);
  EXPECT_EQ(load_npy_tensor(d.out() + "/out.npy", DType::f16, "out.npy").shape(), (Shape{3, 2}));
}

// An empty contracting list is JAX's "no contracting dimension": [2,3]·[4,5] -> [2,3,4,5], the
// outer product (CLI11 alone read '' as axis 0); with batch axes, [2,3]·[2,5] -> [2,3,5].
TEST(DotCommand, EmptyContractingListsAreAnOuterProduct) {
  TempDir d("outer");
  Tensor l = small_ints({2, 3}, DType::f32, 1), r = small_ints({4, 5}, DType::f32, 2);
  d.operands(l, r);
  Outcome o = run_dot(cat(d.dirs(), " --lhs-contracting '' --rhs-contracting ''"));
  ASSERT_EQ(o.code, 0) << o.err;
  Tensor got = load_npy_tensor(d.out() + "/out.npy", DType::f32, "out.npy");
  ASSERT_EQ(got.shape(), (Shape{2, 3, 4, 5}));
  std::vector<double> a = l.to_f64(), b = r.to_f64(), want;
  for (double x : a)
    for (double y : b) want.push_back(x * y);
  EXPECT_EQ(got.to_f64(), want);
  EXPECT_EQ(run_json(d)["dimension_numbers"]["lhs_contracting"], nlohmann::json::array());
  save_npy_tensor(d.in() + "/rhs.npy", small_ints({2, 5}, DType::f32, 2));
  o = run_dot(cat(d.dirs(), " --lhs-contracting '' --rhs-contracting '' --lhs-batch 0 --rhs-batch 0"));
  ASSERT_EQ(o.code, 0) << o.err;
  got = load_npy_tensor(d.out() + "/out.npy", DType::f32, "out.npy");
  ASSERT_EQ(got.shape(), (Shape{2, 3, 5}));
  b = small_ints({2, 5}, DType::f32, 2).to_f64();
  want.clear();
  for (int bb = 0; bb < 2; ++bb)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) want.push_back(a[size_t(bb * 3 + i)] * b[size_t(bb * 5 + j)]);
  EXPECT_EQ(got.to_f64(), want);
}

// The ANY_F8 presets round each operand to its f8 format as ml_dtypes does (ties to even,
// e4m3fn's overflow to NaN, e5m2's wider range) and run.json records the formats.
TEST(DotCommand, F8FormatsRoundEachOperandAndAreRecorded) {
  TempDir d("f8");
  // 1.0625 and 100 are ties in both formats (to 1 and 96); 500 is NaN in e4m3fn, 512 in e5m2.
  d.operands(f32({1.0625, 1.1875, 100, 500}, {4, 1}), f32({1.125}, {1, 1}));  // e4m3fn: 1.125, e5m2: 1
  auto out = [&](const std::string& flags) {
    Outcome o = run_dot(cat(d.dirs(), " --algorithm ANY_F8_ANY_F8_F32 ", flags));
    EXPECT_EQ(o.code, 0) << o.err;
    return load_npy_tensor(d.out() + "/out.npy", DType::f32, "out.npy").to_f64();
  };
  std::vector<double> e4 = out("");  // the default: e4m3fn for both
  EXPECT_EQ(std::vector<double>(e4.begin(), e4.begin() + 3), (std::vector<double>{1.125, 1.25 * 1.125, 96 * 1.125}));
  EXPECT_TRUE(std::isnan(e4[3]));
  EXPECT_EQ(run_json(d)["f8_formats"], (nlohmann::json{{"lhs", "e4m3fn"}, {"rhs", "e4m3fn"}}));
  EXPECT_EQ(out("--f8-format e5m2"), (std::vector<double>{1, 1.25, 96, 512}));
  EXPECT_EQ(out("--f8-format e5m2,e4m3fn"), (std::vector<double>{1.125, 1.25 * 1.125, 96 * 1.125, 512 * 1.125}));
  EXPECT_EQ(run_json(d)["f8_formats"], (nlohmann::json{{"lhs", "e5m2"}, {"rhs", "e4m3fn"}}));
  Outcome o = run_dot(cat(d.dirs(), " --algorithm F32_F32_F32"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(run_json(d)["f8_formats"].is_null());
}

// A fault in the engine's dot shows in `tandem dot`'s answer (TANDEM_INJECT).
TEST(DotCommand, InjectedFaultChangesTheAnswer) {
  TempDir d("fault");
  d.operands(f32({1, 2, 3}, {1, 3}), f32({1, 1, 1}, {3, 1}));
  Outcome o = run_dot(d.dirs(), "TANDEM_INJECT=dot_odd_k_drops_last_term");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(load_npy_tensor(d.out() + "/out.npy", DType::f32, "out.npy").to_f64(), std::vector<double>{3.0});
}

// ---- bad input: exit 4 and a message naming the problem ---------------------------------
struct Bad {
  const char* name;
  std::string flags;
  const char* expect;
};

TEST(DotCommand, BadInputExits4WithAHint) {
  TempDir d("bad");
  d.operands(small_ints({3, 4}, DType::f32, 1), small_ints({4, 5}, DType::f32, 2));
  const std::vector<Bad> cases = {
      {"shapes do not contract", "--lhs-contracting 0 --rhs-contracting 0", "contracting sizes differ"},
      {"axis out of range", "--lhs-contracting 2 --rhs-contracting 0", "out of range"},
      {"batch on one side only", "--lhs-batch 0", "different numbers"},
      {"unknown preset", "--algorithm BF16_BF16_F32_X4", "not a DotAlgorithm preset"},
      {"unknown precision", "--precision FASTEST", "unknown precision"},
      {"a Precision as --algorithm", "--algorithm HIGH", "pass --precision HIGH"},
      {"both flags", "--precision HIGH --algorithm F32_F32_F32", "both --precision and --algorithm"},
      {"f8 format without an f8 preset", "--f8-format e5m2", "f8 formats apply only to the ANY_F8"},
      {"unknown f8 format", "--algorithm ANY_F8_ANY_F8_F32 --f8-format e4m3", "is not FORMAT or LHS,RHS"},
      {"f8 on cuda", "--algorithm ANY_F8_ANY_F8_F32 --backend cuda", "--backend cuda"},
      {"no GPU", "--backend cuda", "--backend cuda"},
      {"unknown backend", "--backend tpu", "unknown backend"},
      {"bad dtype", "--lhs-dtype f8", "not a dtype"},
      {"float to int", "--lhs-dtype i32", "between integers and floats"},
      {"bad preferred", "--preferred-element-type q", "not a dtype"},
      {"contracting on one side", "--lhs-contracting 1", "requires"},
      {"empty on one side only", "--lhs-contracting '' --rhs-contracting 0", "different numbers"},
      {"junk axes", "--lhs-contracting 1,x --rhs-contracting 0,1", "not a list of axes"},
  };
  for (const Bad& c : cases) {
    Outcome o = run_dot(cat(d.dirs(), " ", c.flags));
    EXPECT_EQ(o.code, 4) << c.name << ": " << o.err;
    EXPECT_NE(o.err.find(c.expect), std::string::npos) << c.name << ": " << o.err;
    if (o.err.find("error:") != std::string::npos) {
      EXPECT_NE(o.err.find("hint:"), std::string::npos) << c.name;
    }
  }
  // Files: an int64 array, a missing rhs.
  std::ofstream(d.in() + "/lhs.npy", std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8);
  Outcome o = run_dot(d.dirs());
  EXPECT_EQ(o.code, 4) << o.err;
  EXPECT_NE(o.err.find("lhs.npy"), std::string::npos) << o.err;
  save_npy_tensor(d.in() + "/lhs.npy", small_ints({3, 4}, DType::f32, 1));
  fs::remove(d.in() + "/rhs.npy");
  o = run_dot(d.dirs());
  EXPECT_EQ(o.code, 4) << o.err;
  EXPECT_NE(o.err.find("rhs.npy: no such file"), std::string::npos) << o.err;
}

// ---- JAX itself ---------------------------------------------------------------------------
TEST(DotCommand, MatchesJaxDotGeneral) {
  TempDir work("jax");
  const std::string log = (work.path / "log.txt").string();
  const int status = std::system(cat(TANDEM_PYTHON " ", TANDEM_SOURCE_DIR, "/tools/oracles/dot_vs_jax.py ", TANDEM_BIN, " ",
                                     work.path.string(), " > ", log, " 2>&1").c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 77) GTEST_SKIP() << "JAX is not installed for " TANDEM_PYTHON " (ci/python_env.sh): " << slurp(log);
  EXPECT_EQ(code, 0) << slurp(log);
}

// The oracle can fail: with X3 run as one bf16 pass (an engine fault), its X3 runs exit 1.
TEST(DotCommand, JaxOracleCatchesAnInjectedFault) {
  TempDir work("jaxfault");
  const std::string log = (work.path / "log.txt").string();
  const int status = std::system(cat("TANDEM_INJECT=dot_x3_single_pass " TANDEM_PYTHON " ", TANDEM_SOURCE_DIR,
                                     "/tools/oracles/dot_vs_jax.py ", TANDEM_BIN, " ", work.path.string(),
                                     " --only 'mm_k4096/f32/algorithm:BF16_BF16_F32_X3$' > ", log, " 2>&1").c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 77) GTEST_SKIP() << "JAX is not installed for " TANDEM_PYTHON " (ci/python_env.sh): " << slurp(log);
  EXPECT_EQ(code, 1) << slurp(log);
  EXPECT_NE(slurp(log).find("FAIL"), std::string::npos) << slurp(log);
}

}  // namespace
}  // namespace tandem
