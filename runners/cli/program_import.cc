// Reading a user's program and its companions into an ImportedProgram (program_import.h).
#include "runners/cli/program_import.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>

#include "engine/core/error.h"
#include "engine/ir/program_json_read.h"
#include "engine/ir/remat_policy.h"
#include "runners/cli/npy_io.h"
#include "runners/cli/option_checks.h"
#include "suites/program_fuzz/program_check.h"

namespace tandem {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

std::string joined_names(const std::vector<std::string>& names) {
  std::string r;
  for (const std::string& n : names) r += (r.empty() ? "" : ", ") + n;
  return r;
}

constexpr const char* kExportHint =
    "tools/import/export_jax_program.py writes such a directory from a JAX function (docs/IMPORT.md)";

json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw_bad_input(cat("cannot read ", path.string()), kExportHint);
  try {
    json j = json::parse(in);
    check_json_depth(j, path.string());
    return j;
  } catch (const json::exception& e) {
    throw_bad_input(cat(path.string(), ": not JSON: ", e.what()), kExportHint);
  }
}

// What a message quotes of a companion's value: its first characters, never all of it.
std::string quoted(const json& j) {
  std::string s = j.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// An .npy file as a tensor of `want`'s type: the file's dtype may differ (bool and bf16 have
// no dtype tandem's npy reader takes) when every value converts exactly.
Tensor load_as(const fs::path& path, const AType& want, const std::string& what) {
  const Tensor t = load_npy_tensor_of(path.string(), {DType::f32, DType::f64, DType::f16, DType::i32}, what);
  if (t.shape() != want.shape)
    throw_bad_input(cat(what, " (", path.string(), ") has shape ", AType{t.shape(), t.dtype()}.str(), ", the program's is ",
                        want.str()), kExportHint);
  if (t.dtype() == want.dtype) return t;
  const std::vector<double> v = t.to_f64();
  const Tensor converted = Tensor::from_f64(v, want.shape, want.dtype);
  if (converted.to_f64() != v)
    throw_bad_input(cat(what, " (", path.string(), ") is ", dtype_name(t.dtype()), " with values ", dtype_name(want.dtype),
                        " cannot hold exactly"), cat("save it as ", dtype_name(want.dtype), " values"));
  return converted;
}

std::vector<Tensor> load_all(const fs::path& dir, const std::string& stem, const std::vector<AType>& types,
                             const std::string& what) {
  std::vector<Tensor> r;
  for (size_t i = 0; i < types.size(); ++i) {
    const fs::path f = dir / cat(stem, i, ".npy");
    if (!fs::exists(f))
      throw_bad_input(cat(dir.string(), " has no ", f.filename().string(), ": the program has ", types.size(), " ", what, "s"),
                      kExportHint);
    r.push_back(load_as(f, types[i], cat(what, " ", i)));
  }
  if (fs::exists(dir / cat(stem, types.size(), ".npy")))
    throw_bad_input(cat(dir.string(), " has more ", what, "s than the program's ", types.size()), kExportHint);
  return r;
}

std::vector<std::optional<int64_t>> parse_axes(const json& j, const std::string& where) {
  std::vector<std::optional<int64_t>> r;
  if (!j.is_array()) throw_bad_input(cat(where, ": in_axes is a list (an int or null per input)"), kExportHint);
  for (const json& a : j) {
    if (a.is_null()) r.push_back(std::nullopt);
    else if (a.is_number_integer()) r.push_back(a.get<int64_t>());
    else throw_bad_input(cat(where, ": an in_axes entry is an int or null, got ", quoted(a)), kExportHint);
  }
  return r;
}

std::vector<std::optional<int64_t>> parse_axes_option(const std::string& s) {
  std::vector<std::optional<int64_t>> r;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (item == "none") { r.push_back(std::nullopt); continue; }
    try {
      size_t used = 0;
      r.push_back(std::stoll(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw_bad_input(cat("--vmap-in-axes: '", item, "' is not an axis"), "one integer or `none` per input, e.g. 0,none,1");
    }
  }
  return r;
}

// A residual's type as saved_residuals.json writes it: "f32[8,16]", "f32<host>[8]", "f32[]".
bool is_residual_type(const std::string& t) {
  static const std::regex form(R"(([a-z0-9]+)(<host>)?\[(\d+(,\d+)*)?\])");
  std::smatch m;
  return std::regex_match(t, m, form) && parse_dtype(m[1].str()).has_value();
}

std::map<std::string, std::vector<std::string>> parse_residuals(const json& j, const fs::path& path) {
  std::map<std::string, std::vector<std::string>> r;
  if (!j.is_object()) throw_bad_input(cat(path.string(), ": an object of policy -> residual types"), kExportHint);
  for (const auto& [policy, types] : j.items()) {
    if (policy != "as_written") {  // the vjp of f itself; any other key is a policy string
      try {
        policy_from_string(policy);
      } catch (const Error& e) {
        throw_bad_input(cat(path.string(), ": key '", policy.substr(0, 60), "' is not a policy: ", e.message()), kExportHint);
      }
    }
    if (!types.is_array()) throw_bad_input(cat(path.string(), ": '", policy, "' maps to a list of types"), kExportHint);
    for (const json& t : types)
      if (!t.is_string() || !is_residual_type(t.get<std::string>()))
        throw_bad_input(cat(path.string(), ": '", policy, "' lists ", quoted(t), ", not a type like \"f32[8,16]\""), kExportHint);
    r[policy] = types.get<std::vector<std::string>>();
  }
  return r;
}

// export.json's "vmap": {"in_axes": [...], "size": N}, into p; null: the function is not vmapped.
void parse_vmap(const json& v, const fs::path& path, ImportedProgram& p) {
  if (v.is_null()) return;
  if (!v.is_object()) throw_bad_input(cat(path.string(), ": \"vmap\" is an object {\"in_axes\": [...], \"size\": N}, got ", quoted(v)), kExportHint);
  p.vmap_in_axes = parse_axes(v.contains("in_axes") ? v["in_axes"] : json(), path.string());
  if (!v.contains("size")) return;
  const json& n = v["size"];
  if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > kMaxVmapSize)
    throw_bad_input(cat(path.string(), ": vmap size ", quoted(n), " is not an integer in [1, ", kMaxVmapSize, "]"),
                    "the number of examples vmap batches, e.g. 8");
  p.vmap_size = n.get<int64_t>();
}

// Everything the cases will use, checked now: a bad companion is bad input at load (exit 4),
// never a case's crash, error or silent pass later. vmap axes are normalised (-1: the last).
void check_loaded(ImportedProgram& p) {
  if (!p.vmap_in_axes.empty() && p.vmap_in_axes.size() != p.program.in_vars.size())
    throw_bad_input(cat("vmap: ", p.vmap_in_axes.size(), " in_axes for a program of ", p.program.in_vars.size(), " inputs"),
                    "one axis per input, `none` for an input that is not mapped, e.g. --vmap-in-axes 0,none");
  for (size_t i = 0; i < p.vmap_in_axes.size(); ++i) {
    if (!p.vmap_in_axes[i]) continue;
    const int64_t rank = int64_t(p.program.in_vars[i]->type.shape.size()), a = *p.vmap_in_axes[i];
    if (a < -(rank + 1) || a > rank)
      throw_bad_input(cat("vmap: in_axes[", i, "] is ", a, ", outside [", -(rank + 1), ", ", rank, "] for input ", i, " of rank ", rank),
                      "the axis of the batched input that vmap maps: 0 .. its rank (the unbatched input's rank)");
    p.vmap_in_axes[i] = a < 0 ? a + rank + 1 : a;
  }
  const std::vector<std::string> names = names_in(p.program);
  for (const std::string& policy : p.policies)
    for (const std::string& n : policy_from_string(policy).names)
      if (std::find(names.begin(), names.end(), n) == names.end())
        throw_bad_input(cat("--policy ", policy, ": the program names no value '", n, "'"),
                        names.empty() ? std::string("the program has no checkpoint_name values; use a policy without names")
                                      : cat("its checkpoint_name values: ", joined_names(names)));
}

// export.json's residuals_wrt (the indices of the inputs JAX's residuals were taken w.r.t.)
// as one flag per program input.
std::vector<bool> parse_wrt(const json& j, const Program& program, const fs::path& path) {
  std::vector<bool> wrt(program.in_vars.size(), false);
  if (!j.is_array()) throw_bad_input(cat(path.string(), ": residuals_wrt is not a list of input indices"), kExportHint);
  for (const json& i : j) {
    if (!i.is_number_integer() || i.get<int64_t>() < 0 || size_t(i.get<int64_t>()) >= wrt.size())
      throw_bad_input(cat(path.string(), ": residuals_wrt lists ", quoted(i), ", not an input of the ", wrt.size(), "-input program"), kExportHint);
    if (!is_floating(program.in_vars[size_t(i.get<int64_t>())]->type.dtype))
      throw_bad_input(cat(path.string(), ": residuals_wrt lists input ", i.dump(), ", which is not floating"), kExportHint);
    wrt[size_t(i.get<int64_t>())] = true;
  }
  return wrt;
}

// The cases' stem: the directory's or file's name, in the characters case names use.
std::string name_of(const fs::path& path) {
  const fs::path full = fs::absolute(path).lexically_normal();
  // A directory by its name ("dir/" too); a file by its stem, program.json by its directory's.
  fs::path named = fs::is_directory(path) ? (full.filename().empty() ? full.parent_path() : full) : full;
  if (!fs::is_directory(path) && full.filename() == "program.json") named = full.parent_path();
  std::string n = fs::is_directory(path) || named != full ? named.filename().string() : full.stem().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return n.empty() ? "program" : n;
}

}  // namespace

