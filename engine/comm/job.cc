// The job watchdog and the agreed end of an MPI job (see job.h).
#include "engine/comm/job.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "common/exit_codes.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/peer_status.h"
#include "engine/comm/test_hooks.h"
#include "engine/core/error.h"
#include "engine/core/rank_env.h"

namespace tandem::comm {
namespace {
std::atomic<double> g_timeout_s{300};
// Set once MPI_Init returned and until MPI_Finalize starts; read by the watchdog thread,
// which may not call MPI itself (MPI_THREAD_FUNNELED) except to abort.
std::atomic<bool> g_up{false};
std::atomic<int> g_rank{-1}, g_size{0};
MPI_Comm g_exit_comm = MPI_COMM_NULL;

void finalize_now() {
  CallWatch w("MPI_Finalize", g_size.load());
  g_up = false;
  if (g_exit_comm != MPI_COMM_NULL) MPI_Comm_free(&g_exit_comm);
  MPI_Finalize();
}

// Exits that bypass main()'s end_job (test binaries, exit() from a library) still end
// through the guarded exchange: a rank alone at the end aborts instead of waiting forever
// in MPI_Finalize.
void finalize_at_exit() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin && g_up) end_job(exit_code::pass);
}

// This rank's answer to the peer-status question: the job watchdog's outermost scope
// (every MPI call tandem makes arms it).
PeerState job_state() {
  const Watchdog::State s = job_watchdog().state();
  return {s.armed, s.scopes, s.for_s, s.what};
}
}  // namespace

void set_job_timeout(double seconds) {
  g_timeout_s = seconds;
  job_watchdog().set_timeout(seconds);
}

double job_timeout_s() { return g_timeout_s.load(); }

Watchdog& job_watchdog() {
  static Watchdog* w = new Watchdog(g_timeout_s.load());  // never destroyed: it may fire during exit
  return *w;
}

std::string rank_label() {
  int rank = g_rank, size = g_size;
  if (!g_up) rank = launcher_rank(), size = launcher_world_size();
  if (rank < 0) return cat("rank 0 of 1 (host ", host_name(), ")");
  return cat("rank ", rank, " of ", size, " (host ", host_name(), ")");
}

void abort_job(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (g_up) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // before MPI_Init returned: the launcher ends the other ranks
}

void init_mpi_job() {
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    CallWatch w("MPI_Init", launcher_world_size());
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit(finalize_at_exit);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_rank = rank, g_size = size;
  g_up = true;
  {
    CallWatch w("MPI_Comm_dup", size);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_exit_comm);
  }
  start_peer_status(MPI_COMM_WORLD, &job_state);
}

int end_job(int code) {
  int fin = 0;
  MPI_Finalized(&fin);
  if (!g_up || fin) return code;
  int agreed = code;
  if (g_size > 1) {
    test_point("end_job");
    const int mine = code;
    MPI_Request req = MPI_REQUEST_NULL;
    bool failed = MPI_Iallreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, g_exit_comm, &req) != MPI_SUCCESS;
    int done = 0;
    const double t = job_timeout_s();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(t);
    while (!failed) {
      failed = MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS;
      if (done || failed) break;
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr,
                     "[tandem] %s: ending with exit code %d, but not every rank reached the end of the job "
                     "within %.1f s (a rank failed or waits in a call this one never made: see the ranks' "
                     "messages above); aborting the job (exit %d)\n",
                     rank_label().c_str(), code, t, exit_code::infrastructure_error);
        abort_job(exit_code::infrastructure_error);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (failed) {
      std::fprintf(stderr, "[tandem] %s: the end-of-job exchange failed; aborting the job (exit %d)\n",
                   rank_label().c_str(), exit_code::infrastructure_error);
      abort_job(exit_code::infrastructure_error);
    }
  }
  finalize_now();
  return agreed;
}

CallWatch::CallWatch(const char* call, int comm_size, int64_t count, std::string_view unit)
    : call_(call), comm_size_(comm_size), count_(count), unit_(unit) {
  job_watchdog().arm(&CallWatch::describe, this);
  try {
    test_point(call);
  } catch (...) {
    job_watchdog().disarm();
    throw;
  }
}

std::string CallWatch::describe(const void* self) {
  const auto& w = *static_cast<const CallWatch*>(self);
  std::string s = w.call_;
  if (w.count_ >= 0) s += cat(" of ", w.count_, " ", w.unit_);
  return s + cat(" on a communicator of ", w.comm_size_, " rank(s)");
}

CallWatch::~CallWatch() { job_watchdog().disarm(); }

}  // namespace tandem::comm
