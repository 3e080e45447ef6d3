// `tandem lstm` on files (see lstm_byod.h and docs/LSTM_DATA.md). Every check here names the
// file and the expected shape, so a user can fix the input without reading tandem's source;
// the engine's own operand checks stay behind these as a second line.
#include "runners/cli/lstm_byod.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/cpu/lstm_cpu.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/executor.h"
#include "engine/prims/lstm.h"
#include "harness/atomic_file.h"
#include "harness/out_dir_lock.h"
#include "runners/cli/npy_io.h"
#include "runners/cli/selection.h"
#include "suites/common/lstm_program.h"

namespace tandem {
namespace fs = std::filesystem;
namespace {

const char* kConfigHint =
    R"(config.json looks like {"hidden_size": 32, "num_layers": 1, "bidirectional": false, )"
    R"("precision": "HIGHEST", "backend": "cpu"}; flags --hidden-size etc. override it)";

constexpr uintmax_t kMaxConfigBytes = 1 << 20;  // a config is a few keys; far less than 1 MiB

// Flags first, then the JSON file, then defaults.
struct Resolved {
  LstmConfig c;
  std::string precision = "HIGHEST", backend = "cpu";
};

Resolved resolve(const LstmRunOptions& o, int64_t input) {
  nlohmann::json j = nlohmann::json::object();
  std::string path = o.config_path;
  std::error_code ec;
  if (path.empty() && fs::exists(fs::symlink_status(fs::path(o.in_dir) / "config.json", ec)))
    path = (fs::path(o.in_dir) / "config.json").string();
  if (!path.empty()) {
    // A FIFO would block the read and a device never end: only a bounded regular file is read.
    if (!fs::is_regular_file(path, ec))
      throw_bad_input(cat("config: ", path, " is not a regular file"), kConfigHint);
    if (fs::file_size(path, ec) > kMaxConfigBytes || ec)
      throw_bad_input(cat("config: ", path, " is larger than ", kMaxConfigBytes, " bytes"), kConfigHint);
    std::ifstream f(path);
    if (!f) throw_bad_input(cat("config: cannot open ", path), kConfigHint);
    try {
      j = nlohmann::json::parse(f);
    } catch (const std::exception& e) {
      throw_bad_input(cat("config: ", path, " is not valid JSON: ", e.what()), kConfigHint);
    }
    if (!j.is_object()) throw_bad_input(cat("config: ", path, " must hold a JSON object"), kConfigHint);
    for (auto& [k, v] : j.items())
      if (k != "hidden_size" && k != "num_layers" && k != "bidirectional" && k != "precision" &&
          k != "backend" && k != "input_size")
        throw_bad_input(cat("config: unknown key '", k, "' in ", path), kConfigHint);
  }
  auto get_int = [&](const char* key, int64_t flag, int64_t fallback) -> int64_t {
    if (flag != -1) return flag;
    if (!j.contains(key)) return fallback;
    if (!j[key].is_number_integer())
      throw_bad_input(cat("config: ", key, " must be an integer, got ", j[key].dump()), kConfigHint);
    return j[key].get<int64_t>();
  };
  auto get_str = [&](const char* key, const std::string& flag, const std::string& fallback) {
    if (!flag.empty()) return flag;
    if (!j.contains(key)) return fallback;
    if (!j[key].is_string())
      throw_bad_input(cat("config: ", key, " must be a string, got ", j[key].dump()), kConfigHint);
    return j[key].get<std::string>();
  };
  Resolved r;
  r.c.input = input;
  r.c.hidden = get_int("hidden_size", o.hidden_size, -1);
  r.c.layers = get_int("num_layers", o.num_layers, 1);
  if (o.bidirectional != -1 && o.bidirectional != 0 && o.bidirectional != 1)
    throw_bad_input(cat("lstm: --bidirectional ", o.bidirectional, " is not 0 or 1"),
                    "--bidirectional 1 runs both directions, --bidirectional 0 (the default) one");
  if (o.bidirectional != -1) {
    r.c.bidirectional = o.bidirectional != 0;
  } else if (j.contains("bidirectional")) {
    const auto& v = j["bidirectional"];
    if (!v.is_boolean() && !(v.is_number_integer() && (v == 0 || v == 1)))
      throw_bad_input(cat("config: bidirectional must be true/false, got ", v.dump()), kConfigHint);
    r.c.bidirectional = v.is_boolean() ? v.get<bool>() : v.get<int>() == 1;
  }
  if (j.contains("input_size") && (!j["input_size"].is_number_integer() || j["input_size"].get<int64_t>() != input))
    throw_bad_input(cat("config: input_size ", j["input_size"].dump(), " but x.npy's last axis is ", input),
                    "x.npy is [batch, seq, input_size]; drop input_size from config.json or fix x");
  if (r.c.hidden == -1)
    throw_bad_input("lstm: the hidden size is not given", cat("pass --hidden-size H, or ", kConfigHint));
  if (r.c.hidden < 1 || r.c.layers < 1 || r.c.hidden > kMaxLstmSize || r.c.layers > kMaxLstmLayers)
    throw_bad_input(cat("lstm: hidden_size ", r.c.hidden, " and num_layers ", r.c.layers, " must be in [1, ",
                        kMaxLstmSize, "] and [1, ", kMaxLstmLayers, "]"),
                    kConfigHint);
  r.precision = get_str("precision", o.precision, "HIGHEST");
  r.backend = get_str("backend", o.backend, "cpu");
  lstm_allow_tf32(r.precision);  // unknown → bad input; DEFAULT → unsupported, with hints
  if (r.backend != "cpu" && r.backend != "cuda")
    throw_bad_input(cat("lstm: unknown backend '", r.backend, "'"), "use --backend cpu or --backend cuda");
  return r;
}

void expect_shape(const Tensor& t, const Shape& want, const std::string& file, const std::string& meaning) {
  if (t.shape() != want)
    throw_bad_input(cat(file, " has shape [", shape_str(t.shape()), "], expected [", shape_str(want), "]"),
                    cat(file, " is ", meaning));
}

std::string in_path(const LstmRunOptions& o, const char* name) { return (fs::path(o.in_dir) / name).string(); }
// An optional input is absent only when there is no such name: a dangling symlink or a
// non-regular file under that name is given (and load_npy_tensor rejects it as bad input).
bool has(const LstmRunOptions& o, const char* name) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(in_path(o, name), ec));
}

