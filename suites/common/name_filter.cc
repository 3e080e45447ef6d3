// NameFilter: RE2 behind a header that does not include it (see name_filter.h).
#include "suites/common/name_filter.h"

#include <re2/re2.h>

#include "engine/core/error.h"

namespace tandem {

NameFilter::NameFilter(const std::string& pattern, const std::string& option, const std::string& example) {
  RE2::Options opts;
  opts.set_log_errors(false);  // the error is ours to report, once, with a hint
  re_ = std::make_unique<RE2>(pattern, opts);
  if (!re_->ok())
    throw_bad_input(cat(option, " '", pattern, "' is not a valid regex: ", re_->error()),
                    cat("use RE2 syntax (no backreferences or lookaround), e.g. ", option, " '", example, "'"));
}

NameFilter::~NameFilter() = default;

bool NameFilter::matches(const std::string& name) const { return RE2::PartialMatch(name, *re_); }

}  // namespace tandem
