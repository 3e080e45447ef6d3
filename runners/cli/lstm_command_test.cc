// `tandem lstm` end to end: the binary is run on .npy directories and its outputs are compared with lstm_ref (f64),
// every output on its own; inputs written from C++ and from NumPy (incl. a Fortran-order array), outputs read back by
// NumPy; and every kind of bad input (wrong weight count, inconsistent shapes, seq_lengths not int32 or outside [1, T],
// unknown precision, malformed / truncated .npy, missing file) exits 4 with a hint; and, where PyTorch is installed,
// the same numbers as nn.LSTM.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>

#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "harness/atomic_file.h"
#include "runners/cli/cli_test_support.h"
#include "runners/cli/npy_io.h"
#include "suites/lstm/lstm_check.h"

namespace tandem {
namespace {
namespace fs = std::filesystem;

using cli_test::Outcome;
Outcome run_tandem(const std::string& args) { return cli_test::run_subcommand("lstm", args); }

struct TempDir : cli_test::ScratchDir {
  explicit TempDir(const std::string& tag) : ScratchDir(cat("tandem_lstm_", tag)) {}
};

// Writes the suite's seeded inputs for config c (x h0 c0 w seq_lengths [dy dh_n dc_n]).
std::vector<Tensor> write_inputs(const TempDir& d, const LstmConfig& c, const std::vector<int32_t>& lens,
                                 bool backward) {
  std::vector<Tensor> in = make_lstm_inputs(c, lens, cat("byod/", c.batch, "/", c.hidden));
  const char* names[] = {"x", "h0", "c0", "w", "seq_lengths", "dy", "dh_n", "dc_n"};
  for (int i = 0; i < (backward ? 8 : 5); ++i) save_npy_tensor(d / cat(names[i], ".npy"), in[size_t(i)]);
  return in;
}

// Loads OUT's arrays and compares each with lstm_ref on `in`.
void expect_matches_reference(const TempDir& out, const LstmConfig& c, const std::vector<Tensor>& in,
                              bool backward) {
  std::vector<double> v[8];
  for (size_t i = 0; i < in.size(); ++i) v[i] = in[i].to_f64();
  std::vector<int64_t> lens = lens_of(in[4]);
  ref::LstmOutputs f = ref::lstm_forward(ref_shape(c), v[0], v[1], v[2], v[3], lens);
  LstmSpecs s = lstm_specs(c, false);
  std::vector<NamedOutput> want = {{"y", f.y, s.fwd}, {"h_n", f.h_n, s.fwd}, {"c_n", f.c_n, s.fwd}};
  if (backward) {
    ref::LstmGrads g = ref::lstm_backward(ref_shape(c), v[0], v[1], v[2], v[3], lens, v[5], v[6], v[7]);
    want.insert(want.end(), {{"dx", g.dx, s.bwd}, {"dh0", g.dh0, s.bwd}, {"dc0", g.dc0, s.bwd}, {"dw", g.dw, s.dw}});
  } else {
    EXPECT_FALSE(fs::exists(out / "dx.npy")) << "a forward-only run wrote gradients";
  }
  std::vector<Tensor> got;
  for (const NamedOutput& o : want) got.push_back(load_npy_tensor(out / (o.name + ".npy"), DType::f32, o.name));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(size_t(got[i].numel()), want[i].want.size()) << want[i].name << " has the wrong size";
  CaseResult r = compare_outputs(want, got);
  EXPECT_EQ(r.verdict, Verdict::pass) << r.message;
}

TEST(LstmCommand, ForwardAndBackwardMatchReferenceWithFlags) {
  TempDir in("fb_in"), out("fb_out");
  LstmConfig c{3, 5, 2, 4, 2, true};
  std::vector<Tensor> x = write_inputs(in, c, {5, 2, 4}, true);
  Outcome r = run_tandem(cat("--in ", in.path, " --out ", out.path, " --hidden-size 4 --num-layers 2 --bidirectional 1"));
  ASSERT_EQ(r.code, 0) << r.err;
  expect_matches_reference(out, c, x, true);
  EXPECT_TRUE(fs::exists(out / "run.json"));
}

TEST(LstmCommand, ForwardOnlyFromConfigJson) {
  TempDir in("f_in"), out("f_out");
  LstmConfig c{4, 3, 3, 5, 1, false};
  std::vector<Tensor> x = write_inputs(in, c, {3, 1, 2, 3}, false);
  std::ofstream(in / "config.json") << R"({"hidden_size": 5, "num_layers": 1, "bidirectional": false,
                                           "precision": "HIGHEST", "backend": "cpu"})";
  Outcome r = run_tandem(cat("--in ", in.path, " --out ", out.path));
  ASSERT_EQ(r.code, 0) << r.err;
  expect_matches_reference(out, c, x, false);
}

