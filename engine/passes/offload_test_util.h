// The model the offload tests share (engine/passes/offload_test.cc on the CPU,
// engine/cuda/offload_cuda_test.cc on a GPU): L checkpointed layers x <- silu(x·W_i),
// naming pre = x·W_i and act, loss = sum(x²)/2, with fixed inputs.
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ir/builder.h"
#include "engine/prims/checkpoint.h"

namespace tandem::offload_test {

inline Program layers(int L, int64_t n, const std::string& policy) {
  using V = std::vector<Value>;
  AType x{{n, n}, DType::f32};
  Program layer = trace({x, x}, [](Builder&, const V& v) {
    Value pre = checkpoint_name(dot(v[0], v[1]), "pre");
    return V{checkpoint_name(pre * logistic(pre), "act")};  // silu: its derivative reads pre
  });
  return trace(std::vector<AType>(size_t(L) + 1, x), [&](Builder&, const V& v) {
    Value h = v[0];
    for (int i = 0; i < L; ++i) h = checkpoint(layer, {h, v[size_t(i) + 1]}, policy)[0];
    return V{reduce_sum(h * h, {0, 1}) * 0.5};
  });
}

inline std::vector<Tensor> inputs(int L, int64_t n, Device d = Device::cpu()) {
  std::vector<Tensor> in;
  for (int i = 0; i <= L; ++i) {
    std::vector<double> v(size_t(n * n));
    for (size_t k = 0; k < v.size(); ++k) v[k] = 0.1 * double((k * 7 + size_t(i) * 13) % 17) / 17.0 - 0.05;
    in.push_back(Tensor::from_f64(v, {n, n}, DType::f32).to(d));
  }
  return in;
}

// Pairs of an offloading policy and the policy that saves the same values on the device.
inline const std::vector<std::pair<std::string, std::string>>& offload_vs_save() {
  static const std::vector<std::pair<std::string, std::string>> p = {
      {"save_and_offload_only_these_names(act|pre)", "save_only_these_names(act,pre)"},
      {"offload_dot_with_no_batch_dims(device,pinned_host)", "dots_with_no_batch_dims_saveable"}};
  return p;
}

}  // namespace tandem::offload_test
