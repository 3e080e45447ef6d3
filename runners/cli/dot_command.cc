// `tandem dot --in DIR --out DIR`: one dot_general on the user's own lhs.npy and rhs.npy, with
// JAX's dimension numbers, a Precision or DotAlgorithm preset and preferred_element_type, on
// the CPU or CUDA engine; writes out.npy and run.json (docs/DOT_ALGORITHMS.md, "Your own
// data"). Every inconsistency — shapes that do not contract, an unknown or unsupported preset,
// CUDA without a GPU — is bad input (exit 4) with a hint, checked before anything runs.
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_info.h"
#include "engine/ir/builder.h"
#include "engine/ir/executor.h"
#include "engine/prims/dot_general.h"
#include "harness/atomic_file.h"
#include "harness/out_dir_lock.h"
#include "runners/cli/npy_io.h"
#include "runners/cli/option_checks.h"
#include "runners/cli/selection.h"

namespace tandem {
namespace fs = std::filesystem;
namespace {

struct DotRunOptions {
  std::string in_dir, out_dir;
  // The contracting axes as typed: an empty list ('') is a value, no axis contracted, as
  // JAX's empty dimension numbers (CLI11 reads '' as an integer 0, so they are parsed here).
  std::string lhs_contract_text, rhs_contract_text;
  std::vector<int64_t> lhs_batch, rhs_batch;
  bool contract_given = false;
  std::string precision, algorithm, preferred, lhs_dtype, rhs_dtype, f8_format, backend = "cpu";
  bool quiet = false;
};

const char* kDimsHint =
    "dimension numbers are JAX's: --lhs-contracting 1 --rhs-contracting 0 is a matrix product "
    "(the default); batch axes pair up with --lhs-batch/--rhs-batch, e.g. 0 and 0";

// A dtype named on the command line; only the floating types and i32 are data types here.
DType dtype_flag(const std::string& flag, const std::string& value) {
  std::optional<DType> d = parse_dtype(value);
  if (!d || *d == DType::pred)
    throw_bad_input(cat("dot: ", flag, " '", value, "' is not a dtype tandem computes in"),
                    "one of f32, bf16, f16, f64, i32");
  return *d;
}

// lhs.npy / rhs.npy in the file's dtype (f32, f64, f16 or i32), then, when --X-dtype asks,
// rounded (to nearest even) to that dtype: the way to give bf16, which NumPy cannot store.
Tensor load_operand(const DotRunOptions& o, const char* side, const std::string& as) {
  const std::string file = cat(side, ".npy");
  Tensor t = load_npy_tensor_of((fs::path(o.in_dir) / file).string(),
                                {DType::f32, DType::f64, DType::f16, DType::i32}, file);
  if (as.empty()) return t;
  DType d = dtype_flag(cat("--", side, "-dtype"), as);
  if (d == t.dtype()) return t;
  if (d == DType::i32 || t.dtype() == DType::i32)
    throw_bad_input(cat("dot: --", side, "-dtype ", as, " converts between integers and floats"),
                    cat("--", side, "-dtype rounds a floating file to a narrower or wider float; write ", file,
                        " in the dtype you want instead"));
  return Tensor::from_f64(t.to_f64(), t.shape(), d);
}

// The precision param: --precision (Precision or preset, as JAX's precision= takes both) or
// --algorithm (a preset only); DEFAULT when neither.
std::string precision_param(const DotRunOptions& o) {
  if (!o.precision.empty() && !o.algorithm.empty())
    throw_bad_input("dot: both --precision and --algorithm are given",
                    "pass one: --precision DEFAULT|HIGH|HIGHEST or --algorithm PRESET (tandem list --algorithms)");
  if (o.algorithm.empty()) return o.precision.empty() ? "DEFAULT" : o.precision;
  if (!parse_algorithm(o.algorithm))
    throw_bad_input(cat("dot: --algorithm '", o.algorithm, "' is not a DotAlgorithm preset"),
                    parse_precision(o.algorithm) ? cat("'", o.algorithm, "' is a Precision: pass --precision ", o.algorithm)
                                                 : std::string("tandem list --algorithms lists the presets"));
  return o.algorithm;
}

// "1,2" -> {1, 2}; "" -> {} (a dot with no contracting axis: the outer product of the free
// axes, with the batch axes if given).
std::vector<int64_t> parse_axes(const std::string& flag, const std::string& text) {
  std::vector<int64_t> axes;
  if (text.empty()) return axes;
  for (size_t at = 0;;) {
    const size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (item.find('-') != std::string::npos)
      throw_bad_input(cat("dot: ", flag, " value ", item, " is negative"), "give axes >= 0, e.g. 1 or 1,2");
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size())
      throw_bad_input(cat("dot: ", flag, " '", text, "' is not a list of axes"),
                      cat(kDimsHint, "; '' (empty) contracts no axis"));
    axes.push_back(v);
    if (comma == std::string::npos) return axes;
    at = comma + 1;
  }
}

// --f8-format FMT (both operands) or LHS,RHS: the operands' f8 dtypes under an ANY_F8 preset;
// dot_signature checks the same for the params, without the command line's hints.
std::optional<F8Operands> f8_operands(const std::string& text, const std::string& precision) {
  if (text.empty()) return std::nullopt;
  const std::optional<DotAlgorithm> alg = parse_algorithm(precision);
  if (!alg || !algorithm_info(*alg).f8_inputs)
    throw_bad_input(cat("dot: --f8-format ", text, " given with ", precision, ": f8 formats apply only to the ANY_F8 presets"),
                    "add --algorithm ANY_F8_ANY_F8_F32 (or another ANY_F8 preset), or drop --f8-format");
  const size_t comma = text.find(',');
  const std::string lhs = text.substr(0, comma), rhs = comma == std::string::npos ? lhs : text.substr(comma + 1);
  std::optional<F8Format> l = parse_f8_format(lhs), r = parse_f8_format(rhs);
  if (!l || !r)
    throw_bad_input(cat("dot: --f8-format '", text, "' is not FORMAT or LHS,RHS of ", f8_format_names()),
                    "e.g. --f8-format e5m2, or e4m3fn,e5m2 (lhs e4m3fn, rhs e5m2); default e4m3fn");
  return F8Operands{*l, *r};
}

nlohmann::json dims_json(const DotSignature& s) {
  return {{"lhs_contracting", s.lhs_contract}, {"rhs_contracting", s.rhs_contract},
          {"lhs_batch", s.lhs_batch}, {"rhs_batch", s.rhs_batch}};
}

void run_dot_on_files(const DotRunOptions& o) {
  DotDims dims{parse_axes("--lhs-contracting", o.lhs_contract_text),
               parse_axes("--rhs-contracting", o.rhs_contract_text), o.lhs_batch, o.rhs_batch};
  if (!fs::is_directory(o.in_dir))
    throw_bad_input(cat("dot: --in ", o.in_dir, " is not a directory"), "it must hold lhs.npy and rhs.npy");
  Tensor lhs = load_operand(o, "lhs", o.lhs_dtype), rhs = load_operand(o, "rhs", o.rhs_dtype);
  const Device dev = single_device("dot", o.backend);

  // Default dimension numbers: a matrix product (lhs's last axis with rhs's first).
  if (!o.contract_given) {
    if (lhs.rank() < 1 || rhs.rank() < 1) throw_bad_input("dot: a scalar operand has no axis to contract", kDimsHint);
    dims.lhs_contract = {lhs.rank() - 1};
    dims.rhs_contract = {0};
  }
  const std::string precision = precision_param(o);
  std::optional<DType> preferred;
  if (!o.preferred.empty()) preferred = dtype_flag("--preferred-element-type", o.preferred);
  const std::optional<F8Operands> f8 = f8_operands(o.f8_format, precision);
  const Params params = dot_general_params(dims, precision, preferred, f8);
  // The checks the primitive makes, made here first with the command line's hints: the
  // dimension numbers (and the precision name), then the algorithm on this backend.
  auto as_bad_input = [&](const Error& e, const std::string& extra_hint) {
    if (e.kind() != ErrorKind::bad_input && e.kind() != ErrorKind::unsupported) throw e;
    throw Error(ErrorKind::bad_input, cat(e.message(), " (lhs.npy [", shape_str(lhs.shape()), "] ",
                                          dtype_name(lhs.dtype()), ", rhs.npy [", shape_str(rhs.shape()), "] ",
                                          dtype_name(rhs.dtype()), ")"),
                e.hint().empty() ? extra_hint : cat(e.hint(), "; ", extra_hint));
  };
  DotSignature sig;
  DotAlgorithm alg = DotAlgorithm::DEFAULT;
  try {
    sig = dot_signature({lhs.type(), rhs.type()}, params);
  } catch (const Error& e) {
    as_bad_input(e, parse_precision(precision) || parse_algorithm(precision) ? kDimsHint : "--precision takes a Precision or a preset");
  }
  try {
    alg = resolve_dot_algorithm(sig.precision, sig.input_dtype, sig.out_dtype, dev.kind);
  } catch (const Error& e) {
    as_bad_input(e, cat("tandem list --algorithms shows what runs on ", o.backend));
  }

  Builder b;
  Value x = b.input(lhs.shape(), lhs.dtype()), y = b.input(rhs.shape(), rhs.dtype());
  Program prog = b.build({dot_general(x, y, dims, precision, preferred, f8)});
  const auto t0 = std::chrono::steady_clock::now();
  Tensor out = Executor(dev).run(prog, {lhs.to(dev), rhs.to(dev)})[0];
  if (dev.kind == DeviceKind::cuda) cuda_synchronize(dev.index);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out = out.to(Device::cpu());
  // NumPy has no bf16: a bf16 result is written as f32, which holds every bf16 value exactly.
  const DType file_dtype = out.dtype() == DType::bf16 ? DType::f32 : out.dtype();
  if (file_dtype != out.dtype()) out = Tensor::from_f64(out.to_f64(), out.shape(), file_dtype);

  // As `tandem lstm`: one run per --out at a time, run.json (the manifest) removed first and
  // written last, each file written atomically.
  OutDirLock lock(o.out_dir, "dot");
  std::error_code ec;
  fs::remove(fs::path(o.out_dir) / "run.json", ec);
  save_npy_tensor((fs::path(o.out_dir) / "out.npy").string(), out);
  nlohmann::json meta = {
      {"lhs_shape", lhs.shape()}, {"rhs_shape", rhs.shape()}, {"lhs_dtype", dtype_name(lhs.dtype())},
      {"rhs_dtype", dtype_name(rhs.dtype())}, {"dimension_numbers", dims_json(sig)},
      {"precision", precision}, {"algorithm_run", algorithm_info(alg).name},
      {"f8_formats", algorithm_info(alg).f8_inputs ? nlohmann::json{{"lhs", f8_info(sig.f8.lhs).name},
                                                                     {"rhs", f8_info(sig.f8.rhs).name}}
                                                   : nlohmann::json()},
      {"preferred_element_type", preferred ? nlohmann::json(dtype_name(*preferred)) : nlohmann::json()},
      {"out_shape", out.shape()}, {"out_dtype", dtype_name(sig.out_dtype)},
      {"out_file_dtype", dtype_name(file_dtype)}, {"backend", o.backend}, {"device", dev.str()},
      {"files", {"out.npy"}}, {"seconds", seconds}};
  write_file_atomically((fs::path(o.out_dir) / "run.json").string(), meta.dump(2) + "\n");
  if (!o.quiet)
    std::cerr << "dot: [" << shape_str(lhs.shape()) << "] " << dtype_name(lhs.dtype()) << " x ["
              << shape_str(rhs.shape()) << "] " << dtype_name(rhs.dtype()) << " -> [" << shape_str(out.shape())
              << "] " << dtype_name(sig.out_dtype) << " with " << algorithm_info(alg).name << " on " << dev.str()
              << " in " << seconds * 1e3 << " ms; wrote " << o.out_dir << "/out.npy\n";
}

}  // namespace