// NumPy writes the inputs (x in Fortran order, lengths int32) and reads every output back.
TEST(LstmCommand, NumpyRoundTrip) {
  if (std::system(TANDEM_PYTHON " -c 'import numpy' 2>/dev/null") != 0)
    GTEST_SKIP() << TANDEM_PYTHON " has no numpy (ci/install_deps.sh makes the project's .venv)";
  TempDir in("np_in"), out("np_out");
  const std::string make = cat(
      TANDEM_PYTHON " -c \"import numpy as np, os; d='", in.path.string(), "'\n"
      "g=np.random.default_rng(7); B,T,I,H,L=3,4,2,3,2; S=2*L\n"
      "n=sum(4*H*(I if l==0 else 2*H)+4*H*H+8*H for l in range(L) for _ in range(2))\n"
      "np.save(os.path.join(d,'x.npy'), np.asfortranarray(g.uniform(-1,1,(B,T,I)).astype(np.float32)))\n"
      "[np.save(os.path.join(d,k+'.npy'), g.uniform(-1,1,(S,B,H)).astype(np.float32)) for k in ('h0','c0','dh_n','dc_n')]\n"
      "np.save(os.path.join(d,'w.npy'), g.uniform(-0.5,0.5,n).astype(np.float32))\n"
      "np.save(os.path.join(d,'seq_lengths.npy'), np.array([4,1,3],dtype=np.int32))\n"
      "np.save(os.path.join(d,'dy.npy'), g.uniform(-1,1,(B,T,2*H)).astype(np.float32))\"");
  ASSERT_EQ(std::system(make.c_str()), 0);
  Outcome r = run_tandem(cat("--in ", in.path, " --out ", out.path, " --hidden-size 3 --num-layers 2 --bidirectional 1"));
  ASSERT_EQ(r.code, 0) << r.err;
  LstmConfig c{3, 4, 2, 3, 2, true};
  const char* names[] = {"x", "h0", "c0", "w", "seq_lengths", "dy", "dh_n", "dc_n"};
  std::vector<Tensor> x;
  for (int i = 0; i < 8; ++i)
    x.push_back(load_npy_tensor(in / cat(names[i], ".npy"), i == 4 ? DType::i32 : DType::f32, names[i]));
  expect_matches_reference(out, c, x, true);
  const std::string check = cat(
      TANDEM_PYTHON " -c \"import numpy as np, os; d='", out.path.string(), "'\n"
      "want={'y':(3,4,6),'h_n':(4,3,3),'c_n':(4,3,3),'dx':(3,4,2),'dh0':(4,3,3),'dc0':(4,3,3),'dw':(",
      get_num_params_in_lstm(2, 3, 2, true), ",)}\n"
      "for k,s in want.items():\n a=np.load(os.path.join(d,k+'.npy'))\n"
      " assert a.dtype==np.float32 and a.shape==s and np.isfinite(a).all(), (k,a.dtype,a.shape)\n"
      "assert (np.load(os.path.join(d,'y.npy'))[1,1:]==0).all()\"");  // padded steps of row 1
  EXPECT_EQ(std::system(check.c_str()), 0);
}

