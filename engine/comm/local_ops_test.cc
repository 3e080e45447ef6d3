// The host LocalOps (local_ops_host.cc) and the element math it shares with the NCCL
// kernels (local_math.h), against direct formulas: the block transpose's index against the
// two nested loops it replaces, pmean's rounding against JAX's f32(sum) / f32(n), the offer's
// NaN and signed-zero rule, the bool conversions. What passes here is what device_pack.cu
// computes per element; its launch (grid-stride loops, word size) is checked on a GPU by
// NcclEveryOp.* (nccl_ops_test.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "engine/comm/local_math.h"
#include "engine/comm/local_ops.h"

namespace tandem::comm {
namespace {

TEST(LocalOps, Swap01MatchesTheNestedLoops) {
  LocalOps& ops = host_local_ops();
  for (int64_t A : {1, 2, 3, 5})
    for (int64_t B : {1, 2, 4, 7})
      for (int64_t bytes : {1, 2, 6, 16}) {
        std::vector<uint8_t> src(size_t(A * B * bytes)), got(src.size()), want(src.size());
        for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 37 + 11);
        for (int64_t a = 0; a < A; ++a)  // dst[b][a][:] = src[a][b][:]
          for (int64_t b = 0; b < B; ++b)
            std::memcpy(&want[size_t((b * A + a) * bytes)], &src[size_t((a * B + b) * bytes)], size_t(bytes));
        ops.swap01(src.data(), got.data(), A, B, bytes);
        EXPECT_EQ(got, want) << "A=" << A << " B=" << B << " bytes=" << bytes;
      }
}

TEST(LocalOps, DivideRoundsAsJax) {
  LocalOps& ops = host_local_ops();
  const std::vector<int32_t> isum{16777217, 268435463, -7, 0};
  std::vector<float> fo(isum.size());
  ops.divide(isum.data(), DType::i32, fo.data(), DType::f32, int64_t(isum.size()), 3);
  for (size_t i = 0; i < isum.size(); ++i) EXPECT_EQ(fo[i], float(isum[i]) / 3.0f) << i;
  const std::vector<double> dsum{1.0, 2.0, 1e300};
  std::vector<double> dout(dsum.size());
  ops.divide(dsum.data(), DType::f64, dout.data(), DType::f64, int64_t(dsum.size()), 3);
  for (size_t i = 0; i < dsum.size(); ++i) EXPECT_EQ(dout[i], dsum[i] / 3.0) << i;
  const std::vector<f16> hsum{to_f16(1.0f), to_f16(-0.0f), to_f16(7.0f)};
  std::vector<f16> hout(hsum.size());
  ops.divide(hsum.data(), DType::f16, hout.data(), DType::f16, int64_t(hsum.size()), 3);
  for (size_t i = 0; i < hsum.size(); ++i) EXPECT_EQ(hout[i].bits, to_f16(to_f32(hsum[i]) / 3.0f).bits) << i;
  EXPECT_TRUE(std::signbit(to_f32(hout[1]))) << "-0 / n stays -0";
}

TEST(LocalOps, OfferFollowsTheNanAndSignedZeroRule) {
  LocalOps& ops = host_local_ops();
  const std::vector<float> x{1.0f, NAN, -0.0f, 2.0f, NAN}, best{1.0f, NAN, 0.0f, 3.0f, 1.0f};
  std::vector<int32_t> idx(x.size());
  ops.offer_index(x.data(), best.data(), DType::f32, int64_t(x.size()), 5, idx.data());
  EXPECT_EQ(idx, (std::vector<int32_t>{5, 5, 5, local_math::kNoOffer, local_math::kNoOffer}));
  const std::vector<bf16> xb{to_bf16(NAN), to_bf16(-1.0f)}, bb{to_bf16(NAN), to_bf16(-1.0f)};
  std::vector<int32_t> ib(2);
  ops.offer_index(xb.data(), bb.data(), DType::bf16, 2, 0, ib.data());
  EXPECT_EQ(ib, (std::vector<int32_t>{0, 0}));
}

TEST(LocalOps, BoolConversionsAndCopies) {
  LocalOps& ops = host_local_ops();
  const std::vector<uint8_t> b{0, 1, 1, 0};
  std::vector<int32_t> i(b.size());
  ops.bool_to_i32(b.data(), i.data(), 4);
  EXPECT_EQ(i, (std::vector<int32_t>{0, 1, 1, 0}));
  const std::vector<int32_t> v{0, 3, -2, 0};
  std::vector<uint8_t> back(v.size());
  ops.i32_to_bool(v.data(), back.data(), 4);
  EXPECT_EQ(back, (std::vector<uint8_t>{0, 1, 1, 0}));
  std::vector<int32_t> dst(4, 9);
  ops.copy({{v.data() + 1, dst.data(), 8}, {v.data(), dst.data() + 3, 4}});
  ops.zero(dst.data() + 2, 4);
  EXPECT_EQ(dst, (std::vector<int32_t>{3, -2, 0, 0}));
}

}  // namespace
}  // namespace tandem::comm