void add_dot_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<DotRunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dot", "run one dot_general on lhs.npy and rhs.npy under a Precision or DotAlgorithm preset and "
             "write out.npy (docs/DOT_ALGORITHMS.md)");
  cmd->add_option("--in", o->in_dir, "directory with lhs.npy and rhs.npy (float32, float64, float16 or int32)")
      ->required();
  cmd->add_option("--out", o->out_dir, "directory for out.npy and run.json")->required();
  auto* lc = cmd->add_option("--lhs-contracting", o->lhs_contract_text,
                             "lhs contracting axes, e.g. 1 or 1,2; '' for none (default: last)")
                 ->check(empty_is_a_value());
  auto* rc = cmd->add_option("--rhs-contracting", o->rhs_contract_text, "rhs contracting axes; '' for none (default: 0)")
                 ->check(empty_is_a_value());
  lc->needs(rc);
  rc->needs(lc);
  cmd->add_option("--lhs-batch", o->lhs_batch, "lhs batch axes, e.g. 0 (default: none)")->delimiter(',');
  cmd->add_option("--rhs-batch", o->rhs_batch, "rhs batch axes (default: none)")->delimiter(',');
  cmd->add_option("--precision", o->precision, "DEFAULT (default), HIGH, HIGHEST, or a preset name as JAX accepts");
  cmd->add_option("--algorithm", o->algorithm, "a DotAlgorithm preset, e.g. BF16_BF16_F32_X3 (tandem list --algorithms)");
  cmd->add_option("--preferred-element-type", o->preferred, "result dtype: f32, bf16, f16, f64 or i32 "
                  "(default: the promoted input dtype)");
  cmd->add_option("--lhs-dtype", o->lhs_dtype, "round lhs to this dtype on load (bf16, f16, f32, f64); "
                  "bf16 is given this way, as f32 values");
  cmd->add_option("--rhs-dtype", o->rhs_dtype, "round rhs to this dtype on load");
  cmd->add_option("--f8-format", o->f8_format, "under an ANY_F8 preset, the operands' f8 format: e4m3fn "
                  "(default) or e5m2, for both, or LHS,RHS, e.g. e4m3fn,e5m2 (rounded to nearest even, as ml_dtypes)");
  cmd->add_option("--backend", o->backend, "cpu (default) or cuda");
  cmd->add_flag("-q,--quiet", o->quiet, "no summary on stderr");
  cmd->callback([o, lc, &exit_code] {
    o->contract_given = lc->count() > 0;
    run_dot_on_files(*o);
    exit_code = exit_code::pass;
  });
}

}  // namespace tandem
