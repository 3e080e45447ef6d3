// Fuzz target: `tandem lstm` on an arbitrary input directory — config.json and the .npy inputs, packed as
// fuzz_archive.h describes — through run_lstm_on_files, the function the command calls. Every input must either run (on
// the CPU) or be refused as bad input with a message; another exception, a crash or a sanitizer report is a finding.
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "engine/prims/register_all.h"
#include "runners/cli/lstm_byod.h"
#include "runners/fuzz/fuzz_archive.h"
#include "runners/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const fs::path dir = tandem::fuzz::scratch_dir("lstm");
  static const bool registered = (tandem::register_all_primitives(), true);  // as tandem's main does
  (void)registered;
  const fs::path in = dir / "in", out = dir / "out";
  std::error_code ec;
  fs::remove_all(in, ec);
  fs::create_directories(in);
  for (const tandem::fuzz::ArchiveFile& f : tandem::fuzz::decode_lstm_archive(data, size)) {
    std::ofstream file(in / f.name, std::ios::binary | std::ios::trunc);
    file.write(f.bytes.data(), std::streamsize(f.bytes.size()));
  }
  tandem::LstmRunOptions o;
  o.in_dir = in.string();
  o.out_dir = out.string();
  o.quiet = true;
  o.threads = 1;  // the fuzzer runs many small inputs: no thread pool per input
  try {
    tandem::run_lstm_on_files(o);
  } catch (const tandem::Error& e) {
    tandem::fuzz::expect_bad_input(e);
  }
  return 0;
}
