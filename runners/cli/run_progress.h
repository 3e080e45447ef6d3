// What `tandem run` prints on stderr while its cases finish. On a terminal: one bar, rewritten
// in place, for the suite under way (its count, elapsed time and an ETA), closed by the suite's
// line when it ends. In a log (not a terminal): one line per suite when its last case ends and
// one per case that fails or errs, with its message — not a line per passing case. --verbose
// brings back a line per case (what the log printed before).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tandem {

class RunProgress {
 public:
  // slot_suites: the suite of each case slot the run will finish, in any order.
  RunProgress(const std::vector<std::string>& slot_suites, bool verbose, bool terminal);
  void on_record(const nlohmann::json& rec);  // after each finished case, in finishing order

 private:
  struct Suite {
    size_t total = 0, done = 0;
    int passed = 0, failed = 0, skipped = 0, errors = 0;
    std::chrono::steady_clock::time_point start;
    bool started = false;
  };
  std::string suite_line(const std::string& name, const Suite& s) const;
  std::string bar_line(const std::string& name, const Suite& s) const;
  void case_line(const nlohmann::json& rec) const;

  std::map<std::string, Suite> suites_;
  size_t done_ = 0, total_ = 0;
  bool verbose_, terminal_, bar_shown_ = false;
  std::chrono::steady_clock::time_point t0_, last_event_;
};

// Whether stderr is a terminal a bar can be redrawn on (not a pipe, file or TERM=dumb).
bool stderr_is_terminal();

}  // namespace tandem
