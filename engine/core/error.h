// Errors raised inside the engine: a message, a hint on how to fix it, and a kind that the
// harness boundary maps to verdicts and exit codes (harness/error_outcome.h, one table).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tandem {

// bad_input: the user's input is wrong. unsupported: this build, backend or device lacks the
// feature (a skip). internal: what the engine stands on failed (a library call, the OS, memory,
// a file): infrastructure. invariant: the engine found its own result or state inconsistent on
// valid input (TANDEM_CHECK, a pass's ill-typed output): a wrong value, a correctness failure.
enum class ErrorKind { bad_input, unsupported, internal, invariant };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, std::string hint = {})
      : std::runtime_error(message + (hint.empty() ? "" : "\n  hint: " + hint)),
        kind_(kind), message_(std::move(message)), hint_(std::move(hint)) {}
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }

 private:
  ErrorKind kind_;
  std::string message_, hint_;
};

// Builds a message from stream pieces: throw_bad_input(cat("rank ", r, " out of range")).
template <class... A>
std::string cat(const A&... a) {
  std::ostringstream os;
  (os << ... << a);
  return os.str();
}

[[noreturn]] inline void throw_bad_input(std::string msg, std::string hint = {}) {
  throw Error(ErrorKind::bad_input, std::move(msg), std::move(hint));
}
[[noreturn]] inline void throw_unsupported(std::string msg, std::string hint = {}) {
  throw Error(ErrorKind::unsupported, std::move(msg), std::move(hint));
}

// Internal invariant check: prints the expression and file:line, never used for user input.
// A failure is the engine's own wrong result (ErrorKind::invariant), not the machine's.
#define TANDEM_CHECK(cond, ...)                                                          \
  do {                                                                                   \
    if (!(cond))                                                                         \
      throw ::tandem::Error(::tandem::ErrorKind::invariant,                              \
                            ::tandem::cat("check failed: " #cond " at " __FILE__ ":",    \
                                          __LINE__, " ", ##__VA_ARGS__));                \
  } while (0)

}  // namespace tandem
