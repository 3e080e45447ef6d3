// RunProgress: the run's progress on stderr, a bar on a terminal, a line per suite in a log.
#include "runners/cli/run_progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace tandem {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string fixed(double v, int decimals) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(decimals) << v;
  return os.str();
}

constexpr int kBarWidth = 24;
constexpr const char* kClearLine = "\r\033[K";  // carriage return, erase to the end of the line

}  // namespace

bool stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) && !(term && std::strcmp(term, "dumb") == 0);
}

RunProgress::RunProgress(const std::vector<std::string>& slot_suites, bool verbose, bool terminal)
    : total_(slot_suites.size()), verbose_(verbose), terminal_(terminal), t0_(Clock::now()), last_event_(t0_) {
  for (const std::string& s : slot_suites) suites_[s].total++;
}

std::string RunProgress::suite_line(const std::string& name, const Suite& s) const {
  std::ostringstream os;
  os << name << ": " << s.total << " cases, " << s.passed << " passed, " << s.failed << " failed, " << s.skipped
     << " skipped, " << s.errors << " errors (" << fixed(seconds_since(s.start), 1) << " s)";
  return os.str();
}

std::string RunProgress::bar_line(const std::string& name, const Suite& s) const {
  const double el = seconds_since(s.start);
  const int filled = int(kBarWidth * double(s.done) / double(s.total));
  std::ostringstream os;
  os << name << " [" << std::string(filled, '#') << std::string(kBarWidth - filled, '.') << "] " << s.done << "/"
     << s.total << "  " << fixed(el, 0) << " s";
  if (s.done > 0 && s.done < s.total) os << ", ETA " << fixed(el / double(s.done) * double(s.total - s.done), 0) << " s";
  if (s.failed + s.errors > 0) os << "  (" << s.failed + s.errors << " failing)";
  os << "  [run " << done_ << "/" << total_ << "]";
  return os.str();
}

// The per-case line (verbose), and a failing case's line with its message (always).
void RunProgress::case_line(const nlohmann::json& rec) const {
  const std::string verdict = rec["verdict"].get<std::string>();
  std::cerr << "[" << done_ << "/" << total_ << " " << fixed(seconds_since(t0_), 1) << "s] "
            << rec["case"].get<std::string>() << " " << verdict;
  if (rec.contains("timing")) std::cerr << " " << std::setprecision(3) << rec["timing"]["median"].get<double>() * 1e3 << " ms";
  if (rec.contains("multi_rank") && rec["multi_rank"].contains("slowest_rank"))
    std::cerr << " (max over " << rec["params"]["ranks"] << " ranks; slowest: rank " << rec["multi_rank"]["slowest_rank"]
              << ")";
  std::cerr << "\n";
  if (verdict == "fail" || verdict == "error") std::cerr << rec["message"].get<std::string>() << "\n";
}

void RunProgress::on_record(const nlohmann::json& rec) {
  ++done_;
  const std::string name = rec.value("suite", std::string("?"));
  Suite& s = suites_[name];
  if (!s.started) s.start = last_event_, s.started = true;  // its first case began as the one before ended
  if (s.total == 0) s.total = 1;  // a record of a suite not announced (should not happen): count it
  s.done++;
  const std::string verdict = rec["verdict"].get<std::string>();
  (verdict == "pass" ? s.passed : verdict == "fail" ? s.failed : verdict == "skip" ? s.skipped : s.errors)++;
  const bool failing = verdict == "fail" || verdict == "error";
  if (terminal_ && bar_shown_ && (verbose_ || failing)) std::cerr << kClearLine;
  if (verbose_ || failing) case_line(rec);
  if (s.done == s.total) {
    if (terminal_) std::cerr << kClearLine;
    std::cerr << suite_line(name, s) << "\n";
    bar_shown_ = false;
  } else if (terminal_) {
    std::cerr << kClearLine << bar_line(name, s) << std::flush;
    bar_shown_ = true;
  }
  last_event_ = Clock::now();
}

}  // namespace tandem
