// Control-plane helpers shared by every backend: gathering strings and integers from all
// ranks over host memory (two rounds: lengths, then padded payloads).
#include "engine/comm/communicator.h"

#include <algorithm>
#include <cstring>

namespace tandem::comm {

std::vector<int64_t> all_gather_ints(Communicator& c, const std::vector<int64_t>& mine) {
  std::vector<int64_t> all(mine.size() * size_t(c.size()));
  c.host_all_gather(mine.data(), all.data(), int64_t(mine.size() * sizeof(int64_t)));
  return all;
}

std::vector<std::string> all_gather_strings(Communicator& c, const std::string& mine) {
  std::vector<int64_t> lens = all_gather_ints(c, {int64_t(mine.size())});
  const int64_t width = std::max<int64_t>(1, *std::max_element(lens.begin(), lens.end()));
  std::vector<char> send(size_t(width), '\0'), recv(size_t(width * c.size()));
  std::memcpy(send.data(), mine.data(), mine.size());
  c.host_all_gather(send.data(), recv.data(), width);
  std::vector<std::string> out;
  for (int r = 0; r < c.size(); ++r) out.emplace_back(recv.data() + r * width, size_t(lens[r]));
  return out;
}

}  // namespace tandem::comm