// The .npy reader against numpy.load both ways: every file numpy writes for our
// dtypes loads with its values, every variant numpy refuses is refused (runners/cli/npy_fixtures.py).
TEST(NpyIo, AgreesWithNumpyBothWays) {
  if (std::system(TANDEM_PYTHON " -c 'import numpy' 2>/dev/null") != 0)
    GTEST_SKIP() << TANDEM_PYTHON " has no numpy (ci/install_deps.sh makes the project's .venv)";
  TempDir dir("npy_fixtures");
  ASSERT_EQ(std::system(cat(TANDEM_PYTHON " " TANDEM_SOURCE_DIR "/runners/cli/npy_fixtures.py ", dir.path).c_str()), 0);
  std::ifstream manifest(dir / "MANIFEST");
  int files = 0;
  for (std::string name, want; manifest >> name >> want; ++files) {
    std::string why;
    try {
      Tensor t = load_npy_tensor_of(dir / name, {DType::f32, DType::f64, DType::f16, DType::i32}, name);
      EXPECT_EQ(t.shape(), Shape({2, 3})) << name;
      const double last = t.dtype() == DType::f32 ? t.data<float>()[5] : t.dtype() == DType::f64 ? t.data<double>()[5]
                          : t.dtype() == DType::i32 ? t.data<int32_t>()[5] : 5.0;
      EXPECT_EQ(last, 5.0) << name << ": element [1, 2] of arange(6).reshape(2, 3)";
    } catch (const Error& e) {
      why = e.message();
    }
    if (want == "accept") {
      EXPECT_EQ(why, "") << name << ": numpy wrote it";
    }
    if (want == "refuse") {
      EXPECT_NE(why, "") << name << ": numpy refuses it";
    }
  }
  EXPECT_GE(files, 45);
}

