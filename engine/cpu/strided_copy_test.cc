// strided_copy against the index arithmetic it stands for, element by element: every element
// size (1, 2, 4, 8 bytes take the typed loop, 3 the byte copy), inner runs contiguous or
// strided, negative strides (rev), zero strides (broadcast) and bases inside the buffers.
#include "engine/cpu/strided_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace tandem::cpu {
namespace {

struct Layout {
  Shape shape, src_strides, dst_strides;
  int64_t src_base = 0, dst_base = 0;
};

// Offsets (in elements) of every index in row-major order, as strided_copy promises to walk.
std::vector<std::pair<int64_t, int64_t>> offsets(const Layout& l) {
  std::vector<std::pair<int64_t, int64_t>> out;
  std::vector<int64_t> idx(l.shape.size(), 0);
  const int64_t n = num_elements(l.shape);
  for (int64_t done = 0; done < n; ++done) {
    int64_t s = l.src_base, d = l.dst_base;
    for (size_t k = 0; k < idx.size(); ++k) s += idx[k] * l.src_strides[k], d += idx[k] * l.dst_strides[k];
    out.push_back({s, d});
    for (int k = int(idx.size()) - 1; k >= 0 && ++idx[size_t(k)] == l.shape[size_t(k)]; --k) idx[size_t(k)] = 0;
  }
  return out;
}

// A transpose (2-D and 3-D), a broadcast, a rev along the last axis and a slice with a base.
std::vector<Layout> layouts() {
  return {{{5, 7}, {1, 5}, {7, 1}},        {{3, 4, 6}, {1, 18, 3}, {24, 6, 1}}, {{4, 9}, {0, 1}, {9, 1}},
          {{3, 5}, {5, -1}, {5, 1}, 4, 0}, {{2, 3}, {10, 1}, {1, 2}, 11, 0},    {{}, {}, {}, 2, 1}};
}

void check(const Layout& l, size_t elem) {
  std::mt19937 rng(7);
  const size_t span = 256 * elem;
  std::vector<uint8_t> src(span), dst(span, 0xAB), want(span, 0xAB);
  for (auto& b : src) b = uint8_t(rng());
  for (auto [s, d] : offsets(l))
    for (size_t b = 0; b < elem; ++b) want[size_t(d) * elem + b] = src[size_t(s) * elem + b];
  strided_copy(src.data(), l.src_base, l.src_strides, dst.data(), l.dst_base, l.dst_strides, l.shape, elem);
  EXPECT_EQ(dst, want) << "shape rank " << l.shape.size() << ", " << elem << "-byte elements";
}

TEST(StridedCopy, MatchesTheIndexArithmeticForEveryElementSize) {
  for (const Layout& l : layouts())
    for (size_t elem : {1, 2, 3, 4, 8}) check(l, elem);
}

}  // namespace
}  // namespace tandem::cpu