std::shared_ptr<ImportedProgram> load_imported_program(const ProgramSelection& s) {
  const fs::path path(s.path);
  if (!fs::exists(path)) throw_bad_input(cat("--program ", s.path, ": no such file or directory"), kExportHint);
  const bool dir = fs::is_directory(path);
  auto p = std::make_shared<ImportedProgram>();
  p->name = name_of(path);
  p->source = s.path;
  p->time_effects = s.time_effects;
  p->program = read_program_json((dir ? path / "program.json" : path).string());
  const fs::path inputs = !s.inputs.empty() ? fs::path(s.inputs) : dir ? path / "inputs" : fs::path();
  if (!s.inputs.empty() && !fs::is_directory(inputs))
    throw_bad_input(cat("--inputs ", s.inputs, ": not a directory"), "a directory of arg_0.npy, arg_1.npy, ...");
  if (!inputs.empty() && fs::is_directory(inputs)) p->inputs = load_all(inputs, "arg_", p->program.in_types(), "input");
  if (dir && fs::is_directory(path / "jax")) {
    p->jax_outputs = load_all(path / "jax", "out_", p->program.out_types(), "JAX output");
    if (p->inputs.empty() && !p->jax_outputs.empty())
      throw_bad_input(cat(s.path, " has JAX outputs but no inputs/ they were computed from"), kExportHint);
    if (fs::exists(path / "jax" / "saved_residuals.json"))
      p->jax_residuals = parse_residuals(read_json(path / "jax" / "saved_residuals.json"), path / "jax" / "saved_residuals.json");
  }
  if (dir && fs::exists(path / "export.json")) {
    const json e = read_json(path / "export.json");
    if (!e.is_object()) throw_bad_input(cat((path / "export.json").string(), ": not an object, got ", quoted(e)), kExportHint);
    if (e.contains("residuals_wrt")) p->wrt = parse_wrt(e["residuals_wrt"], p->program, path / "export.json");
    if (e.contains("vmap")) parse_vmap(e["vmap"], path / "export.json", *p);
  }
  if (!s.vmap_in_axes.empty()) p->vmap_in_axes = parse_axes_option(s.vmap_in_axes);
  if (s.vmap_size > 0) p->vmap_size = s.vmap_size;
  p->policies = s.policies;
  check_loaded(*p);
  return p;
}

