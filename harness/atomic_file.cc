// write_file_atomically (see atomic_file.h).
#include "harness/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "engine/core/error.h"

namespace tandem {

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::internal, cat("cannot write ", path, ": ", what, ": ", std::strerror(errno)),
                "check that the output directory exists, is writable and has free space");
  };
  // mkstemp: a unique name, opened O_RDWR|O_CREAT|O_EXCL — it never opens an existing file
  // and never follows a symlink, whatever was planted in the directory beforehand.
  std::string templ = (p.parent_path() / cat(".", p.filename().string(), ".XXXXXX")).string();
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail("cannot create a temporary file");
  const std::string tmp(name.data());
  auto fail_removing_tmp = [&](const std::string& what) {
    const int e = errno;
    ::unlink(tmp.c_str());
    errno = e;
    fail(what);
  };
  // mkstemp creates 0600; results are meant to be read by others, as a plain create would be.
  if (::fchmod(fd, 0644) != 0) { ::close(fd); fail_removing_tmp("fchmod"); }
  for (size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { ::close(fd); fail_removing_tmp("short write"); }
    done += size_t(n);
  }
  if (::fsync(fd) != 0) { ::close(fd); fail_removing_tmp("fsync"); }
  if (::close(fd) != 0) fail_removing_tmp("close");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail_removing_tmp("rename");
}

}  // namespace tandem
