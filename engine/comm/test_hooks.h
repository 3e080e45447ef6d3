// Test-only fault hooks, compiled in only with TANDEM_TEST_HOOKS (builds with tests, see
// engine/comm/CMakeLists.txt); elsewhere test_point() does nothing. They let the hang tests
// (runners/launch/hang_test.sh) put one rank into a failure or a stall that real clusters
// produce (a failed MPI call, a rank stopped inside a call) at a chosen place:
//   TANDEM_TEST_HOOK=ACTION:POINT:RANK[:NTH]
// makes world rank RANK, the NTH time (default 1) it reaches POINT, either throw an
// internal error as a failed MPI call would (ACTION fail) or sleep for ever inside the
// watched call (ACTION stall). POINT is an MPI call by name (MPI_Init, MPI_Allreduce,
// MPI_Allgather, MPI_Barrier, MPI_Comm_split ...), a sweep op (mpi_allreduce, psum ...)
// or end_job.
#pragma once

namespace tandem::comm {

void test_point(const char* point);

}  // namespace tandem::comm
