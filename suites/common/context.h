// The run context each record carries: git sha, compiler, BLAS, CUDA/cuBLAS/cuDNN/NCCL/MPI
// versions when present, GPU, host, ranks — what a history needs to tell runs apart.
#pragma once
#include <nlohmann/json.hpp>

namespace tandem {
nlohmann::json run_context();
}
