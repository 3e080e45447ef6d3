// CUDA dot_general (see dot_cuda.h). Operands already in a GEMM layout go to cuBLAS as they are, transposed ones
// through op flags; other layouts are gathered into canonical order by the same kernel that casts or splits them.
// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ, so every GEMM passes B first.
#include "engine/cuda/dot_cuda.h"

#include <climits>
#include <numeric>

#include "engine/core/error.h"
#include "engine/core/check_cuda.h"
#include "engine/cuda/cublas_modes.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/dot_kernels.h"
#include "engine/prims/dot_general.h"

namespace tandem::cuda_impl {
namespace {

// 1: perm is the identity; 2: the identity with the two non-batch axis groups swapped (a
// transposed matrix); 0: needs a gather. Same rule as the CPU engine.
int gemm_layout(const std::vector<int64_t>& perm, size_t n_batch, size_t n_first) {
  std::vector<int64_t> id(perm.size()), swapped(perm.size());
  std::iota(id.begin(), id.end(), 0);
  if (perm == id) return 1;
  size_t n_second = perm.size() - n_batch - n_first;
  std::iota(swapped.begin(), swapped.begin() + long(n_batch), 0);
  for (size_t i = 0; i < n_first; ++i) swapped[n_batch + i] = int64_t(n_batch + n_second + i);
  for (size_t i = 0; i < n_second; ++i) swapped[n_batch + n_first + i] = int64_t(n_batch + i);
  return perm == swapped ? 2 : 0;
}

// The gather reading x in perm order, with size-1 axes dropped and axes that are adjacent in
// memory merged, so realistic permutations stay well under kMaxGatherRank.
Gather gather_for(const Tensor& x, const std::vector<int64_t>& perm) {
  Shape st = row_major_strides(x.shape());
  std::vector<std::pair<int64_t, int64_t>> axes;  // (size, source stride), outer first
  for (int64_t a : perm) {
    int64_t d = x.shape()[size_t(a)], s = st[size_t(a)];
    if (d == 1) continue;
    if (!axes.empty() && axes.back().second == s * d) axes.back() = {axes.back().first * d, s};
    else axes.push_back({d, s});
  }
  if (axes.size() > size_t(kMaxGatherRank))
    throw_unsupported(cat("dot_general on CUDA: operand ", x.type().str(), " needs a ",
                          axes.size(), "-axis permutation (at most ", kMaxGatherRank, ")"),
                      "transpose the operand into batch/free/contract order first");
  Gather g;
  if (axes.empty() || (axes.size() == 1 && axes[0].second == 1)) return g;  // in order
  g.rank = int(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    g.dims[i] = axes[i].first;
    g.strides[i] = axes[i].second;
  }
  return g;
}

// One batched operand as cuBLAS sees it: [rows, cols] matrices, stored transposed or not.
struct DevMat {
  const void* data = nullptr;
  DType type = DType::f32;
  bool trans = false;
  Tensor hold;  // the converted copy, when one was needed
};

// x as `parts` batched matrices of `type` in a GEMM layout: zero-copy when x already is one.
std::vector<DevMat> as_matrices(const Tensor& x, const std::vector<int64_t>& perm, size_t n_batch, size_t n_first,
                                DType type, SplitKind split, int parts) {
  int layout = gemm_layout(perm, n_batch, n_first);
  if (split == SplitKind::none && layout != 0 && x.dtype() == type) return {DevMat{x.raw(), type, layout == 2, x}};
  Gather g = layout == 0 ? gather_for(x, perm) : Gather{};
  std::vector<DevMat> mats(static_cast<size_t>(parts));
  PartPointers dst;
  for (int q = 0; q < parts; ++q) {
    DevMat& m = mats[size_t(q)];
    m.hold = Tensor::empty({x.numel()}, type, x.device());
    m.data = dst.p[q] = m.hold.raw();
    m.type = type;
    m.trans = layout == 2;
  }
  convert_operand(x.raw(), x.dtype(), g, x.numel(), dst, type, split, parts);
  return mats;
}

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::f64: return CUDA_R_64F;
    case DType::f32: return CUDA_R_32F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::f16: return CUDA_R_16F;
    default: throw Error(ErrorKind::internal, cat("no cuBLAS type for ", dtype_name(t)));
  }
}

int as_int(int64_t v, const char* what) {
  if (v > INT_MAX)
    throw_unsupported(cat("dot_general on CUDA: ", what, " = ", v, " exceeds cuBLAS's int range"),
                      "split the problem into smaller GEMMs");
  return int(v < 1 ? 1 : v);
}

// c[b] (+)= a[b] · b[b] for every batch, row-major, with the preset's compute type.
void gemm(int device, const DevMat& a, const DevMat& b, void* c, DType c_type,
          const cpu::DotPlan& p, const CublasMode& mode, bool accumulate) {
  const cublasComputeType_t compute = mode.compute;
  int m = as_int(p.m, "m"), n = as_int(p.n, "n"), k = as_int(p.k, "k");
  int batch = as_int(p.batch, "batch");
  double alpha_d = 1.0, beta_d = accumulate ? 1.0 : 0.0;
  float alpha_f = 1.0f, beta_f = accumulate ? 1.0f : 0.0f;
  uint16_t alpha_h = 0x3c00, beta_h = accumulate ? 0x3c00 : 0;  // f16 1.0 and 0.0
  const void *alpha = &alpha_f, *beta = &beta_f;
  if (compute == CUBLAS_COMPUTE_64F) alpha = &alpha_d, beta = &beta_d;
  if (compute == CUBLAS_COMPUTE_16F) alpha = &alpha_h, beta = &beta_h;
  // Column-major view: Bᵀ is n×k (ld n, or k when B is stored transposed), Aᵀ is k×m.
  cublasHandle_t h = cublas_handle(device);
  apply_math_mode(h, mode);
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(h, b.trans ? CUBLAS_OP_T : CUBLAS_OP_N, a.trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                                          n, m, k, alpha, b.data, cuda_type(b.type), b.trans ? k : n, p.k * p.n, a.data,
                                          cuda_type(a.type), a.trans ? m : k, p.m * p.k, beta, c, cuda_type(c_type), n,
                                          p.m * p.n, batch, compute, CUBLAS_GEMM_DEFAULT));
}

