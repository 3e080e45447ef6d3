// What the fuzz targets share: a scratch directory per process (on /dev/shm when there is one,
// so a hundred thousand inputs do not wear a disk) and the rule that a refused input is a
// bad-input tandem::Error — any other kind from user files is a finding, so it aborts.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace tandem::fuzz {

inline std::filesystem::path scratch_dir(const std::string& what) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm")
                                                                             : std::filesystem::temp_directory_path();
  std::filesystem::path dir = base / ("tandem-fuzz-" + what + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir);
  static std::vector<std::filesystem::path> made;  // removed at exit
  made.push_back(dir);
  static const bool once = [] {
    std::atexit([] {
      std::error_code e;
      for (const auto& d : made) std::filesystem::remove_all(d, e);
    });
    return true;
  }();
  (void)once;
  return dir;
}

// `unsupported` is allowed too: a config may ask for what this build lacks (--backend cuda).
inline void expect_bad_input(const Error& e) {
  if (e.kind() == ErrorKind::bad_input || e.kind() == ErrorKind::unsupported) return;
  std::cerr << "fuzz: user input gave an internal error (not bad input):\n" << e.what() << "\n";
  std::abort();
}

}  // namespace tandem::fuzz
