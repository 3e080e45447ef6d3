// `tandem faults`: each suite's power to catch real bugs, measured. For every fault of the
// registry (engine/core/faults.h) it runs the quick profile of the owning suite (or of every
// suite, --suites all) as a child `tandem check --inject FAULT`, the collectives suite under
// mpirun so groups, orders and permutations have ranks to go wrong on, and classifies the
// child: caught (exit 1, a correctness failure), escaped (exit 0) or crash (any other exit, a
// signal, the deadline). Each suite first runs clean, so a catch means the fault. Writes
// faults.json and faults.md under --out; exits 1 when a fault is not caught by its owner.
// Faults owned by "perf" (planted slowdowns) are left out: reports/gate_calibrate.py measures them.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "common/exit_codes.h"
#include "engine/core/error.h"
#include "engine/core/faults.h"
#include "harness/atomic_file.h"
#include "harness/case.h"
#include "harness/context.h"
#include "harness/out_dir_lock.h"
#include "runners/cli/commands.h"
#include "runners/cli/faults_child.h"
#include "runners/cli/option_checks.h"

namespace tandem {
namespace {

struct FaultsArgs {
  bool list = false;
  std::string only;            // regex on fault names
  std::string suites = "owner";
  std::string out = "results/faults";
  int ranks = 4;
  double timeout_s = 900;
};

std::vector<std::string> child_argv(const std::string& suite, const std::string& fault, const std::string& dir,
                                    const FaultsArgs& a) {
  std::vector<std::string> argv;
  if (suite == "collectives") {
#ifdef TANDEM_MPIEXEC
    argv = {TANDEM_MPIEXEC, "-np", std::to_string(a.ranks), "--oversubscribe"};
    if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
#else
    (void)a;  // without MPI the collectives suite is a stub: its cases run at world size 1
#endif
  }
  argv.push_back(self_executable());
  for (const std::string& s : {std::string("check"), std::string("--suite"), suite, std::string("--profile"),
                               std::string("quick"), std::string("--backend"), std::string("cpu"),
                               std::string("--quiet"), std::string("--out"), dir})
    argv.push_back(s);
  if (!fault.empty()) argv.insert(argv.end(), {"--inject", fault});
  return argv;
}

// The names of the failed cases a child recorded (rank 0's records.json).
std::vector<std::string> failed_cases(const std::string& dir) {
  std::ifstream f(dir + "/records.json");
  std::vector<std::string> names;
  if (!f) return names;
  nlohmann::json doc = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("records")) return names;
  for (const auto& r : doc["records"])
    if (r.value("verdict", "") == "fail") names.push_back(r.value("case", "?"));
  return names;
}

std::string verdict_of(const ChildResult& r) {
  if (r.timed_out) return "timeout";
  if (r.signal) return cat("crash (signal ", r.signal, ")");
  if (r.exit_code == exit_code::correctness_failure) return "caught";
  if (r.exit_code == exit_code::pass) return "escaped";
  return cat("crash (exit ", r.exit_code, ")");
}

// One child run as JSON: verdict, exit, seconds, the failed cases and the log.
nlohmann::json run_one(const std::string& suite, const std::string& fault, const FaultsArgs& a) {
  const std::string dir = cat(a.out, "/runs/", fault.empty() ? "clean" : fault, "/", suite);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ErrorKind::internal, "cannot create " + dir + ": " + ec.message(), "check --out is writable");
  std::filesystem::remove(dir + "/records.json", ec);  // a stale one would name old failures
  ChildResult r = run_child(child_argv(suite, fault, dir, a), dir + "/log.txt", a.timeout_s);
  std::vector<std::string> failed = failed_cases(dir);
  nlohmann::json j = {{"verdict", verdict_of(r)}, {"exit_code", r.exit_code}, {"seconds", r.seconds},
                      {"failed_count", failed.size()}, {"log", dir + "/log.txt"}};
  failed.resize(std::min<size_t>(failed.size(), 5));
  j["failed_cases"] = failed;
  if (r.signal) j["signal"] = r.signal;
  return j;
}

std::string markdown(const nlohmann::json& doc, const std::vector<std::string>& suites) {
  std::ostringstream os;
  os << "| fault | owner |";
  for (const auto& s : suites) os << " " << s << " |";
  os << " first case that caught it (owner) |\n|---|---|";
  for (size_t i = 0; i < suites.size(); ++i) os << "---|";
  os << "---|\n";
  for (const auto& f : doc["faults"]) {
    os << "| `" << f["name"].get<std::string>() << "` | " << f["suite"].get<std::string>() << " |";
    for (const auto& s : suites) os << " " << (f["runs"].contains(s) ? f["runs"][s]["verdict"].get<std::string>() : "-") << " |";
    const auto& own = f["runs"][f["suite"].get<std::string>()];
    std::string first = own["failed_cases"].empty() ? "-" : own["failed_cases"][0].get<std::string>();
    os << " " << first << " (" << own["failed_count"].get<size_t>() << " failed) |\n";
  }
  return os.str();
}

int list_faults() {
  for (const FaultInfo& f : fault_table()) std::cout << f.name << "\t" << f.suite << "\t" << f.mimics << "\n";
  return exit_code::pass;
}

