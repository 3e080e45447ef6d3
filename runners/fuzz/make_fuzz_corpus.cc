// Writes the fuzz targets' seed corpus with tandem's own writers (save_npy_tensor, nlohmann
// json): `make_fuzz_corpus DIR` fills DIR/npy (one .npy per dtype and rank) and DIR/lstm_input (input
// directories of `tandem lstm`, forward and backward, packed by fuzz_archive.h). The corpus in
// runners/fuzz/corpus is this program's output; the fuzz_corpus_current ctest keeps it so.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/core/lstm_config.h"
#include "runners/cli/npy_io.h"
#include "runners/fuzz/fuzz_archive.h"

namespace fs = std::filesystem;
using tandem::DType;
using tandem::Shape;
using tandem::Tensor;

namespace {

std::mt19937 rng(20);  // fixed: the corpus is the same on every run

Tensor values(const Shape& s, DType d) {
  int64_t n = 1;
  for (int64_t e : s) n *= e;
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = d == DType::i32 ? double(rng() % 100) : u(rng);
  return Tensor::from_f64(v, s, d);
}

std::string npy_bytes(const Tensor& t, const fs::path& scratch) {
  tandem::save_npy_tensor(scratch.string(), t);
  std::ifstream f(scratch, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// One `tandem lstm` input directory: x [B, T, I], the packed weights, and with `backward` every
// optional input (states, lengths, cotangents).
std::string lstm_seed(int64_t B, int64_t T, int64_t I, int64_t H, int64_t L, bool bidi, bool backward,
                      const nlohmann::json& config, const fs::path& scratch) {
  const int64_t D = bidi ? 2 : 1;
  std::vector<tandem::fuzz::ArchiveFile> files = {
      {"config.json", config.dump()},
      {"x.npy", npy_bytes(values({B, T, I}, DType::f32), scratch)},
      {"w.npy", npy_bytes(values({tandem::get_num_params_in_lstm(I, H, L, bidi)}, DType::f32), scratch)}};
  if (backward) {
    for (const char* s : {"h0.npy", "c0.npy", "dh_n.npy", "dc_n.npy"})
      files.push_back({s, npy_bytes(values({L * D, B, H}, DType::f32), scratch)});
    std::vector<double> lengths(static_cast<size_t>(B));
    for (double& l : lengths) l = double(1 + int64_t(rng() % uint32_t(T)));  // in [1, T]
    files.push_back({"seq_lengths.npy", npy_bytes(Tensor::from_f64(lengths, {B}, DType::i32), scratch)});
    files.push_back({"dy.npy", npy_bytes(values({B, T, D * H}, DType::f32), scratch)});
  }
  return tandem::fuzz::encode_lstm_archive(files);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_fuzz_corpus DIR\n";
    return 4;
  }
  const fs::path root = argv[1], scratch = root / "scratch.npy";
  fs::create_directories(root / "npy");
  fs::create_directories(root / "lstm_input");
  const std::pair<const char*, Tensor> npy[] = {
      {"f32_2d.npy", values({3, 4}, DType::f32)},      {"f64_1d.npy", values({5}, DType::f64)},
      {"i32_1d.npy", values({4}, DType::i32)},         {"f32_scalar.npy", values({}, DType::f32)},
      {"f32_4d.npy", values({1, 2, 3, 2}, DType::f32)}, {"f32_empty.npy", Tensor::zeros({0, 3}, DType::f32)}};
  for (const auto& [name, t] : npy) write(root / "npy" / name, npy_bytes(t, scratch));
  write(root / "lstm_input" / "forward.bin", lstm_seed(2, 3, 2, 3, 1, false, false, {{"hidden_size", 3}}, scratch));
  write(root / "lstm_input" / "backward_bidi.bin",
        lstm_seed(2, 3, 2, 2, 2, true, true, {{"hidden_size", 2}, {"num_layers", 2}, {"bidirectional", true}}, scratch));
  write(root / "lstm_input" / "all_keys.bin",
        lstm_seed(1, 2, 3, 2, 1, false, true,
                  {{"hidden_size", 2}, {"num_layers", 1}, {"bidirectional", false}, {"precision", "HIGHEST"},
                   {"backend", "cpu"}, {"input_size", 3}},
                  scratch));
  fs::remove(scratch);
  return 0;
}
