// The byte format of one `tandem lstm` fuzz input: the files of an input directory packed one
// after another as [name index: 1 byte][size: 4 bytes, little-endian][bytes]. Decoding is total
// (the index wraps, a size past the end is cut short), so every byte string a fuzzer makes is
// an input directory `tandem lstm` can be pointed at; make_fuzz_corpus.cc encodes the seeds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tandem::fuzz {

// The files `tandem lstm --in DIR` reads (docs/LSTM_DATA.md), by archive index.
inline constexpr const char* kLstmInputNames[] = {"config.json", "x.npy",  "w.npy",     "h0.npy",   "c0.npy",
                                                  "seq_lengths.npy", "dy.npy", "dh_n.npy", "dc_n.npy"};
inline constexpr size_t kLstmInputCount = sizeof(kLstmInputNames) / sizeof(kLstmInputNames[0]);

struct ArchiveFile {
  std::string name, bytes;
};

inline std::vector<ArchiveFile> decode_lstm_archive(const uint8_t* data, size_t size) {
  std::vector<ArchiveFile> files;
  size_t at = 0;
  while (at + 5 <= size) {
    const char* name = kLstmInputNames[data[at] % kLstmInputCount];
    const uint32_t len = uint32_t(data[at + 1]) | uint32_t(data[at + 2]) << 8 | uint32_t(data[at + 3]) << 16 |
                         uint32_t(data[at + 4]) << 24;
    at += 5;
    const size_t n = len < size - at ? size_t(len) : size - at;
    files.push_back({name, std::string(reinterpret_cast<const char*>(data + at), n)});
    at += n;
  }
  return files;
}

inline std::string encode_lstm_archive(const std::vector<ArchiveFile>& files) {
  std::string out;
  for (const ArchiveFile& f : files) {
    size_t index = 0;
    while (index < kLstmInputCount && f.name != kLstmInputNames[index]) ++index;
    out += char(index);
    const uint32_t len = uint32_t(f.bytes.size());
    for (int i = 0; i < 4; ++i) out += char((len >> (8 * i)) & 0xff);
    out += f.bytes;
  }
  return out;
}

}  // namespace tandem::fuzz
