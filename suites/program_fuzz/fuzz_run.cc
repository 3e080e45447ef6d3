// The fuzz run: one case as a record (fuzz_one), the tally of the records with the summary it
// prints and writes, and the in-process loop. `tandem fuzz` runs fuzz_one in case workers so a
// crash in a case is a failing record naming its seed (runners/cli/fuzz_command.cc).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>

#include "engine/core/error.h"
#include "harness/atomic_file.h"
#include "suites/program_fuzz/fuzz_case_json.h"
#include "suites/program_fuzz/fuzz_driver.h"
#include "suites/program_fuzz/fuzz_shrink.h"
#include "suites/program_fuzz/gen_rows.h"

namespace tandem::fuzz {
namespace {
using nlohmann::json;

// A message's first line with its numbers and shapes made generic, so refusals group by kind.
std::string first_line(const std::string& s, size_t n = 120) {
  std::string r;
  bool in_number = false;
  for (char ch : s.substr(0, s.find('\n'))) {
    const bool digit = std::isdigit(static_cast<unsigned char>(ch)) || (in_number && (ch == ',' || ch == '-'));
    if (digit && !in_number) r += 'N';
    in_number = digit;
    if (!digit) r += ch;
  }
  return r.size() > n ? r.substr(0, n) + "…" : r;
}

void count_primitives(const Program& p, std::map<std::string, int64_t>& counts) {
  for (const Eqn& e : p.eqns) {
    ++counts[e.prim->name];
    for (const auto& [key, value] : e.params.items())
      if (auto* sub = std::get_if<ProgramPtr>(&value)) count_primitives(**sub, counts);
  }
}

std::string case_file(const FuzzRunOptions& o, uint64_t seed) {
  return (std::filesystem::path(o.out_dir) / ("case-" + std::to_string(seed) + ".json")).string();
}

// A failing case: shrunk, written, and described in the record and its log lines.
void record_failure(const FuzzRunOptions& o, int64_t i, const FuzzCase& c, json& rec) {
  const FuzzCase small = shrink(c, [&](const FuzzCase& k) { return failed(check_case(k)); }, o.shrink_budget);
  const CaseResult again = check_case(small);
  const std::string what = cat(outcome_name(again.outcome), ": ", again.message);
  std::string log = cat("fuzz: case ", i, " (seed ", c.seed, ", chain ", chain_name(c.chain.kind), ", ",
                        c.program.eqns.size(), " equations, shrunk to ", small.program.eqns.size(), "): ", what, "\n");
  json f = {{"index", i}, {"seed", c.seed}, {"chain", chain_name(c.chain.kind)}, {"what", what},
            {"equations", c.program.eqns.size()}, {"shrunk_equations", small.program.eqns.size()}};
  if (!o.out_dir.empty()) {
    write_file_atomically(case_file(o, small.seed), case_with_results(small, what).dump(1) + "\n");
    f["file"] = case_file(o, small.seed);
    log += cat("  written: ", case_file(o, small.seed), " (tandem fuzz --replay FILE)\n");
  }
  rec["failure"] = f;
  rec["log"] = log;
}

// A failure no case file can hold (the generator refused, an exception, a crash).
json failure_record(const FuzzRunOptions& o, int64_t i, const std::string& outcome, const std::string& what) {
  const uint64_t seed = program_seed(o.seed, uint64_t(i));
  return {{"index", i}, {"seed", seed}, {"outcome", outcome},
          {"failure", {{"index", i}, {"seed", seed}, {"what", what}}},
          {"log", cat("fuzz: case ", i, " (seed ", seed, "): ", outcome, ": ", what, "\n  reproduce: tandem fuzz --seed ",
                      o.seed, " --case-seed ", seed, "\n")}};
}

json checked_record(const FuzzRunOptions& o, int64_t i) {
  FuzzCase c;
  try {
    c = generate_case(program_seed(o.seed, uint64_t(i)), o.fuzz);
  } catch (const std::exception& e) {
    // The generator makes only what the engine takes (its tables decide): a shape rule or a
    // pass refusing one of its programs is the engine refusing a valid program.
    return failure_record(o, i, "generator_refused", cat("the engine refused a generated program: ", e.what()));
  }
  const CaseResult r = check_case(c);
  json rec = {{"index", i}, {"seed", c.seed}, {"chain", chain_name(c.chain.kind)}, {"outcome", outcome_name(r.outcome)},
              {"primitives", json::object()}, {"hoist_rewrites", r.hoist_rewrites}, {"checked", r.verdict.checked},
              {"unstable", r.verdict.unstable}};
  if (std::isfinite(r.verdict.worst)) rec["worst"] = r.verdict.worst;
  std::map<std::string, int64_t> prims;
  count_primitives(c.program, prims);
  rec["primitives"] = prims;
  if (r.outcome == Outcome::reference_refused || r.outcome == Outcome::unsupported)
    rec["refusal"] = std::string(outcome_name(r.outcome)) + ": " + first_line(r.message);
  if (r.outcome == Outcome::agree && o.sample_every > 0 && i % o.sample_every == 0 && !o.out_dir.empty())
    write_file_atomically((std::filesystem::path(o.out_dir) / ("sample-" + std::to_string(c.seed) + ".json")).string(),
                          case_with_results(c, "agree").dump(1) + "\n");
  if (failed(r)) record_failure(o, i, c, rec);
  return rec;
}

}  // namespace

json fuzz_one(const FuzzRunOptions& o, int64_t i) {
  try {
    return checked_record(o, i);
  } catch (const std::exception& e) {  // an engine exception outside check_case (the shrinker's)
    return failure_record(o, i, "engine_error", e.what());
  }
}

json crashed_case(const FuzzRunOptions& o, int64_t i, const std::string& why) {
  return failure_record(o, i, "engine_crash", why + "; the run went on with the next case in a new process");
}

struct FuzzTally::Impl {
  FuzzRunOptions o;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::map<std::string, std::map<std::string, int64_t>> by_chain;  // chain -> outcome -> count
  std::map<std::string, int64_t> primitives, refusals;
  int64_t cases = 0, hoist_rewrites = 0, checked = 0, unstable = 0;
  double worst = 0;
  json failures = json::array();
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
};

FuzzTally::FuzzTally(const FuzzRunOptions& o) : impl_(std::make_unique<Impl>()) {
  impl_->o = o;
  if (!o.out_dir.empty()) std::filesystem::create_directories(o.out_dir);
}
FuzzTally::~FuzzTally() = default;

void FuzzTally::add(const json& rec, std::ostream& log) {
  Impl& t = *impl_;
  ++t.cases;
  ++t.by_chain[rec.value("chain", std::string("(not generated)"))][rec["outcome"].get<std::string>()];
  const json prims = rec.value("primitives", json::object());  // a named copy: items() of a temporary dangles
  for (const auto& [name, n] : prims.items()) t.primitives[name] += n.get<int64_t>();
  t.hoist_rewrites += rec.value("hoist_rewrites", int64_t(0));
  t.checked += rec.value("checked", int64_t(0));
  t.unstable += rec.value("unstable", int64_t(0));
  if (rec["outcome"] == "agree") t.worst = std::max(t.worst, rec.value("worst", 0.0));
  if (rec.contains("refusal")) ++t.refusals[rec["refusal"].get<std::string>()];
  if (rec.contains("failure")) t.failures.push_back(rec["failure"]);
  if (rec.contains("log")) log << rec["log"].get<std::string>() << std::flush;
}

bool FuzzTally::should_stop() const {
  return int(impl_->failures.size()) >= impl_->o.max_failures || (impl_->o.seconds > 0 && impl_->elapsed() >= impl_->o.seconds);
}

int FuzzTally::finish(std::ostream& log) {
  const Impl& t = *impl_;
  json never = json::array();
  for (const auto& [name, row] : gen_table().rows)
    if (!t.primitives.count(name)) never.push_back(name);
  const json summary = {{"seed", t.o.seed}, {"cases", t.cases}, {"seconds", t.elapsed()}, {"by_chain", t.by_chain},
                        {"primitives", t.primitives}, {"never_generated", never},
                        {"not_generated", gen_table().not_generated}, {"refusals", t.refusals},
                        {"hoist_rewrites", t.hoist_rewrites}, {"elements_checked", t.checked},
                        {"elements_unstable", t.unstable}, {"worst_error_over_tolerance", t.worst}, {"failures", t.failures}};
  if (!t.o.out_dir.empty())
    write_file_atomically((std::filesystem::path(t.o.out_dir) / "fuzz_summary.json").string(), summary.dump(1) + "\n");
  log << "fuzz: " << t.cases << " cases in " << summary["seconds"].get<double>() << " s (seed " << t.o.seed << "):";
  for (const auto& [chain, outcomes] : t.by_chain) {
    log << " " << chain << " [";
    bool first = true;
    for (const auto& [name, n] : outcomes) log << (first ? "" : " ") << name << " " << n, first = false;
    log << "]";
  }
  log << "\n  hoist rewrites " << t.hoist_rewrites << ", elements checked " << t.checked << " (unstable, skipped: "
      << t.unstable << "), worst |error|/tolerance of an agreeing case " << t.worst << "\n";
  if (!never.empty()) log << "  never generated this run: " << never.dump() << "\n";
  for (const auto& [what, n] : t.refusals) log << "  refused " << n << "x: " << what << "\n";
  log << "total: " << t.cases << " cases, " << t.failures.size() << " failed\n";
  if (t.cases == 0) {
    // A run that checked nothing proves nothing: inconclusive, not a pass.
    log << "error: no case was checked (--seconds ran out first)\n";
    return 3;
  }
  return t.failures.empty() ? 0 : 1;
}

int run_fuzz(const FuzzRunOptions& o, std::ostream& log) {
  FuzzTally tally(o);
  for (int64_t i = 0; i < o.programs && !tally.should_stop(); ++i) tally.add(fuzz_one(o, i), log);
  return tally.finish(log);
}

}  // namespace tandem::fuzz
