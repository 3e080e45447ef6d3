// DType → C++ element type for the LocalOps implementations (host loops, CUDA launchers):
// calls f(T{}) with T the storage type of t among the dtypes the collectives' local math
// takes (f64 f32 f16 bf16 i32); anything else is unsupported, with the op's name.
#pragma once
#include <cstdint>

#include "common/dtype.h"
#include "engine/core/error.h"
#include "engine/core/half.h"

namespace tandem::comm::local_math {

template <class F>
auto with_type(DType t, const char* what, F&& f) {
  switch (t) {
    case DType::f64: return f(double{});
    case DType::f32: return f(float{});
    case DType::f16: return f(f16{});
    case DType::bf16: return f(bf16{});
    case DType::i32: return f(int32_t{});
    default: break;
  }
  throw_unsupported(cat(what, ": no ", dtype_name(t), " form"), "convert bool inputs to i32 first");
}

}  // namespace tandem::comm::local_math