// x.npy: batch-first [batch, seq, input_size], every size >= 1.
Tensor load_x(const LstmRunOptions& o) {
  if (!fs::is_directory(o.in_dir))
    throw_bad_input(cat("lstm: --in ", o.in_dir, " is not a directory"), "docs/LSTM_DATA.md lists the files it holds");
  Tensor x = load_npy_tensor(in_path(o, "x.npy"), DType::f32, "x.npy");
  if (x.rank() != 3 || x.shape()[0] < 1 || x.shape()[1] < 1 || x.shape()[2] < 1)
    throw_bad_input(cat("x.npy has shape [", shape_str(x.shape()), "], expected [batch, seq, input_size] "
                        "with every size >= 1"), "x is batch-first, as in jax.experimental.rnn.lstm");
  return x;
}

// A state or its cotangent (h0, c0, dh_n, dc_n): zeros when its file is absent.
Tensor optional_state(const LstmRunOptions& o, const char* name, const Shape& state) {
  if (!has(o, name)) return Tensor::zeros(state, DType::f32);
  Tensor t = load_npy_tensor(in_path(o, name), DType::f32, name);
  expect_shape(t, state, name, cat("[num_layers * num_directions, batch, hidden] = [", shape_str(state),
                                   "] for this config and x"));
  return t;
}

// w.npy: the packed weights, as many as the config has.
Tensor load_weights(const LstmRunOptions& o, const LstmConfig& c) {
  Tensor w = load_npy_tensor(in_path(o, "w.npy"), DType::f32, "w.npy");
  const int64_t n = get_num_params_in_lstm(c.input, c.hidden, c.layers, c.bidirectional);
  if (w.rank() != 1 || w.numel() != n)
    throw_bad_input(cat("w.npy has shape [", shape_str(w.shape()), "], expected [", n, "]: the packed weights of an "
                        "LSTM with input ", c.input, ", hidden ", c.hidden, ", ", c.layers, " layer(s), ",
                        c.bidirectional ? "bidirectional" : "unidirectional"),
                    "check --hidden-size/--num-layers/--bidirectional; the layout is in docs/LSTM_DATA.md "
                    "(jax.experimental.rnn.get_num_params_in_lstm gives the count)");
  return w;
}

// seq_lengths.npy, each in [1, seq]; every row the whole seq when absent.
Tensor load_lengths(const LstmRunOptions& o, const LstmConfig& c) {
  if (!has(o, "seq_lengths.npy"))
    return Tensor::from_f64(std::vector<double>(size_t(c.batch), double(c.seq)), {c.batch}, DType::i32);
  Tensor lens = load_npy_tensor(in_path(o, "seq_lengths.npy"), DType::i32, "seq_lengths.npy");
  expect_shape(lens, {c.batch}, "seq_lengths.npy", cat("one int32 length per batch row: [", c.batch, "]"));
  const int32_t* v = lens.data<int32_t>();
  for (int64_t b = 0; b < c.batch; ++b)
    if (v[b] < 1 || v[b] > c.seq)
      throw_bad_input(cat("seq_lengths.npy: seq_lengths[", b, "] = ", v[b], " is outside [1, ", c.seq, "]"),
                      "every length must be between 1 and x's seq axis; tandem rejects length 0 "
                      "(as cuDNN does): drop empty sequences from the batch");
  return lens;
}

