// CUBLAS_WORKSPACE_CONFIG is set for cuBLAS before any handle exists, unless the user chose
// one (cublas_env.h). No GPU needed: only the process environment is read and written.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "engine/cuda/cublas_env.h"

namespace tandem {
namespace {

TEST(CublasEnv, SetsTheWorkspaceConfigWhenUnset) {
  unsetenv("CUBLAS_WORKSPACE_CONFIG");
  EXPECT_TRUE(default_cublas_workspace_config());
  ASSERT_NE(std::getenv("CUBLAS_WORKSPACE_CONFIG"), nullptr);
  EXPECT_EQ(std::string(std::getenv("CUBLAS_WORKSPACE_CONFIG")), ":4096:8");
  EXPECT_FALSE(default_cublas_workspace_config());  // once set, left alone
}

TEST(CublasEnv, KeepsTheUsersChoice) {
  setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8", 1);
  EXPECT_FALSE(default_cublas_workspace_config());
  EXPECT_EQ(std::string(std::getenv("CUBLAS_WORKSPACE_CONFIG")), ":16:8");
  unsetenv("CUBLAS_WORKSPACE_CONFIG");
}

}  // namespace
}  // namespace tandem