// Runs `python tools/oracles/SCRIPT TANDEM_BIN WORKDIR`: its exit code (77: the framework is not
// installed), its output in `log`.
int run_comparison(const std::string& python, const std::string& script, const std::string& tag, std::string& log) {
  TempDir work(tag);
  const int status = std::system(cat(python, " ", TANDEM_SOURCE_DIR, "/tools/oracles/", script, " ", TANDEM_BIN, " ",
                                     work.path.string(), " > ", work / "log.txt", " 2>&1").c_str());
  log = cli_test::slurp(work / "log.txt");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// PyTorch's nn.LSTM on the same data (ragged, bidirectional, 2 layers), its weights packed as docs/LSTM_DATA.md says:
// every output and gradient within 1e-5. Optional: needs python3-torch, which ci/deps.txt leaves out (it is large).
TEST(LstmCommand, MatchesPyTorchNnLstm) {
  std::string log;
  const int code = run_comparison(TANDEM_PYTHON, "lstm_vs_torch.py", "torch", log);
  if (code == 77) GTEST_SKIP() << "PyTorch is not installed for " TANDEM_PYTHON ": " << log;
  EXPECT_EQ(code, 0) << log;
}

// JAX itself: jax.experimental.rnn's unpack_lstm_weights and lstm_ref, gradients by jax.vjp,
// on 7 configurations (ragged, bidirectional, up to 3 layers, B = 1, T = 1); each array within
// a bound derived from JAX's own f32 error against JAX in f64 (tools/oracles/lstm_vs_jax.py). Optional:
// needs PyPI's jax in the project's Python, TANDEM_PYTHON (ci/python_env.sh installs it).
TEST(LstmCommand, MatchesJaxLstmRef) {
  std::string log;
  const int code = run_comparison(TANDEM_PYTHON, "lstm_vs_jax.py", "jax", log);
  if (code == 77) GTEST_SKIP() << "JAX is not installed for " TANDEM_PYTHON " (ci/python_env.sh): " << log;
  EXPECT_EQ(code, 0) << log;
}

// ---- bad input ------------------------------------------------------------------------
struct BadCase {
  const char* name;
  std::function<void(const TempDir&)> spoil;  // turns a valid input directory into a bad one
  const char* expect;                         // a phrase the message must contain
  std::string flags = "--hidden-size 4 --num-layers 2 --bidirectional 1";
};

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
Tensor f32(const Shape& s) { return Tensor::zeros(s, DType::f32); }
// A v1 .npy file with float32 descr, the given shape text and `data` bytes after the header.
std::string npy_f32(const std::string& shape, size_t data) {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  h.append(63 - (10 + h.size()) % 64 + 1, ' ');
  h.back() = '\n';
  std::string b = "\x93NUMPY\x01";
  b += '\0';
  b += char(h.size() & 0xff);
  b += char(h.size() >> 8);
  return b + h + std::string(data, '\0');
}
Tensor i32(const std::vector<double>& v) { return Tensor::from_f64(v, {int64_t(v.size())}, DType::i32); }

std::vector<BadCase> bad_cases() {
  // The valid base: B=3, T=5, I=2, H=4, 2 layers, bidirectional, with dy.
  return {
      {"wrong_weight_count", [](const TempDir& d) { save_npy_tensor(d / "w.npy", f32({10})); }, "w.npy has shape [10]"},
      {"weights_for_other_config", [](const TempDir&) {}, "w.npy has shape", "--hidden-size 4 --num-layers 1 --bidirectional 1"},
      {"h0_wrong_shape", [](const TempDir& d) { save_npy_tensor(d / "h0.npy", f32({4, 3, 5})); }, "h0.npy has shape [4,3,5]"},
      {"c0_wrong_batch", [](const TempDir& d) { save_npy_tensor(d / "c0.npy", f32({4, 2, 4})); }, "c0.npy has shape"},
      {"x_rank_2", [](const TempDir& d) { save_npy_tensor(d / "x.npy", f32({3, 5})); }, "x.npy has shape [3,5]"},
      {"dy_wrong_width", [](const TempDir& d) { save_npy_tensor(d / "dy.npy", f32({3, 5, 4})); }, "dy.npy has shape"},
      {"dh_n_wrong_shape", [](const TempDir& d) { save_npy_tensor(d / "dh_n.npy", f32({1, 3, 4})); }, "dh_n.npy has shape"},
      {"lengths_int64", [](const TempDir& d) { xt::dump_npy(d / "seq_lengths.npy", xt::xarray<int64_t>{5, 2, 4}); },
       "seq_lengths.npy is int64, expected int32"},
      {"lengths_float", [](const TempDir& d) { save_npy_tensor(d / "seq_lengths.npy",
                                                               Tensor::from_f64({5, 2, 4}, {3}, DType::f32)); },
       "seq_lengths.npy is float32, expected int32"},
      {"lengths_zero", [](const TempDir& d) { save_npy_tensor(d / "seq_lengths.npy", i32({5, 0, 4})); },
       "seq_lengths[1] = 0 is outside [1, 5]"},
      {"lengths_too_long", [](const TempDir& d) { save_npy_tensor(d / "seq_lengths.npy", i32({5, 6, 4})); },
       "seq_lengths[1] = 6 is outside [1, 5]"},
      {"lengths_wrong_count", [](const TempDir& d) { save_npy_tensor(d / "seq_lengths.npy", i32({5, 2})); },
       "seq_lengths.npy has shape [2]"},
      {"x_float64", [](const TempDir& d) { save_npy_tensor(d / "x.npy", Tensor::zeros({3, 5, 2}, DType::f64)); },
       "x.npy is float64, expected float32"},
      {"unknown_precision", [](const TempDir&) {}, "unknown precision 'FASTEST'",
       "--hidden-size 4 --num-layers 2 --bidirectional 1 --precision FASTEST"},
      {"bf16_precision", [](const TempDir&) {}, "not implemented",
       "--hidden-size 4 --num-layers 2 --bidirectional 1 --precision DEFAULT"},
      {"unknown_backend", [](const TempDir&) {}, "unknown backend 'tpu'",
       "--hidden-size 4 --num-layers 2 --bidirectional 1 --backend tpu"},
      {"no_hidden_size", [](const TempDir&) {}, "hidden size is not given", "--num-layers 2"},
      {"truncated_npy", [](const TempDir& d) { std::string b = read_bytes(d / "x.npy");
                                               write_bytes(d / "x.npy", b.substr(0, b.size() - 7)); }, "truncated"},
      {"truncated_header", [](const TempDir& d) { write_bytes(d / "h0.npy", read_bytes(d / "h0.npy").substr(0, 30)); },
       "truncated header"},
      {"trailing_bytes", [](const TempDir& d) { write_bytes(d / "w.npy", read_bytes(d / "w.npy") + "xyz!"); },
       "trailing bytes"},
      {"not_npy", [](const TempDir& d) { write_bytes(d / "c0.npy", "x,y\n1,2\n"); }, "magic"},
      {"garbled_header", [](const TempDir& d) { std::string b = read_bytes(d / "dy.npy");
                                                b.replace(b.find("descr"), 5, "dxxxx"); write_bytes(d / "dy.npy", b); },
       "bad header"},
      {"non_numeric_shape", [](const TempDir& d) { std::string b = read_bytes(d / "c0.npy");
                                                   b[b.find("(") + 1] = 'x'; write_bytes(d / "c0.npy", b); },
       "bad shape in header"},
      // count * 4 wraps to 0 (2^62 elements), to the file's 8 bytes (2^62 + 2), or the count wraps.
      {"npy_bytes_wrap_to_zero", [](const TempDir& d) { write_bytes(d / "x.npy", npy_f32("4611686018427387904,", 0)); },
       "needs more than 2^63 data bytes"},
      {"npy_bytes_wrap_to_file", [](const TempDir& d) { write_bytes(d / "w.npy", npy_f32("4611686018427387906,", 8)); },
       "needs more than 2^63 data bytes"},
      {"npy_count_wraps", [](const TempDir& d) { write_bytes(d / "h0.npy", npy_f32("4294967296, 4294967296", 0)); },
       "more than 2^64 elements"},
      {"npy_entry_above_int64", [](const TempDir& d) { write_bytes(d / "c0.npy", npy_f32("9223372036854775808,", 0)); },
       "larger than 2^63-1"},
      {"dangling_optional_dy", [](const TempDir& d) { fs::remove(d / "dy.npy"); fs::create_symlink(d / "nope.npy", d / "dy.npy"); },
       "dy.npy: " },
      {"dangling_optional_h0", [](const TempDir& d) { fs::remove(d / "h0.npy"); fs::create_symlink(d / "nope.npy", d / "h0.npy"); },
       "a dangling symlink"},
      {"directory_as_optional_c0", [](const TempDir& d) { fs::remove(d / "c0.npy"); fs::create_directory(d / "c0.npy"); },
       "not a regular file"},
      {"fifo_as_npy", [](const TempDir& d) { fs::remove(d / "x.npy"); ::mkfifo((d / "x.npy").c_str(), 0600); },
       "not a regular file"},
      {"fifo_as_config", [](const TempDir& d) { ::mkfifo((d / "config.json").c_str(), 0600); }, "not a regular file"},
      {"config_too_large", [](const TempDir& d) { std::ofstream(d / "config.json") << std::string(2 << 20, ' ') << "{}"; },
       "larger than 1048576 bytes"},
      {"config_huge_num_layers", [](const TempDir& d) { std::ofstream(d / "config.json") << R"({"num_layers": 9223372036854775807})"; },
       "must be in [1, ", "--hidden-size 4"},
      {"config_huge_hidden", [](const TempDir& d) { std::ofstream(d / "config.json") << R"({"hidden_size": 4611686018427387904})"; },
       "must be in [1, ", "--num-layers 2"},
      {"missing_weights", [](const TempDir& d) { fs::remove(d / "w.npy"); }, "w.npy: no such file"},
      {"bad_config_json", [](const TempDir& d) { std::ofstream(d / "config.json") << "{\"hidden_size\": 4,"; },
       "not valid JSON"},
      {"config_typo", [](const TempDir& d) { std::ofstream(d / "config.json") << R"({"hiden_size": 4})"; },
       "unknown key 'hiden_size'"},
      {"bidirectional_not_0_or_1", [](const TempDir&) {}, "--bidirectional",
       "--hidden-size 4 --num-layers 2 --bidirectional 2"},
      {"cuda_without_gpu", [](const TempDir&) {}, "cuda",
       "--hidden-size 4 --num-layers 2 --bidirectional 1 --backend cuda"},
  };
}

class LstmBadInput : public ::testing::TestWithParam<size_t> {};

TEST_P(LstmBadInput, ExitsFourWithHint) {
  const BadCase bc = bad_cases()[GetParam()];
  if (std::string(bc.name) == "cuda_without_gpu" && cuda_device_count() > 0)
    GTEST_SKIP() << "a CUDA device is visible";
  TempDir in(cat("bad_", bc.name)), out(cat("bad_out_", bc.name));
  write_inputs(in, LstmConfig{3, 5, 2, 4, 2, true}, {5, 2, 4}, true);
  bc.spoil(in);
  Outcome r = run_tandem(cat("--in ", in.path, " --out ", out.path, " ", bc.flags));
  EXPECT_EQ(r.code, 4) << bc.name << ": " << r.err;
  EXPECT_NE(r.err.find(bc.expect), std::string::npos) << bc.name << ": message lacks '" << bc.expect << "':\n" << r.err;
  EXPECT_NE(r.err.find("hint:"), std::string::npos) << bc.name << ": no hint:\n" << r.err;
  EXPECT_FALSE(fs::exists(out / "y.npy")) << bc.name << ": outputs written despite bad input";
}

INSTANTIATE_TEST_SUITE_P(All, LstmBadInput, ::testing::Range<size_t>(0, bad_cases().size()),
                         [](const auto& info) { return std::string(bad_cases()[info.param].name); });

// Temporaries are mkstemp names, not predictable ones: symlinks planted at the old names
// (y.npy.tmp.<pid>, run.json.tmp, records.json.tmp.<pid>) are never followed or replaced.
TEST(LstmCommand, PlantedSymlinksAtTemporaryNamesAreLeftAlone) {
  TempDir in("sym_in"), out("sym_out");
  LstmConfig c{2, 3, 2, 3, 1, false};
  write_inputs(in, c, {3, 2}, false);
  const std::string victim = out / "victim.txt";
  write_bytes(victim, "precious");
  fs::create_symlink(victim, out / "run.json.tmp");
  // The old .npy temporary was <path>.tmp.<pid of tandem>: plant one for a range of pids.
  const pid_t next = ::getpid();
  for (pid_t p = next; p < next + 400; ++p) fs::create_symlink(victim, out / cat("y.npy.tmp.", p));
  Outcome r = run_tandem(cat("--in ", in.path, " --out ", out.path, " --hidden-size 3"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_bytes(victim), "precious");
  EXPECT_TRUE(fs::is_symlink(out / "run.json.tmp"));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out / "y.npy")));
  for (const auto& e : fs::directory_iterator(out.path))  // no temporary is left behind
    EXPECT_TRUE(e.path().filename().string()[0] != '.') << e.path();
  write_file_atomically(out / "records.json", "{}");
  EXPECT_EQ(read_bytes(out / "records.json"), "{}");
  EXPECT_EQ(fs::status(out / "records.json").permissions() & fs::perms::others_read, fs::perms::others_read);
}


