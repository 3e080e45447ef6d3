// The CUDA-side CHECK macros (engine/core/check_cuda.h, check_cudnn.h) on real library error codes: each throws an
// internal Error naming the expression, file:line, host, rank, device and the library's own error string. Needs the
// CUDA libraries, not a GPU: without a device the current device reads "unknown", with one it is its ordinal.
#include <gtest/gtest.h>

#include <string>

#include "engine/core/check_cuda.h"
#include "engine/core/check_test_util.h"
#if TANDEM_HAVE_CUDNN
#include "engine/core/check_cudnn.h"
#endif

namespace tandem {
namespace cuda_test {
void launch_with_bad_config();  // check_launch_probe.cu
}
namespace {

void expect_place(const std::string& m, int line) {
  EXPECT_NE(m.find(cat(__FILE__, ":", line, " [host ")), std::string::npos) << m;
  EXPECT_NE(m.find(", rank "), std::string::npos) << m;
  EXPECT_NE(m.find(", cuda device "), std::string::npos) << m;
}

TEST(CheckCuda, CudaCheckNamesTheCallAndTheRuntimeError) {
  int line = 0;
  std::string m = check::failure_message_of([&] { line = __LINE__; CUDA_CHECK(cudaErrorInvalidValue); });
  EXPECT_EQ(m.rfind("CUDA call failed: cudaErrorInvalidValue at ", 0), 0u) << m;
  EXPECT_NE(m.find(std::string("]: ") + cudaGetErrorString(cudaErrorInvalidValue)), std::string::npos) << m;
  expect_place(m, line);
}

TEST(CheckCuda, CublasCheckNamesTheStatus) {
  int line = 0;
  std::string m = check::failure_message_of([&] { line = __LINE__; CUBLAS_CHECK(CUBLAS_STATUS_NOT_INITIALIZED); });
  EXPECT_EQ(m.rfind("cuBLAS call failed: CUBLAS_STATUS_NOT_INITIALIZED at ", 0), 0u) << m;
  EXPECT_NE(m.find(cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED)), std::string::npos) << m;
  expect_place(m, line);
}

#if TANDEM_HAVE_CUDNN
TEST(CheckCuda, CudnnCheckNamesTheStatus) {
  int line = 0;
  std::string m = check::failure_message_of([&] { line = __LINE__; CUDNN_CHECK(CUDNN_STATUS_BAD_PARAM); });
  EXPECT_EQ(m.rfind("cuDNN call failed: CUDNN_STATUS_BAD_PARAM at ", 0), 0u) << m;
  EXPECT_NE(m.find(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM)), std::string::npos) << m;
  expect_place(m, line);
}
#endif

TEST(CheckCuda, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(CUBLAS_CHECK(CUBLAS_STATUS_SUCCESS));
}

TEST(CheckCuda, LaunchCheckReportsABadLaunchAtTheLaunch) {
  std::string m = check::failure_message_of([] { cuda_test::launch_with_bad_config(); });
  EXPECT_EQ(m.rfind("CUDA call failed: kernel launch (cudaGetLastError) at ", 0), 0u) << m;
  EXPECT_NE(m.find("check_launch_probe.cu:"), std::string::npos) << m;
  EXPECT_NE(m.find(", cuda device "), std::string::npos) << m;
}

}  // namespace
}  // namespace tandem
