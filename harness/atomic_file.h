// Atomic, symlink-safe file output shared by every writer of results (records.json,
// benchmark.json, the .npy outputs and run.json of `tandem lstm`): readers see either the old
// file or the complete new one, and a name planted in the output directory (a symlink at a
// predictable temporary name) is never followed or overwritten.
#pragma once
#include <string>

namespace tandem {

// Writes `content` to `path`: a fresh temporary created by mkstemp(3) in the target's own
// directory (O_CREAT|O_EXCL, so never an existing name or a symlink), fsync, then rename(2)
// over `path`. Creates the parent directory if needed. Failures are infrastructure Errors
// (ErrorKind::internal) naming the path; the temporary is removed.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tandem