// One run's outputs are one unit. A forward-only run into the --out of an earlier
// backward run leaves no gradients of that run behind, and run.json names this run's files;
// a second run into a directory another run is writing is refused (exit 4), not interleaved.
TEST(LstmCommand, OutputsOfOneRunAreOneUnit) {
  TempDir in("unit_in"), out("unit_out");
  LstmConfig c{3, 5, 2, 4, 2, true};
  std::vector<Tensor> x = write_inputs(in, c, {5, 2, 4}, true);
  const std::string flags = " --hidden-size 4 --num-layers 2 --bidirectional 1";
  ASSERT_EQ(run_tandem(cat("--in ", in.path, " --out ", out.path, flags)).code, 0);
  ASSERT_TRUE(fs::exists(out / "dw.npy"));
  for (const char* f : {"dy.npy", "dh_n.npy", "dc_n.npy"}) fs::remove(in / f);  // now forward only
  Outcome r = run_tandem(cat("--in ", in.path, " --out ", out.path, flags));
  ASSERT_EQ(r.code, 0) << r.err;
  expect_matches_reference(out, c, x, false);
  for (const char* f : {"dh0.npy", "dc0.npy", "dw.npy"}) EXPECT_FALSE(fs::exists(out / f)) << f << " of the earlier run";
  EXPECT_EQ(nlohmann::json::parse(read_bytes(out / "run.json"))["files"],
            nlohmann::json::array({"y.npy", "h_n.npy", "c_n.npy"}));

  // Another process holds --out (flock(1) on the directory, as a running tandem does).
  const std::string busy = cat("flock ", out.path, " timeout 120 ", TANDEM_BIN, " lstm --in ", in.path, " --out ", out.path,
                               flags, " 2>", out / "busy.err");
  const int status = std::system(busy.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 4);
  EXPECT_NE(read_bytes(out / "busy.err").find("another tandem run is writing to --out"), std::string::npos)
      << read_bytes(out / "busy.err");
}

}  // namespace
}  // namespace tandem