// Partial products of split operands, smallest first (parts 0 = hi, 1 = mid, 2 = lo; X3 has
// hi and lo only). hi·hi comes last. The same order as the CPU engine.
std::vector<std::pair<int, int>> split_products(int parts, int products) {
  if (parts == 2) return {{1, 0}, {0, 1}, {0, 0}};
  std::vector<std::pair<int, int>> x9 = {{2, 2}, {1, 2}, {2, 1}, {1, 1}, {2, 0}, {0, 2}, {1, 0}, {0, 1}, {0, 0}};
  return std::vector<std::pair<int, int>>(x9.end() - products, x9.end());
}

}  // namespace

Tensor dot_general(const Tensor& lhs_in, const Tensor& rhs_in, const cpu::DotPlan& p,
                   DotAlgorithm alg, DType out_dtype, Device device) {
  using A = DotAlgorithm;
  if (alg == A::DEFAULT)
    throw_unsupported("dot_general: integer operands have no CUDA impl (cuBLAS has no exact "
                      "i32 GEMM)", "run integer dot_general on the cpu backend");
  const AlgorithmInfo& info = algorithm_info(alg);
  use_cuda_device(device.index);
  if (p.batch * p.m * p.n == 0) return Tensor::empty(p.out_shape, out_dtype, device);
  if (p.k == 0) {  // an empty sum: zero bits are 0 in every float dtype; no host upload
    Tensor zero = Tensor::empty(p.out_shape, out_dtype, device);
    CUDA_CHECK(cudaMemsetAsync(zero.raw(), 0, zero.nbytes(), 0));
    return zero;
  }
  Tensor lhs = lhs_in.to(device), rhs = rhs_in.to(device);
  int dev = device.index;

  auto operands = [&](DType type, SplitKind split, int parts) {
    return std::pair{as_matrices(lhs, p.lhs_perm, p.n_batch, p.n_lhs_free, type, split, parts),
                     as_matrices(rhs, p.rhs_perm, p.n_batch, p.n_contract, type, split, parts)};
  };
  DType acc_type = info.accumulation == DType::f64 ? DType::f64 : alg == A::F16_F16_F16 ? DType::f16 : DType::f32;
  Tensor acc = Tensor::empty(p.out_shape, acc_type, device);

  if (info.split != SplitFormat::none) {
    bool bf = info.split == SplitFormat::bf16;
    auto [al, br] = operands(bf ? DType::bf16 : DType::f32, bf ? SplitKind::bf16 : SplitKind::tf32, info.parts);
    const CublasMode mode = *cublas_mode(alg);  // every split preset has a row
    // Small cross terms first; their NaNs (Inf in hi times a zero lo) are zeroed before
    // hi·hi adds the real Inf or NaN back, as the CPU engine (and XLA's split) does.
    auto products = split_products(info.parts, info.products);
    for (size_t t = 0; t + 1 < products.size(); ++t)
      gemm(dev, al[size_t(products[t].first)], br[size_t(products[t].second)], acc.raw(), DType::f32, p, mode, t > 0);
    zero_nans(acc.data<float>(), acc.numel());
    gemm(dev, al[0], br[0], acc.raw(), DType::f32, p, mode, true);
  } else if (alg == A::BF16_BF16_BF16) {
    auto [al, br] = operands(DType::bf16, SplitKind::none, 1);
    gemm_bf16_accumulate(static_cast<const uint16_t*>(al[0].data), al[0].trans,
                         static_cast<const uint16_t*>(br[0].data), br[0].trans, acc.data<float>(),
                         p.batch, p.m, p.n, p.k);
  } else {
    std::optional<CublasMode> mode = cublas_mode(alg);
    if (!mode)
      throw_unsupported(cat("dot_general: ", info.name, " has no CUDA impl"),
                        "pick another preset (tandem list --algorithms)");
    // TF32 operands are rounded to tf32 (RNE) here, not left to cuBLAS (dot_kernels.h).
    auto [al, br] = operands(info.storage, info.tf32_inputs ? SplitKind::round_tf32 : SplitKind::none, 1);
    gemm(dev, al[0], br[0], acc.raw(), acc_type, p, *mode, false);
  }
  if (acc_type == out_dtype) return acc;
  Tensor out = Tensor::empty(p.out_shape, out_dtype, device);
  convert(acc.raw(), acc_type, out.raw(), out_dtype, acc.numel());
  return out;
}

std::vector<Tensor> dot_general_impl(const std::vector<Tensor>& in, const Params& params, EvalContext& ctx) {
  DotSignature s = dot_signature({in[0].type(), in[1].type()}, params);
  DotAlgorithm alg = resolve_dot_algorithm(s.precision, s.input_dtype, s.out_dtype, DeviceKind::cuda);
  cpu::DotPlan plan = cpu::plan_dot(in[0].shape(), in[1].shape(), s.lhs_contract,
                                    s.rhs_contract, s.lhs_batch, s.rhs_batch);
  return {dot_general(in[0], in[1], plan, alg, s.out_dtype, ctx.device)};
}

}  // namespace tandem::cuda_impl
