// A count on a perf tool's command line, read whole: its value, or nothing when the text is
// not an integer in [lo, hi]. "two", "5x", "" and out-of-range values are all refused, where
// std::atoi read 0 or 5; each tool then prints its own error with a hint and exits 4.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <optional>

namespace tandem {

inline std::optional<long long> count_arg(const char* text, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) return std::nullopt;
  return v;
}

}  // namespace tandem
