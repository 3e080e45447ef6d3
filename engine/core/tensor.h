// Tensor: a dense row-major array of one dtype on one device. Memory comes from the
// Allocator and is shared by copies of the handle (values are immutable once produced).
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "engine/core/allocator.h"
#include "engine/core/half.h"
#include "engine/core/shape.h"

namespace tandem {

class Buffer {
 public:
  Buffer(Device d, size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Device device() const { return device_; }

 private:
  Device device_;
  size_t bytes_;
  void* data_;
};

// Host<->device copies; the CUDA backend registers them.
using CopyFn = std::function<void(void* dst, Device dst_dev, const void* src, Device src_dev, size_t bytes)>;
void register_device_copy(CopyFn fn);

class Tensor {
 public:
  Tensor() = default;
  static Tensor empty(const Shape& shape, DType dtype, Device device = Device::cpu());
  static Tensor zeros(const Shape& shape, DType dtype, Device device = Device::cpu());
  // Host tensor from f64 values, rounded to dtype (RNE for bf16/f16, truncation for i32).
  static Tensor from_f64(const std::vector<double>& values, const Shape& shape, DType dtype);
  static Tensor scalar(double value, DType dtype);

  const AType& type() const { return type_; }
  const Shape& shape() const { return type_.shape; }
  DType dtype() const { return type_.dtype; }
  int rank() const { return type_.rank(); }
  int64_t numel() const { return num_elements(type_.shape); }
  size_t nbytes() const { return size_t(numel()) * dtype_size(type_.dtype); }
  Device device() const { return buffer_ ? buffer_->device() : Device::cpu(); }
  bool defined() const { return bool(buffer_); }

  void* raw() const { return buffer_ ? buffer_->data() : nullptr; }
  template <class T> T* data() const { return static_cast<T*>(raw()); }

  // Host copy of the values as f64 (exact for every dtype tandem has).
  std::vector<double> to_f64() const;
  Tensor to(Device d) const;
  // Same buffer, new shape of equal element count (reshape is free).
  Tensor view(const Shape& shape) const;

 private:
  AType type_;
  std::shared_ptr<Buffer> buffer_;
};

// Reads element i of a host tensor as double / writes double rounded to the dtype.
double load_as_f64(const void* base, DType t, int64_t i);
void store_from_f64(void* base, DType t, int64_t i, double v);

}  // namespace tandem
