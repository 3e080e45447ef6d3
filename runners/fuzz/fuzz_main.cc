// A seeded mutation driver for the fuzz targets when the compiler has no libFuzzer (GCC, the default build): it runs
// every file of the corpus directories given, then mutated copies of them — bit flips, byte sets, inserts, erases,
// splices, and numbers swapped for boundary values — until -runs=N inputs or -max_total_time=S seconds. Same command
// line shape as libFuzzer (`fuzz_x -runs=N -seed=S CORPUS...`), so ctest and ci/sanitize.sh call either. A finding
// aborts the process (or a sanitizer reports it); a clean run prints the count.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::string;

// Boundary numbers for the digits in a header or a config (shapes, sizes, counts).
const char* const kNumbers[] = {"0", "1", "-1", "2", "127", "128", "255", "65536", "2147483647", "2147483648",
                                "4294967296", "9223372036854775807", "9223372036854775808",
                                "18446744073709551616", "1e999", "-0", "nan"};

void mutate(Bytes& b, const std::vector<Bytes>& corpus, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  const int steps = 1 + int(rng() % 4);
  for (int s = 0; s < steps; ++s) {
    switch (rng() % 7) {
      case 0: if (!b.empty()) b[pick(b.size())] ^= char(1u << (rng() % 8)); break;
      case 1: if (!b.empty()) b[pick(b.size())] = char("\x00\xff\x7f\x80\x01"[rng() % 5]); break;
      case 2: b.insert(pick(b.size() + 1), Bytes(1 + pick(8), char(rng()))); break;
      case 3: if (!b.empty()) { size_t at = pick(b.size()); b.erase(at, 1 + pick(std::min<size_t>(16, b.size() - at))); } break;
      case 4: {  // splice: a piece of another corpus entry
        const Bytes& o = corpus[pick(corpus.size())];
        if (o.empty()) break;
        size_t from = pick(o.size()), n = 1 + pick(std::min<size_t>(64, o.size() - from));
        b.insert(pick(b.size() + 1), o.substr(from, n));
        break;
      }
      case 5: if (b.size() > 1) b.resize(pick(b.size())); break;
      default: {  // a run of digits replaced by a boundary number
        size_t at = b.find_first_of("0123456789", pick(b.size()));
        if (at == Bytes::npos) break;
        size_t end = b.find_first_not_of("0123456789", at);
        b.replace(at, (end == Bytes::npos ? b.size() : end) - at, kNumbers[rng() % std::size(kNumbers)]);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  long long runs = 10000, seed = 1;
  double max_seconds = 0;
  std::vector<Bytes> corpus;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-runs=", 0) == 0) runs = std::stoll(a.substr(6));
    else if (a.rfind("-seed=", 0) == 0) seed = std::stoll(a.substr(6));
    else if (a.rfind("-max_total_time=", 0) == 0) max_seconds = std::stod(a.substr(16));
    else if (a[0] == '-') continue;  // other libFuzzer flags (-max_len=...) mean nothing here
    else
      for (const auto& e : std::filesystem::directory_iterator(a)) {
        std::ifstream f(e.path(), std::ios::binary);
        corpus.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
      }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "fuzz: no corpus files given\nhint: %s -runs=N CORPUS_DIR...\n", argv[0]);
    return 4;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::mt19937_64 rng{uint64_t(seed)};
  long long done = 0;
  for (const Bytes& c : corpus) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(c.data()), c.size());
    ++done;
  }
  for (; done < runs && (max_seconds <= 0 || elapsed() < max_seconds); ++done) {
    Bytes b = corpus[rng() % corpus.size()];
    mutate(b, corpus, rng);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(b.data()), b.size());
    if ((done + 1) % 50000 == 0)  // a long run's count so far, should it be stopped
      std::fprintf(stderr, "fuzz: %lld inputs in %.1f s\n", done + 1, elapsed());
  }
  std::printf("fuzz: %lld inputs (%zu seeds, seed %lld) in %.1f s, 0 crashes\n", done, corpus.size(), seed, elapsed());
  return 0;
}
