// cuBLAS opened on first use instead of linked: linking libcublas makes every process that links the engine run
// cuBLASLt's load-time initialisation (≈ 25,000 page faults, 80–110 ms of CPU per process on a KVM guest) though most
// never touch a GPU: every `tandem` call and test binary of a CPU run. The entry points tandem calls are defined here
// with cublas_api.h's own declarations in scope, so one whose signature drifts from the header does not compile; each
// forwards to the library opened by its soname (the loader's path, as a linked library would be found), then by the
// path it was built against.
#include <cublas_v2.h>
#include <dlfcn.h>

#include <atomic>
#include <string>

#include "engine/core/error.h"

namespace tandem {
namespace {

void* cublas_library() {
  static void* const handle = [] {
    const std::string soname = cat("libcublas.so.", CUBLAS_VER_MAJOR);
    void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    return h ? h : dlopen(cat(TANDEM_CUBLAS_DIR, "/", soname).c_str(), RTLD_NOW | RTLD_LOCAL);
  }();
  return handle;
}

// The library's function of this name, resolved once into its entry point's slot (dlsym takes the loader's lock: not
// on every GEMM); nullptr when the library or the symbol is missing.
template <class F>
F find(std::atomic<void*>& slot, const char* name) {
  void* f = slot.load(std::memory_order_acquire);
  if (!f && cublas_library()) slot.store(f = dlsym(cublas_library(), name), std::memory_order_release);
  return reinterpret_cast<F>(f);
}

// Calls the library's function of this name with the forwarding definition's own parameter types (the header's).
template <class R, class... A>
R call(std::atomic<void*>& slot, const char* name, A... args) {
  if (auto f = find<R (*)(A...)>(slot, name)) return f(args...);
  throw Error(ErrorKind::internal, cat("cuBLAS: ", name, " not found (libcublas.so.", CUBLAS_VER_MAJOR, ")"),
              cat("the CUDA backend opens cuBLAS on first use; put its directory (built against ", TANDEM_CUBLAS_DIR,
                  ") on LD_LIBRARY_PATH"));
}

}  // namespace
}  // namespace tandem

using tandem::call;
using tandem::find;

extern "C" {  // a definition whose parameters differ from the header's declaration is a compile error

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  static std::atomic<void*> slot;
  return call<cublasStatus_t>(slot, "cublasCreate_v2", handle);
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  static std::atomic<void*> slot;
  return call<cublasStatus_t>(slot, "cublasSetMathMode", handle, mode);
}

// Never throws: the records' context asks for the version of whatever is installed (cuda_info.h).
cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  static std::atomic<void*> slot;
  auto f = find<cublasStatus_t (*)(libraryPropertyType, int*)>(slot, "cublasGetProperty");
  return f ? f(type, value) : CUBLAS_STATUS_NOT_INITIALIZED;
}

const char* cublasGetStatusString(cublasStatus_t status) {
  static std::atomic<void*> slot;
  auto f = find<const char* (*)(cublasStatus_t)>(slot, "cublasGetStatusString");
  return f ? f(status) : "cuBLAS status (libcublas could not be opened)";
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void* alpha, const void* a, cudaDataType at, int lda, const void* b, cudaDataType bt,
                            int ldb, const void* beta, void* c, cudaDataType ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t algo) {
  static std::atomic<void*> slot;
  return call<cublasStatus_t>(slot, "cublasGemmEx", h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc,
                              compute, algo);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                          int k, const void* alpha, const void* a, cudaDataType at, int lda,
                                          long long int sa, const void* b, cudaDataType bt, int ldb, long long int sb,
                                          const void* beta, void* c, cudaDataType ct, int ldc, long long int sc,
                                          int batches, cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  static std::atomic<void*> slot;
  return call<cublasStatus_t>(slot, "cublasGemmStridedBatchedEx", h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb,
                              sb, beta, c, ct, ldc, sc, batches, compute, algo);
}

}  // extern "C"
