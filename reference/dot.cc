// dot_general: for each output element, a plain loop over the contracting index space.
#include "reference/dot.h"

#include <string>

#include "reference/rounding.h"

namespace tandem::ref {
namespace {

// Checks that dims are distinct, in range for x, and not already used; marks them used.
void claim_axes(const char* side, const char* kind, const std::vector<int64_t>& dims,
                const Array& x, std::vector<bool>& used) {
  for (int64_t d : dims) {
    require(d >= 0 && d < x.rank() && !used[d],
            std::string("dot_general: ") + side + " " + kind + " dims " + shape_string(dims) +
                " invalid for " + side + " " + shape_string(x.shape) +
                " (in range, each axis used once)");
    used[d] = true;
  }
}

std::vector<int64_t> free_axes(const std::vector<bool>& used) {
  std::vector<int64_t> free;
  for (size_t d = 0; d < used.size(); ++d)
    if (!used[d]) free.push_back(static_cast<int64_t>(d));
  return free;
}

}  // namespace

Array dot_general(const Array& lhs, const Array& rhs, const DotDims& dims, DType out_dtype) {
  check_array(lhs, "dot_general lhs");
  check_array(rhs, "dot_general rhs");
  require(lhs.dtype != DType::pred && rhs.dtype != DType::pred && out_dtype != DType::pred,
          "dot_general: pred is not supported");
  require(dims.lhs_contract.size() == dims.rhs_contract.size(),
          "dot_general: lhs_contract and rhs_contract differ in length");
  require(dims.lhs_batch.size() == dims.rhs_batch.size(),
          "dot_general: lhs_batch and rhs_batch differ in length");
  std::vector<bool> lhs_used(lhs.shape.size(), false), rhs_used(rhs.shape.size(), false);
  claim_axes("lhs", "batch", dims.lhs_batch, lhs, lhs_used);
  claim_axes("lhs", "contracting", dims.lhs_contract, lhs, lhs_used);
  claim_axes("rhs", "batch", dims.rhs_batch, rhs, rhs_used);
  claim_axes("rhs", "contracting", dims.rhs_contract, rhs, rhs_used);
  for (size_t i = 0; i < dims.lhs_batch.size(); ++i)
    require(lhs.shape[dims.lhs_batch[i]] == rhs.shape[dims.rhs_batch[i]],
            "dot_general: batch sizes differ: lhs " + shape_string(lhs.shape) + " rhs " +
                shape_string(rhs.shape));
  std::vector<int64_t> contract_shape;  // [K0, K1, ...], the contracting index space
  for (size_t i = 0; i < dims.lhs_contract.size(); ++i) {
    require(lhs.shape[dims.lhs_contract[i]] == rhs.shape[dims.rhs_contract[i]],
            "dot_general: contracting sizes differ: lhs " + shape_string(lhs.shape) + " rhs " +
                shape_string(rhs.shape));
    contract_shape.push_back(lhs.shape[dims.lhs_contract[i]]);
  }
  const std::vector<int64_t> lhs_free = free_axes(lhs_used), rhs_free = free_axes(rhs_used);

  // Each output axis, and each contracting axis, advances lhs and rhs by these strides.
  const auto ls = row_major_strides(lhs.shape), rs = row_major_strides(rhs.shape);
  std::vector<int64_t> out_shape, out_lstride, out_rstride;
  for (size_t i = 0; i < dims.lhs_batch.size(); ++i) {
    out_shape.push_back(lhs.shape[dims.lhs_batch[i]]);
    out_lstride.push_back(ls[dims.lhs_batch[i]]);
    out_rstride.push_back(rs[dims.rhs_batch[i]]);
  }
  for (int64_t d : lhs_free) {
    out_shape.push_back(lhs.shape[d]);
    out_lstride.push_back(ls[d]);
    out_rstride.push_back(0);
  }
  for (int64_t d : rhs_free) {
    out_shape.push_back(rhs.shape[d]);
    out_lstride.push_back(0);
    out_rstride.push_back(rs[d]);
  }
  std::vector<int64_t> k_lstride, k_rstride;
  for (size_t i = 0; i < dims.lhs_contract.size(); ++i) {
    k_lstride.push_back(ls[dims.lhs_contract[i]]);
    k_rstride.push_back(rs[dims.rhs_contract[i]]);
  }

  const bool integer =
      lhs.dtype == DType::i32 && rhs.dtype == DType::i32 && out_dtype == DType::i32;
  const int64_t n = shape_numel(out_shape), k_count = shape_numel(contract_shape);
  Array out{out_shape, out_dtype, std::vector<double>(static_cast<size_t>(n))};
  std::vector<int64_t> o(out_shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat, next_index(o, out_shape)) {
    const int64_t l0 = flat_offset(o, out_lstride), r0 = flat_offset(o, out_rstride);
    long double sum = 0.0L;
    uint64_t isum = 0;  // i32 path: wraps modulo 2^64, hence also modulo 2^32
    std::vector<int64_t> k(contract_shape.size(), 0);
    for (int64_t kk = 0; kk < k_count; ++kk, next_index(k, contract_shape)) {
      const double a = lhs.data[l0 + flat_offset(k, k_lstride)];
      const double b = rhs.data[r0 + flat_offset(k, k_rstride)];
      if (integer)
        isum += static_cast<uint64_t>(static_cast<int64_t>(a)) *
                static_cast<uint64_t>(static_cast<int64_t>(b));
      else
        sum += static_cast<long double>(a) * static_cast<long double>(b);
    }
    out.data[flat] = integer
                         ? static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(isum)))
                         : round_to(out_dtype, static_cast<double>(sum));
  }
  return out;
}

}  // namespace tandem::ref
