// CUDA device discovery and library versions for the records (engine/cuda/cuda_info.h), plus
// the backend's device helpers (engine/cuda/cuda_device.h). The info functions never throw:
// without a driver or GPU they report 0 devices and empty strings.
#include "engine/cuda/cuda_info.h"

#include <map>
#include <mutex>

#include "engine/core/check_cuda.h"
#include "engine/cuda/cublas_env.h"
#include "engine/cuda/cuda_device.h"
#include "engine/cuda/device_faults.h"
#if TANDEM_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace tandem {
namespace {

struct Probe {
  int count = 0;
  cudaError_t error = cudaSuccess;  // why count is 0
};

// Probed once: the visible devices do not change within a process.
const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    r.error = cudaGetDeviceCount(&r.count);
    if (r.error != cudaSuccess) {
      (void)cudaGetLastError();
      r.count = 0;
    } else if (r.count == 0) {
      r.error = cudaErrorNoDevice;
    }
    return r;
  }();
  return p;
}

// CUDA encodes versions as 1000 * major + 10 * minor.
std::string cuda_version_str(int v) {
  if (v <= 0) return "";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

int cuda_device_count() { return probe().count; }

std::string cuda_unavailable_reason(int index) {
  const Probe& p = probe();
  if (p.count == 0) {
    std::string driver = cuda_driver_version();
    return cat("no usable CUDA device: ", cudaGetErrorString(p.error), " (CUDA runtime ", cuda_runtime_version(),
               driver.empty() ? ", no CUDA driver loaded)" : ", driver supports CUDA " + driver + ")");
  }
  if (index < 0 || index >= p.count) return cat("cuda:", index, " requested but ", p.count, " CUDA device(s) visible");
  return "";
}

std::string cuda_device_name(int index) {
  if (index < 0 || index >= probe().count) return "";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return prop.name;
}

std::string cuda_runtime_version() {
  int v = 0;
  return cudaRuntimeGetVersion(&v) == cudaSuccess ? cuda_version_str(v) : "";
}

std::string cuda_driver_version() {
  int v = 0;  // stays 0 when no driver is installed
  return cudaDriverGetVersion(&v) == cudaSuccess ? cuda_version_str(v) : "";
}

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
    return "";
  return cat(major, ".", minor, ".", patch);
}

std::string cudnn_version() {
#if TANDEM_HAVE_CUDNN
  size_t v = cudnnGetVersion();  // the loaded library's, not the header's
  if (v >= 90000) return cat(v / 10000, ".", (v % 10000) / 100, ".", v % 100);  // cuDNN 9+
  return cat(v / 1000, ".", (v % 1000) / 100, ".", v % 100);
#else
  return "";
#endif
}

void cuda_synchronize(int index) {
  use_cuda_device(index);
  CUDA_CHECK(cudaDeviceSynchronize());
  check_device_faults(index);
}

void use_cuda_device(int index) {
  const Probe& p = probe();
  if (p.count == 0)
    throw_unsupported(cat("cuda:", index, ": no CUDA device: ", cudaGetErrorString(p.error)),
                      "run on a machine with a GPU");
  if (index < 0 || index >= p.count)
    throw_bad_input(cat("cuda:", index, " requested but ", p.count, " CUDA device(s) visible"),
                    "pick an index below the device count (see CUDA_VISIBLE_DEVICES)");
  CUDA_CHECK(cudaSetDevice(index));
}

cublasHandle_t cublas_handle(int index) {
  use_cuda_device(index);
  static std::mutex mu;
  static std::map<int, cublasHandle_t> handles;
  std::lock_guard<std::mutex> g(mu);
  cublasHandle_t& h = handles[index];
  if (!h) h = create_cublas_handle();
  return h;
}

}  // namespace tandem