// The cotangents {dy, dh_n, dc_n} when any is given (the missing ones zeros); none when no
// cotangent is given: then only the forward runs.
std::vector<Tensor> load_cotangents(const LstmRunOptions& o, const LstmConfig& c, const Shape& state) {
  if (!has(o, "dy.npy") && !has(o, "dh_n.npy") && !has(o, "dc_n.npy")) return {};
  const Shape yshape{c.batch, c.seq, c.dirs() * c.hidden};
  Tensor dy = Tensor::zeros(yshape, DType::f32);
  if (has(o, "dy.npy")) {
    dy = load_npy_tensor(in_path(o, "dy.npy"), DType::f32, "dy.npy");
    expect_shape(dy, yshape, "dy.npy", cat("the cotangent of y: [batch, seq, num_directions * hidden] = [",
                                           shape_str(yshape), "]"));
  }
  Tensor dhn = optional_state(o, "dh_n.npy", state);
  return {dy, dhn, optional_state(o, "dc_n.npy", state)};
}

// The arrays of one run into --out, an earlier run's that this one does not write removed
// first (with run.json, written last); returns the files written.
nlohmann::json write_arrays(const LstmRunOptions& o, const std::vector<Tensor>& out) {
  const char* names[] = {"y", "h_n", "c_n", "dx", "dh0", "dc0", "dw"};
  std::error_code ec;
  fs::remove(fs::path(o.out_dir) / "run.json", ec);
  for (size_t i = out.size(); i < std::size(names); ++i) {
    const fs::path stale = fs::path(o.out_dir) / cat(names[i], ".npy");
    if (!fs::remove(stale, ec) && ec)
      throw Error(ErrorKind::internal, cat("lstm: cannot remove ", stale.string(), " of an earlier run: ", ec.message()),
                  "check the permissions of --out, or pass an empty --out directory");
  }
  nlohmann::json files = nlohmann::json::array();
  for (size_t i = 0; i < out.size(); ++i) {
    const std::string file = cat(names[i], ".npy");
    save_npy_tensor((fs::path(o.out_dir) / file).string(), out[i].to(Device::cpu()));
    files.push_back(file);
  }
  return files;
}

}  // namespace

void run_lstm_on_files(const LstmRunOptions& o) {
  Tensor x = load_x(o);
  Resolved r = resolve(o, x.shape()[2]);
  LstmConfig& c = r.c;
  c.batch = x.shape()[0];
  c.seq = x.shape()[1];
  const Shape state{c.pseudo_layers(), c.batch, c.hidden};
  Tensor w = load_weights(o, c);
  // (The weight count is checked before the states: it is the most telling sign of a config
  // — --hidden-size, --num-layers, --bidirectional — that does not match the data.)
  Tensor h0 = optional_state(o, "h0.npy", state), c0 = optional_state(o, "c0.npy", state);
  Tensor lens = load_lengths(o, c);
  const std::vector<Tensor> cts = load_cotangents(o, c, state);
  const bool backward = !cts.empty();

  const Device dev = single_device("lstm", r.backend);
  if (o.threads > 0) cpu::set_lstm_threads(o.threads);

  std::vector<Tensor> in = {x, h0, c0, w, lens};
  in.insert(in.end(), cts.begin(), cts.end());
  for (Tensor& t : in) t = t.to(dev);
  Program prog = backward ? lstm_train_program(c, r.precision) : lstm_fwd_program(c, r.precision);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Tensor> out = Executor(dev).run(prog, in);
  if (dev.kind == DeviceKind::cuda) cuda_synchronize(dev.index);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // The outputs of one run are one unit: no other run writes into --out meanwhile
  // (OutDirLock), run.json goes first and comes back last as the manifest naming this run's
  // files, and the arrays of an earlier run this one does not write (dx ... dw of a backward
  // run before a forward-only one) are removed rather than left to pass for this run's.
  OutDirLock lock(o.out_dir, "lstm");
  nlohmann::json files = write_arrays(o, out);
  nlohmann::json meta = {
      {"batch", c.batch}, {"seq", c.seq}, {"input_size", c.input}, {"hidden_size", c.hidden},
      {"num_layers", c.layers}, {"bidirectional", c.bidirectional}, {"precision", r.precision},
      {"backend", r.backend}, {"device", dev.str()}, {"backward", backward}, {"files", files},
      {"seconds", seconds}};
  // run.json (what ran, for provenance) is written atomically too.
  write_file_atomically((fs::path(o.out_dir) / "run.json").string(), meta.dump(2) + "\n");
  if (!o.quiet)
    std::cerr << "lstm: B=" << c.batch << " T=" << c.seq << " I=" << c.input << " H=" << c.hidden
              << " L=" << c.layers << (c.bidirectional ? " bidirectional" : "") << " on " << dev.str()
              << (backward ? ", forward+backward" : ", forward") << " in " << seconds * 1e3 << " ms; wrote "
              << out.size() << " arrays to " << o.out_dir << "\n";
}

}  // namespace tandem
