// Validation and agreement across ranks (see validate.h).
#include "engine/comm/validate.h"

#include <set>

#include "engine/comm/job.h"
#include "engine/comm/test_hooks.h"
#include "engine/core/error.h"

namespace tandem::comm {

std::string groups_str(const Groups& g) {
  if (g.empty()) return "all";
  std::string s = "[";
  for (size_t i = 0; i < g.size(); ++i) {
    s += i ? ",[" : "[";
    for (size_t j = 0; j < g[i].size(); ++j) {
      if (j) s += ",";
      s += std::to_string(g[i][j]);
    }
    s += "]";
  }
  return s + "]";
}

void check_groups(const Groups& groups, int n, bool equal_sizes, const char* op) {
  if (groups.empty()) return;
  const std::string hint = "axis_index_groups must cover 0.." + std::to_string(n - 1) +
                           " exactly once, e.g. [[0,1],[2,3]] for 4 ranks";
  std::set<int> seen;
  size_t count = 0;
  for (const auto& g : groups) {
    if (g.empty()) throw_bad_input(cat(op, ": axis_index_groups ", groups_str(groups), " has an empty group"), hint);
    if (equal_sizes && g.size() != groups[0].size())
      throw_bad_input(cat(op, ": axis_index_groups ", groups_str(groups), " must all be the same size"),
                      "only psum, pmax, pmin and pmean accept uneven groups");
    for (int r : g) {
      if (r < 0 || r >= n)
        throw_bad_input(cat(op, ": axis_index_groups ", groups_str(groups), " names index ", r,
                            " but the axis has size ", n), hint);
      seen.insert(r);
      ++count;
    }
  }
  if (count != size_t(n) || seen.size() != size_t(n))
    throw_bad_input(cat(op, ": axis_index_groups ", groups_str(groups), " must cover all indices exactly once"), hint);
}

void check_perm(const std::vector<std::pair<int, int>>& perm, int n) {
  std::set<int> srcs, dsts;
  for (auto [s, d] : perm) {
    if (s < 0 || s >= n || d < 0 || d >= n)
      throw_bad_input(cat("ppermute: pair (", s, ", ", d, ") is outside the axis of size ", n));
    if (!srcs.insert(s).second || !dsts.insert(d).second)
      throw_bad_input(cat("ppermute: sources and destinations must be unique; (", s, ", ", d, ") repeats one"),
                      "each rank sends to at most one rank and receives from at most one");
  }
}

namespace {

// "" when local_check passed, else "<kind letter>message\x1fhint": tandem's errors are bad
// input (B) on every rank, as a check's verdict, except its internal ones (an --out that cannot
// be created: exit 5, not 4), which stay internal (I) like any other exception (a failed file
// write: as rank-local as a bad argument, and every rank must hear of it), and its failed
// invariants (V), a wrong value on every rank.
std::string failure_of(const std::function<void()>& local_check) {
  try {
    local_check();
  } catch (const Error& e) {
    const char* k = e.kind() == ErrorKind::internal ? "I" : e.kind() == ErrorKind::invariant ? "V" : "B";
    return k + e.message() + "\x1f" + e.hint();
  } catch (const std::exception& e) {
    return std::string("I") + e.what();
  }
  return "";
}

// "<kind>message\x1fhint" of `rank` → the error every rank throws, naming that rank.
[[noreturn]] void throw_failure(const Communicator& world, int rank, std::string msg) {
  const ErrorKind kind = msg[0] == 'B' ? ErrorKind::bad_input : msg[0] == 'V' ? ErrorKind::invariant : ErrorKind::internal;
  msg = msg.substr(1);
  std::string hint;
  if (auto sep = msg.find('\x1f'); sep != std::string::npos) {
    hint = msg.substr(sep + 1);
    msg = msg.substr(0, sep);
  }
  throw Error(kind, world.size() > 1 ? cat(msg, " (rank ", rank, ")") : msg, hint);
}

}  // namespace

void agree(Communicator& world, const std::string& op, const std::string& signature,
           const std::function<void()>& local_check, const std::string& mismatch_hint) {
  const std::string failure = failure_of(local_check);
  const std::function<std::string()> what = [&] { return cat("the agreement on the arguments of ", op); };
  WatchScope watch(&job_watchdog(), what);
  test_point("agree");
  // One gather carries both: "F<message>" on failure, "S<signature>" otherwise.
  std::vector<std::string> all = all_gather_strings(world, failure.empty() ? "S" + signature : "F" + failure);
  for (int r = 0; r < world.size(); ++r)
    if (all[r][0] == 'F') throw_failure(world, r, all[r].substr(1));
  for (int r = 1; r < world.size(); ++r)
    if (all[r] != all[0])
      throw_bad_input(cat(op, ": ranks disagree on the arguments: rank 0 has ", all[0].substr(1),
                          " but rank ", r, " has ", all[r].substr(1)),
                      mismatch_hint);
}

void agree_verdict(Communicator& world, const std::function<void()>& local_check) {
  const std::string failure = failure_of(local_check);
  WatchScope watch(&job_watchdog(), [] { return std::string("the agreement on every rank's verdict"); });
  test_point("agree");
  const std::vector<int64_t> failed = all_gather_ints(world, {failure.empty() ? 0 : 1});
  for (int r = 0; r < world.size(); ++r)
    if (failed[size_t(r)]) {
      const std::vector<std::string> all = all_gather_strings(world, failure);
      throw_failure(world, r, all[size_t(r)]);
    }
}

}  // namespace tandem::comm
