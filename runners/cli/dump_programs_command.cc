// `tandem dump-programs DIR`: for every selected Program case, what an outside oracle needs
// to judge it (tools/oracles/program_vs_jax.py evaluates them with JAX): per oracle item
// (harness/oracle_program.h) a folder DIR/<nnn>_<case>/<label>/ with program.json
// (engine/ir/program_json.h; each checked to read back to itself, program_json_read.h),
// meta.json (case, label, dtypes, wrt, vmap axes, what tandem ran), in_<i>.npy, ct_<j>.npy
// (output cotangents of a differentiating case), engine_<k>.npy (tandem's CPU results:
// outputs, then input cotangents) and, for a remat item, residuals.json (what tandem's vjp
// saved: type, bytes, source, argument, offloaded) and recompute.json (what its backward re-runs:
// eqns, by_prim). bf16 / f16 values are written as f32 and
// bool as i32, exactly; meta.json keeps the true dtypes. Cases that are not Programs (or
// cannot be built on the CPU) are listed in DIR/index.json with why; a case that fails to
// build or run is listed there as an error (exit 5), and the dump goes on.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "engine/ir/program_json.h"
#include "engine/ir/program_json_read.h"
#include "harness/atomic_file.h"
#include "harness/out_dir_lock.h"
#include "runners/cli/npy_io.h"
#include "runners/cli/selection.h"

namespace tandem {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string folder_name(size_t index, const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  char pre[16];
  std::snprintf(pre, sizeof pre, "%03zu_", index);
  return pre + r;
}

// .npy holds f32 / f64 / i32 (runners/cli/npy_io.h): narrower floats widen exactly to f32,
// bool to i32.
void save(const fs::path& path, const Tensor& t) {
  const DType d = t.dtype();
  if (d == DType::f32 || d == DType::f64 || d == DType::i32) return save_npy_tensor(path.string(), t);
  save_npy_tensor(path.string(), Tensor::from_f64(t.to_f64(), t.shape(), is_floating(d) ? DType::f32 : DType::i32));
}

json dtypes_of(const std::vector<Tensor>& ts) {
  json j = json::array();
  for (const Tensor& t : ts) j.push_back(std::string(dtype_name(t.dtype())));
  return j;
}

json axes_json(const std::vector<std::optional<int64_t>>& axes) {
  json j = json::array();
  for (const auto& a : axes) j.push_back(a ? json(*a) : json(nullptr));
  return j;
}

void write_item(const fs::path& dir, const std::string& case_name, const OracleProgram& o) {
  fs::create_directories(dir);
  const std::string program = program_to_json(o.program).dump();
  // What an exporter targets must be what tandem reads: each dumped program reads back to itself.
  TANDEM_CHECK(program_to_json(program_from_json(json::parse(program))).dump() == program,
               "program.json of ", case_name, " [", o.label, "] does not read back to the same JSON");
  write_file_atomically((dir / "program.json").string(), program + "\n");
  for (size_t i = 0; i < o.inputs.size(); ++i) save(dir / cat("in_", i, ".npy"), o.inputs[i]);
  for (size_t i = 0; i < o.output_cts.size(); ++i) save(dir / cat("ct_", i, ".npy"), o.output_cts[i]);
  for (size_t i = 0; i < o.engine.size(); ++i) save(dir / cat("engine_", i, ".npy"), o.engine[i]);
  json meta = {{"case", case_name}, {"label", o.label}, {"note", o.note},
               {"inputs", dtypes_of(o.inputs)}, {"output_cts", dtypes_of(o.output_cts)},
               {"engine", dtypes_of(o.engine)}, {"differentiate", !o.output_cts.empty()}};
  if (!o.output_cts.empty()) {
    json wrt = json::array();
    for (size_t i = 0; i < o.inputs.size(); ++i)
      wrt.push_back(o.wrt.empty() ? is_floating(o.inputs[i].dtype()) : bool(o.wrt.at(i)));
    meta["wrt"] = wrt;
  }
  if (o.vmap) meta["vmap"] = {{"in_axes", axes_json(o.vmap->in_axes)}, {"out_axes", axes_json(o.vmap->out_axes)},
                              {"size", o.vmap->size}};
  write_file_atomically((dir / "meta.json").string(), meta.dump(1) + "\n");
  if (o.residuals) {  // tandem's saved set, for tools/oracles/saved_residuals_vs_jax.py
    json res = json::array();
    for (const Residual& r : *o.residuals)
      res.push_back({{"type", r.type.str()}, {"bytes", r.bytes()}, {"source", r.source},
                     {"argument", r.is_argument}, {"offloaded", r.offloaded}});
    write_file_atomically((dir / "residuals.json").string(), res.dump(1) + "\n");
  }
  if (o.recompute)  // what its backward re-runs, for tools/oracles/recompute_vs_jax.py
    write_file_atomically((dir / "recompute.json").string(),
                          json({{"eqns", o.recompute->eqns}, {"by_prim", o.recompute->by_prim}}).dump(1) + "\n");
}

int dump(const Selection& sel, const std::string& out) {
  std::vector<const Case*> cases = selected_cases(sel);
  if (cases.empty())
    throw_bad_input("no case matches the selection", "`tandem list --profile " + sel.profile + "` shows the cases");
  if (const FaultInfo* f = injected_fault())
    std::cerr << "FAULT INJECTED: " << f->name << " (" << f->mimics << "): the dumped engine results carry it\n";
  OutDirLock lock(out, "dump-programs");  // no other writer in DIR meanwhile
  json index = json::array();
  size_t items = 0, n = 0, errors = 0;
  for (const Case* c : cases) {
    json entry = {{"case", c->name}};
    try {
      CaseInstance inst = c->instantiate(Device::cpu());
      if (!inst.oracle) {
        entry["skipped"] = "not a Program case (no oracle items)";
      } else {
        const std::string folder = folder_name(n++, c->name);
        entry["folder"] = folder;
        entry["items"] = json::array();
        for (const OracleProgram& o : inst.oracle()) {
          write_item(fs::path(out) / folder / o.label, c->name, o);
          entry["items"].push_back(o.label);
          ++items;
        }
      }
    } catch (const Error& e) {
      // A case tandem itself cannot build or run (a failed internal check, bad input) is
      // listed as an error and the dump goes on; the oracle reports it as a failure.
      if (e.kind() == ErrorKind::unsupported) {
        entry["skipped"] = cat("unsupported on the CPU: ", e.what());
      } else {
        entry["error"] = e.what();
        ++errors;
        std::cerr << "error in " << c->name << ": " << e.what() << "\n";
      }
    }
    index.push_back(entry);
  }
  write_file_atomically((fs::path(out) / "index.json").string(), index.dump(1) + "\n");
  std::cerr << "dumped " << items << " oracle items of " << n << " Program cases (" << cases.size()
            << " selected) under " << out << (errors ? cat(", ", errors, " cases in error") : "") << "\n";
  return errors ? exit_code::infrastructure_error : exit_code::pass;
}

}  // namespace

void add_dump_programs_command(CLI::App& app, int& exit_code) {
  auto sel = std::make_shared<Selection>();
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "dump-programs", "write the selected Program cases (program.json, inputs and tandem's CPU results as .npy) "
                       "for an outside oracle: tools/oracles/program_vs_jax.py DIR");
  add_selection_options(*cmd, *sel);
  cmd->add_option("dir", *out, "output directory")->required();
  cmd->callback([sel, out, &exit_code] { exit_code = dump(*sel, *out); });
}

}  // namespace tandem
