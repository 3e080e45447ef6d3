// Fuzz target: the .npy reader (runners/cli/npy_io.cc) on arbitrary bytes. Every input must
// either load or be refused as bad input (a tandem::Error of kind bad_input); anything else —
// another exception, a crash, a sanitizer report — is a finding. A file that loads must also
// round-trip: written back with save_npy_tensor and read again, it gives the same tensor.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "engine/core/error.h"
#include "runners/cli/npy_io.h"
#include "runners/fuzz/fuzz_scratch.h"

namespace {

void check_round_trip(const tandem::Tensor& t, const std::string& path) {
  tandem::save_npy_tensor(path, t);
  const tandem::Tensor back = tandem::load_npy_tensor(path, t.dtype(), "round-trip.npy");
  if (back.shape() != t.shape() || back.nbytes() != t.nbytes() ||
      (t.nbytes() && std::memcmp(back.raw(), t.raw(), size_t(t.nbytes())) != 0)) {
    std::cerr << "npy_fuzz: a loaded tensor does not survive save_npy_tensor + load_npy_tensor\n";
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path dir = tandem::fuzz::scratch_dir("npy");
  const std::string in = (dir / "in.npy").string(), out = (dir / "out.npy").string();
  {
    std::ofstream f(in, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  for (tandem::DType d : {tandem::DType::f32, tandem::DType::f64, tandem::DType::i32}) {
    try {
      check_round_trip(tandem::load_npy_tensor(in, d, "fuzz.npy"), out);
    } catch (const tandem::Error& e) {
      tandem::fuzz::expect_bad_input(e);
    }
  }
  return 0;
}
