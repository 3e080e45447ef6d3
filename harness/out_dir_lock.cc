// OutDirLock (see out_dir_lock.h).
#include "harness/out_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/core/error.h"

namespace tandem {

OutDirLock::OutDirLock(const std::string& dir, const std::string& command) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0)
    throw Error(ErrorKind::internal, cat(command, ": cannot create or open --out ", dir, ": ",
                                         ec ? ec.message() : std::strerror(errno)),
                "check the path and its permissions");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw_bad_input(cat(command, ": another tandem run is writing to --out ", dir),
                      "wait for it to finish, or pass another --out directory");
    throw Error(ErrorKind::internal, cat(command, ": cannot lock --out ", dir, ": ", std::strerror(err)),
                "check the file system supports flock(2), or pass a local --out directory");
  }
}

OutDirLock::~OutDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the lock
}

}  // namespace tandem
