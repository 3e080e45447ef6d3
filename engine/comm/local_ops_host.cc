// The host LocalOps (local_ops.h) behind the MPI backend: memcpy / memset and loops over the
// element math of local_math.h, the same functions the NCCL backend's kernels run.
#include <cstring>
#include <type_traits>

#include "engine/comm/local_dispatch.h"
#include "engine/comm/local_math.h"
#include "engine/comm/local_ops.h"

namespace tandem::comm {
namespace {

class HostLocalOps final : public LocalOps {
 public:
  void copy(const std::vector<CopySpan>& spans) override {
    for (const CopySpan& s : spans)
      if (s.bytes > 0 && s.src != s.dst) std::memcpy(s.dst, s.src, size_t(s.bytes));
  }
  void zero(void* dst, int64_t bytes) override {
    if (bytes > 0) std::memset(dst, 0, size_t(bytes));
  }
  void swap01(const void* src, void* dst, int64_t A, int64_t B, int64_t bytes) override {
    auto* s = static_cast<const char*>(src);
    auto* d = static_cast<char*>(dst);
    for (int64_t j = 0; j < A * B; ++j)
      std::memcpy(d + j * bytes, s + local_math::swap01_source_block(j, A, B) * bytes, size_t(bytes));
  }
  void divide(const void* sum, DType in_t, void* out, DType out_t, int64_t count, int64_t n) override {
    local_math::with_type(in_t, "pmean", [&](auto in) {
      using In = decltype(in);
      local_math::with_type(out_t, "pmean", [&](auto o) {
        using Out = decltype(o);
        if constexpr (!std::is_same_v<Out, int32_t>) {
          for (int64_t i = 0; i < count; ++i)
            static_cast<Out*>(out)[i] = local_math::mean_of<In, Out>(static_cast<const In*>(sum)[i], n);
        } else {
          throw Error(ErrorKind::invariant, "pmean: an integer output type");
        }
      });
    });
  }
  void offer_index(const void* x, const void* best, DType t, int64_t count, int32_t me, int32_t* idx) override {
    local_math::with_type(t, "pargmax/pargmin", [&](auto v) {
      using T = decltype(v);
      for (int64_t i = 0; i < count; ++i)
        idx[i] = local_math::offer(static_cast<const T*>(x)[i], static_cast<const T*>(best)[i], me);
    });
  }
  void bool_to_i32(const uint8_t* b, int32_t* out, int64_t count) override {
    for (int64_t i = 0; i < count; ++i) out[i] = local_math::i32_of(b[i]);
  }
  void i32_to_bool(const int32_t* v, uint8_t* out, int64_t count) override {
    for (int64_t i = 0; i < count; ++i) out[i] = local_math::bool_of(v[i]);
  }
};

}  // namespace

LocalOps& host_local_ops() {
  static HostLocalOps ops;
  return ops;
}

}  // namespace tandem::comm
