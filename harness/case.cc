// Case registry implementation.
#include "harness/case.h"

#include <re2/re2.h>

#include "engine/core/error.h"

namespace tandem {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::skip: return "skip";
    case Verdict::error: return "error";
  }
  return "?";
}

void Registry::add(Case c) {
  for (const Case& o : cases_) TANDEM_CHECK(o.name != c.name, "case registered twice: ", c.name);
  cases_.push_back(std::move(c));
}

std::vector<const Case*> Registry::select(const std::string& profile, const std::string& suite,
                                          const std::string& name_regex) const {
  const auto matches = name_matcher(name_regex, "--filter", "dot/.*F32");
  require_filled();
  std::vector<const Case*> r;
  for (const Case& c : cases_)
    if (c.profiles.count(profile) && (suite.empty() || c.suite == suite) && matches(c.name)) r.push_back(&c);
  return r;
}

std::function<bool(const std::string&)> name_matcher(const std::string& pattern, const std::string& option,
                                                      const std::string& example) {
  RE2::Options opts;
  opts.set_log_errors(false);  // reported once, below, with a hint
  auto re = std::make_shared<const RE2>(pattern, opts);
  if (!re->ok())
    throw_bad_input(cat(option, " '", pattern, "' is not a valid regex: ", re->error()),
                    cat("use RE2 syntax (no backreferences or lookaround), e.g. ", option, " '", example, "'"));
  return [re](const std::string& name) { return RE2::PartialMatch(name, *re); };
}

Registry& registry() {
  static Registry r;  // filled by register_all_suites() (suites/register_suites.h)
  return r;
}

void Registry::require_filled() const {
  if (cases_.empty())
    throw Error(ErrorKind::internal, "the case registry is empty: register_all_suites() was not called",
                "call tandem::register_all_suites() (suites/register_suites.h) once from main(); "
                "tandem_add_test's main for tandem_suites tests (tandem_suites_test_main) does");
}

bool is_known_profile(const std::string& p) { return p == "quick" || p == "nightly"; }

// Two profiles: a third ("full") selected exactly the nightly cases and was removed rather
// than kept as a name that promised more than it ran.
std::set<std::string> profiles_from(const std::string& narrowest) {
  if (narrowest == "quick") return {"quick", "nightly"};
  if (narrowest == "nightly") return {"nightly"};
  throw Error(ErrorKind::internal, "unknown profile '" + narrowest + "' in a case registration",
              "profiles are quick and nightly (harness/case.h)");
}

}  // namespace tandem
