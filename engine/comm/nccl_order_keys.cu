// The order-key kernels (see nccl_order_keys.h). A float's bits are sign | magnitude; the key is the magnitude for a
// positive sign and -magnitude - 1 for a negative one, so -0 maps to -1 below +0's 0, and any NaN maps to the key
// type's max (for max) or min (for min), beyond every finite or infinite key. Decoding inverts that; the extremes give
// the format's canonical quiet NaN.
#include <limits>

#include "engine/comm/nccl_order_keys.h"

namespace tandem::comm::order_keys {
namespace {

template <class U, class K>
struct Format {
  U sign, inf, nan;  // sign bit, +inf's bits (largest non-NaN magnitude), canonical NaN
  K top = std::numeric_limits<K>::max(), bottom = std::numeric_limits<K>::min();  // NaN's keys
};

template <class U, class K>
__global__ void encode_kernel(const U* v, K* k, int64_t n, Format<U, K> f, bool for_max) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const U b = v[i], mag = U(b & U(~f.sign));
    K key;
    if (mag > f.inf) key = for_max ? f.top : f.bottom;
    else key = (b & f.sign) ? K(-K(mag) - 1) : K(mag);
    k[i] = key;
  }
}

template <class U, class K>
__global__ void decode_kernel(const K* k, U* v, int64_t n, Format<U, K> f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const K key = k[i];
    U b;
    if (key == f.top || key == f.bottom) b = f.nan;
    else if (key < 0) b = U(f.sign | U(-(key + 1)));
    else b = U(key);
    v[i] = b;
  }
}

unsigned blocks(int64_t n) { return unsigned(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096); }

template <class U, class K>
cudaError_t launch(const void* in, void* out, int64_t n, Format<U, K> f, bool encoding, bool for_max, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (encoding) encode_kernel<<<blocks(n), 256, 0, s>>>(static_cast<const U*>(in), static_cast<K*>(out), n, f, for_max);
  else decode_kernel<<<blocks(n), 256, 0, s>>>(static_cast<const K*>(in), static_cast<U*>(out), n, f);
  return cudaGetLastError();
}

cudaError_t run(const void* in, void* out, int64_t n, Bits b, bool encoding, bool for_max, cudaStream_t s) {
  switch (b) {
    case Bits::f16: return launch(in, out, n, Format<uint16_t, int32_t>{0x8000, 0x7C00, 0x7E00}, encoding, for_max, s);
    case Bits::bf16: return launch(in, out, n, Format<uint16_t, int32_t>{0x8000, 0x7F80, 0x7FC0}, encoding, for_max, s);
    case Bits::f32:
      return launch(in, out, n, Format<uint32_t, int32_t>{0x80000000u, 0x7F800000u, 0x7FC00000u}, encoding, for_max, s);
    case Bits::f64:
      return launch(in, out, n,
                    Format<uint64_t, int64_t>{0x8000000000000000ull, 0x7FF0000000000000ull, 0x7FF8000000000000ull},
                    encoding, for_max, s);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

int key_bytes(Bits b) { return b == Bits::f64 ? 8 : 4; }
cudaError_t encode(const void* values, void* keys, int64_t n, Bits b, bool for_max, cudaStream_t s) {
  return run(values, keys, n, b, true, for_max, s);
}
cudaError_t decode(const void* keys, void* values, int64_t n, Bits b, cudaStream_t s) {
  return run(keys, values, n, b, false, false, s);
}

}  // namespace tandem::comm::order_keys