void add_program_options(CLI::App& cmd, ProgramSelection& s) {
  auto* program = cmd.add_option("--program", s.path,
                                 "check your own program instead of the suites: a program.json, or the directory "
                                 "tools/import/export_jax_program.py wrote from a JAX function (docs/IMPORT.md)");
  cmd.add_option("--inputs", s.inputs, "with --program: a directory of arg_0.npy, arg_1.npy, ... (default PATH/inputs)")
      ->needs(program);
  cmd.add_option("--vmap-in-axes", s.vmap_in_axes, "with --program: the axis vmap maps per input, `none` for unmapped, e.g. 0,none")
      ->needs(program);
  cmd.add_option("--vmap-size", s.vmap_size, "with --program: the vmapped batch size (default 4 or export.json's)")
      ->needs(program)
      ->check(in_range(1, kMaxVmapSize, "--vmap-size is the number of examples vmap batches, e.g. 8"));
  cmd.add_option("--policy", s.policies, "with --program: a checkpoint policy to check (repeatable; default: JAX's four, "
                                         "and the name policies when the program names values)")
      ->needs(program);
}

std::vector<const Case*> imported_program_cases(const ProgramSelection& s, const std::string& filter) {
  static std::vector<Case> cases;  // read once: every Case* handed out stays valid
  static std::shared_ptr<ImportedProgram> program;
  if (!program || program->source != s.path) {
    program = load_imported_program(s);
    cases = program_check_cases(program);
  }
  std::vector<const Case*> r;
  const auto matches = name_matcher(filter.empty() ? ".*" : filter, "--filter", "vjp/policy:dots");
  for (const Case& c : cases)
    if (matches(c.name)) r.push_back(&c);
  if (!s.time_effects) program_check::plan_references(program, r);
  return r;
}

}  // namespace tandem
