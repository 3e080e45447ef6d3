// One writer at a time per output directory: every command that
// writes a folder (run, check, dot, lstm, collectives and collectives-dump on rank 0,
// dump-programs, faults; `tandem merge` through the same flock in reports/atomic.py) holds an
// exclusive flock(2) on it while it writes, so a second writer is refused up front instead of
// interleaving its records or .npy files with the first's. The lock is on the directory itself: nothing is left behind, and the
// kernel drops it when the process ends, however it ends (no stale lock after kill -9).
#pragma once
#include <string>

namespace tandem {

class OutDirLock {
 public:
  // Creates `dir` if needed and locks it. Another process holding it: bad input (exit 4)
  // naming `dir` and `command`; a directory that cannot be created or opened: infrastructure.
  OutDirLock(const std::string& dir, const std::string& command);
  ~OutDirLock();
  OutDirLock(const OutDirLock&) = delete;
  OutDirLock& operator=(const OutDirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace tandem
