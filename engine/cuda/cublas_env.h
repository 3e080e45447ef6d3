// Where every cuBLAS handle of the process is made (the engine's per-device handles and the dot suite's cublasGemmEx
// baseline), after pinning cuBLAS's workspace configuration; the cuDNN handle is made after it too (lstm_cudnn.cc).
#pragma once
#include <cublas_v2.h>

namespace tandem {

// The workspace configuration tandem asks of cuBLAS when the user has not chosen one.
inline constexpr const char* kCublasWorkspaceConfig = ":4096:8";

// Sets CUBLAS_WORKSPACE_CONFIG to kCublasWorkspaceConfig unless it is already set (the user's choice wins); true when
// it set it. cuBLAS reads the variable when a handle is made: with a fixed workspace per stream its GEMMs give
// bit-identical results from run to run, even on streams other than the default (NVIDIA's cuBLAS docs, "Results
// reproducibility"), which the determinism tests and the same-run engine/baseline comparisons rely on.
bool default_cublas_workspace_config();

// cublasCreate on the current device, after default_cublas_workspace_config().
cublasHandle_t create_cublas_handle();

}  // namespace tandem
