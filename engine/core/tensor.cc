// Tensor implementation: allocation through the Allocator, host conversions, device copies.
#include "engine/core/tensor.h"

#include <cmath>
#include <cstring>

#include "engine/core/error.h"

namespace tandem {
namespace {
CopyFn& device_copy() {
  static CopyFn fn;
  return fn;
}
}  // namespace

Buffer::Buffer(Device d, size_t bytes) : device_(d), bytes_(bytes), data_(Allocator::instance().allocate(d, bytes)) {}
Buffer::~Buffer() { Allocator::instance().deallocate(device_, data_, bytes_); }

void register_device_copy(CopyFn fn) { device_copy() = std::move(fn); }

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  for (int64_t d : shape)
    if (d < 0) throw_bad_input(cat("negative dimension in shape [", shape_str(shape), "]"));
  Tensor t;
  t.type_ = AType{shape, dtype};
  t.buffer_ = std::make_shared<Buffer>(device, t.nbytes());
  return t;
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, Device device) {
  if (device.kind != DeviceKind::cpu) {
    Tensor host = zeros(shape, dtype);
    return host.to(device);
  }
  Tensor t = empty(shape, dtype, device);
  std::memset(t.raw(), 0, t.nbytes());
  return t;
}

double load_as_f64(const void* base, DType t, int64_t i) {
  switch (t) {
    case DType::f64: return static_cast<const double*>(base)[i];
    case DType::f32: return static_cast<const float*>(base)[i];
    case DType::bf16: return to_f32(static_cast<const bf16*>(base)[i]);
    case DType::f16: return to_f32(static_cast<const f16*>(base)[i]);
    case DType::i32: return static_cast<const int32_t*>(base)[i];
    case DType::pred: return static_cast<const uint8_t*>(base)[i] ? 1.0 : 0.0;
  }
  return 0;
}

void store_from_f64(void* base, DType t, int64_t i, double v) {
  switch (t) {
    case DType::f64: static_cast<double*>(base)[i] = v; break;
    case DType::f32: static_cast<float*>(base)[i] = float(v); break;
    // Via f32: double rounding f64→f32→bf16 can differ from direct rounding only for
    // values that are not f32-representable; engine values are f32 or narrower here.
    case DType::bf16: static_cast<bf16*>(base)[i] = to_bf16(float(v)); break;
    case DType::f16: static_cast<f16*>(base)[i] = to_f16(float(v)); break;
    case DType::i32: static_cast<int32_t*>(base)[i] = int32_t(v); break;
    case DType::pred: static_cast<uint8_t*>(base)[i] = v != 0.0; break;
  }
}

Tensor Tensor::from_f64(const std::vector<double>& values, const Shape& shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  if (int64_t(values.size()) != t.numel())
    throw_bad_input(cat("from_f64: ", values.size(), " values for shape [", shape_str(shape),
                        "] of ", t.numel(), " elements"));
  for (int64_t i = 0; i < t.numel(); ++i) store_from_f64(t.raw(), dtype, i, values[i]);
  return t;
}

Tensor Tensor::scalar(double value, DType dtype) { return from_f64({value}, {}, dtype); }

std::vector<double> Tensor::to_f64() const {
  if (device().kind != DeviceKind::cpu) return to(Device::cpu()).to_f64();
  std::vector<double> v(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) v[i] = load_as_f64(raw(), dtype(), i);
  return v;
}

Tensor Tensor::to(Device d) const {
  if (d == device()) return *this;
  Tensor t = empty(shape(), dtype(), d);
  if (device().kind == DeviceKind::cpu && d.kind == DeviceKind::cpu) {
    std::memcpy(t.raw(), raw(), nbytes());  // between the CPU's memory kinds: host memory
    return t;
  }
  if (!device_copy())
    throw_unsupported(cat("no copy path from ", device().str(), " to ", d.str()),
                      "build with CUDA and run on a machine with a GPU");
  device_copy()(t.raw(), d, raw(), device(), nbytes());
  return t;
}

Tensor Tensor::view(const Shape& shape) const {
  TANDEM_CHECK(num_elements(shape) == numel(), "view of different element count");
  Tensor t = *this;
  t.type_.shape = shape;
  return t;
}

}  // namespace tandem
