// MPI_CHECK and NCCL_CHECK (engine/core/check_mpi.h, check_nccl.h) on real error codes under
// mpirun: the message names the call, file:line, host, this rank and the library's words.
#include <gtest/gtest.h>

#include <string>

#include "engine/comm/mpi_communicator.h"
#include "engine/core/check_mpi.h"
#include "engine/core/check_test_util.h"
#if defined(TANDEM_HAVE_NCCL)
#include "engine/core/check_nccl.h"
#endif

namespace tandem {
namespace {

std::string rank_part() { return cat(", rank ", comm::mpi_world().rank()); }

TEST(CheckComm, MpiCheckNamesCallRankAndMpiError) {
  int line = 0;
  std::string m = check::failure_message_of([&] { line = __LINE__; MPI_CHECK(MPI_ERR_ARG); });
  EXPECT_EQ(m.rfind("MPI call failed: MPI_ERR_ARG at ", 0), 0u) << m;
  EXPECT_NE(m.find(cat(__FILE__, ":", line, " [host ", comm::host_name(), rank_part(), "]: ")), std::string::npos) << m;
  EXPECT_NE(m.find(check::mpi_error_string(MPI_ERR_ARG)), std::string::npos) << m;
}

#if defined(TANDEM_HAVE_NCCL)
TEST(CheckComm, NcclCheckNamesCallRankDeviceAndNcclError) {
  int line = 0;
  std::string m = check::failure_message_of([&] { line = __LINE__; NCCL_CHECK(ncclInvalidArgument); });
  EXPECT_EQ(m.rfind("NCCL call failed: ncclInvalidArgument at ", 0), 0u) << m;
  EXPECT_NE(m.find(cat(__FILE__, ":", line, " [host ", comm::host_name(), rank_part(), ", cuda device ")),
            std::string::npos) << m;
  EXPECT_NE(m.find(ncclGetErrorString(ncclInvalidArgument)), std::string::npos) << m;
}
#endif

}  // namespace
}  // namespace tandem