int run_faults(const FaultsArgs& a) {
  if (a.list) return list_faults();
  std::vector<const FaultInfo*> faults;
  const auto matches = name_matcher(a.only, "--fault", "^lstm_");
  std::vector<std::string> suites;  // the owning suites, in table order
  for (const FaultInfo& f : fault_table()) {
    // A planted slowdown (the gate's calibration measures it) or crash (the case-worker test).
    if (std::string(f.suite) == "perf" || std::string(f.suite) == "crash") continue;
    if (std::find(suites.begin(), suites.end(), f.suite) == suites.end()) suites.push_back(f.suite);
    if (matches(f.name)) faults.push_back(&f);
  }
  if (faults.empty())
    throw_bad_input("no fault matches --fault '" + a.only + "'",
                    "`tandem faults --list` shows them; perf faults are measured by ci/gate_calibrate.py");
  std::set<std::string> needed;
  for (const FaultInfo* f : faults) needed.insert(f->suite);
  if (a.suites == "all") needed.insert(suites.begin(), suites.end());
  suites.erase(std::remove_if(suites.begin(), suites.end(), [&](const std::string& s) { return !needed.count(s); }),
               suites.end());

  for (const std::string& s : suites) {
    bool built = false;
    for (const Case& c : registry().cases()) built = built || c.suite == s;
    if (!built)
      throw_bad_input(cat("suite ", s, " has no cases in this build (collectives needs MPI)"),
                      "select the faults of the built suites with --fault (`tandem faults --list`)");
  }
  OutDirLock lock(a.out, "faults");  // its child runs lock their own folders under it
  nlohmann::json doc = run_context();
  doc["profile"] = "quick";
  doc["suites_mode"] = a.suites;
  doc["mpi_ranks_for_collectives"] = a.ranks;
  // Clean runs first: a suite that fails without a fault measures nothing.
  for (const std::string& s : suites) {
    nlohmann::json clean = run_one(s, "", a);
    std::cerr << "clean " << s << ": exit " << clean["exit_code"] << " in " << clean["seconds"].get<double>() << " s\n";
    doc["clean"][s] = clean;
    if (clean["verdict"] != "escaped")
      throw Error(ErrorKind::internal, cat("suite ", s, " does not pass without a fault (", clean["verdict"].get<std::string>(), ")"),
                  "see " + clean["log"].get<std::string>() + "; fix the suite before measuring faults");
  }
  int caught = 0, i = 0;
  std::vector<std::string> missed;
  for (const FaultInfo* f : faults) {
    nlohmann::json fj = {{"name", f->name}, {"suite", f->suite}, {"mimics", f->mimics}};
    for (const std::string& s : suites) {
      if (a.suites != "all" && s != f->suite) continue;
      fj["runs"][s] = run_one(s, f->name, a);
      std::cerr << "[" << i + 1 << "/" << faults.size() << "] " << f->name << " × " << s << ": "
                << fj["runs"][s]["verdict"].get<std::string>() << " (" << fj["runs"][s]["seconds"].get<double>() << " s)\n";
    }
    if (fj["runs"][f->suite]["verdict"] == "caught") ++caught;
    else missed.push_back(cat(f->name, " (", fj["runs"][f->suite]["verdict"].get<std::string>(), ")"));
    doc["faults"].push_back(fj);
    ++i;
  }
  doc["caught_by_owner"] = caught;
  doc["total"] = faults.size();
  doc["catch_rate"] = double(caught) / double(faults.size());
  doc["not_caught_by_owner"] = missed;
  doc.update(run_end_context());
  write_file_atomically(a.out + "/faults.json", doc.dump(1) + "\n");
  std::string md = markdown(doc, suites);
  write_file_atomically(a.out + "/faults.md", md);
  std::cout << md << "\n" << caught << " of " << faults.size() << " faults caught by their owning suite\n";
  for (const std::string& m : missed) std::cout << "NOT CAUGHT: " << m << "\n";
  std::cerr << "results: " << a.out << "/faults.json  " << a.out << "/faults.md\n";
  return missed.empty() ? exit_code::pass : exit_code::correctness_failure;
}

}  // namespace

void add_faults_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<FaultsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "faults", "inject each engine fault and check that the suites catch it (exit 1 if one escapes its owner)");
  cmd->add_flag("--list", a->list, "list the faults: name, owning suite, the bug it mimics");
  cmd->add_option("--fault", a->only, "regex on fault names (default: every fault)");
  cmd->add_option("--suites", a->suites, "owner: each fault against its owning suite; all: against every suite")
      ->capture_default_str()
      ->check(one_of({"owner", "all"}));
  cmd->add_option("--out,-o", a->out, "directory for faults.json, faults.md and the runs")->capture_default_str();
  cmd->add_option("--ranks", a->ranks, "MPI ranks for the collectives suite (default 4)")
      ->check(in_range(1, 64, "--ranks is the mpirun world size for collectives, e.g. 4"));
  cmd->add_option("--timeout", a->timeout_s, "seconds per child before it is killed (default 900)")
      ->check(in_range(1, 86400, "--timeout is seconds per child run, e.g. 600"));
  cmd->callback([a, &exit_code] { exit_code = run_faults(*a); });
}

}  // namespace tandem
