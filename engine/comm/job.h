// The job as a whole under a launcher (mpirun, srun): one job watchdog that every blocking
// call tandem makes arms (MPI_Init, communicator splits, argument agreements, barriers,
// collectives, the sweep's raw MPI baselines, the end of the job), and the agreed end of
// the job, end_job(), so that a failure on one rank ends every rank with exit 5 instead of
// leaving the others waiting forever. Timeout: --watchdog-timeout, default 300 s.
#pragma once
#include <string>
#include <string_view>

#include <mpi.h>

#include "engine/comm/watchdog.h"

namespace tandem::comm {

// Seconds a blocking call may stall (and ranks may wait for each other at the end of the
// job) before the job aborts with exit 5. Set before MPI starts to cover MPI_Init too.
void set_job_timeout(double seconds);
double job_timeout_s();
Watchdog& job_watchdog();  // started on first use

// "rank 1 of 4 (host h)": MPI_COMM_WORLD's rank once MPI is up, the launcher's before.
std::string rank_label();
// Ends every rank: MPI_Abort on MPI_COMM_WORLD when MPI is up, else this process's exit.
[[noreturn]] void abort_job(int code);

// mpi_communicator.cc: MPI_Init under the job watchdog, then the world's rank and size and
// a duplicate of MPI_COMM_WORLD kept for the end of the job (its exchange then cannot match
// a collective another rank is stuck in).
void init_mpi_job();

// The end of the job on this rank, called by main() with the rank's exit code: every rank
// posts its code in a non-blocking exchange; when all have arrived within the job timeout,
// MPI is finalised and the highest code is returned (the same on every rank). When some
// rank has not arrived by then (it failed, or waits in a collective this rank never
// entered) this rank says so and aborts the job with exit 5. Without MPI: returns code.
int end_job(int code);

// Arms the job watchdog for one MPI call on c (described as "MPI_Allreduce of 256 f32 on
// 2 ranks" only if it hangs) and passes the test hooks' point `call`.
class CallWatch {
 public:
  // unit: a dtype name or "bytes"; count < 0: not described.
  CallWatch(const char* call, int comm_size, int64_t count = -1, std::string_view unit = {});
  ~CallWatch();
  CallWatch(const CallWatch&) = delete;
  CallWatch& operator=(const CallWatch&) = delete;

 private:
  static std::string describe(const void* self);
  const char* call_;
  int comm_size_;
  int64_t count_;
  std::string_view unit_;
};

}  // namespace tandem::comm
