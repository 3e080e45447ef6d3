// A user's regex over names (--filter on case names, --fault on fault names), matched with
// RE2 (issue 31 #9). std::regex backtracks: '(.*.*)*y' over the ~100-character case names
// hung `tandem list --filter` for minutes. RE2 runs in time linear in the name for every
// pattern; its syntax is std::regex's ECMAScript minus backreferences and lookaround.
#pragma once
#include <memory>
#include <string>

namespace re2 { class RE2; }

namespace tandem {

class NameFilter {
 public:
  // An empty pattern matches every name. An invalid one is bad input (exit 4) naming
  // `option`, with `example` in the hint.
  NameFilter(const std::string& pattern, const std::string& option, const std::string& example);
  ~NameFilter();
  NameFilter(const NameFilter&) = delete;
  NameFilter& operator=(const NameFilter&) = delete;
  // True when the pattern matches anywhere in `name` (std::regex_search's sense).
  bool matches(const std::string& name) const;

 private:
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace tandem
