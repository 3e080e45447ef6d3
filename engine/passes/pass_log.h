// A pass's log: one note per rewrite it made or declined, with the reason of a decline as a
// stable tag (tests and suites match on it) plus a sentence for humans.
#pragma once
#include <string>
#include <vector>

namespace tandem {

struct PassNote {
  bool rewritten = false;
  std::string reason;  // decline tag, e.g. "non-reducible consumer"; empty for a rewrite
  std::string where;   // e.g. "scan#0 ys 1", or "scan#2/body: scan#0 ys 0" when nested
  std::string detail;  // what was moved, or why it could not be
  std::string str() const {
    return (rewritten ? "hoisted " : "declined [" + reason + "] ") + where + ": " + detail;
  }
};

inline std::vector<std::string> note_strings(const std::vector<PassNote>& notes) {
  std::vector<std::string> r;
  for (const PassNote& n : notes) r.push_back(n.str());
  return r;
}

}  // namespace tandem
