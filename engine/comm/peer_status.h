// A side channel outside MPI through which a rank whose call has stalled asks every other
// rank what it is doing, so the watchdog's report names the peers that never reached the
// call (a stopped rank, a rank still computing, a host cut off) instead of only the ranks
// left waiting. MPI cannot carry the question: the waiting rank's only MPI thread is inside
// the stalled call (MPI_THREAD_FUNNELED), and the peer may be unreachable over MPI's links.
// So each rank runs a small UDP responder thread; the addresses are exchanged once, over
// MPI, when the job starts. A peer that does not answer within the wait is reported as
// stopped, dead or unreachable — the three look the same from outside, and the report says so.
#pragma once
#include <cstdint>
#include <string>

#include <mpi.h>

namespace tandem::comm {

// What a rank says of itself: the outermost MPI call it is in (the job watchdog's armed
// scope), if any, and how many such calls it has made.
struct PeerState {
  bool in_call = false;
  uint64_t call_no = 0;  // outermost watched calls begun so far (this one included)
  double for_s = 0;      // seconds in the current call (to within the watchdog's poll)
  std::string what;      // the call's description; empty between calls
};
using PeerStateFn = PeerState (*)();

// Once per job, on every rank of comm (MPI_COMM_WORLD) right after MPI_Init: opens this
// rank's UDP socket, starts its responder (answering with mine()), and exchanges addresses
// with one MPI_Allgather. A rank that cannot open a socket still takes part (no address),
// and is then reported as not answering.
void start_peer_status(MPI_Comm comm, PeerStateFn mine);

// From any thread, without MPI: asks every other rank for its state and waits up to wait_s
// for the answers. Returns the report's lines (each starting with "  "), or "" when the
// channel is not started or the job has one rank.
std::string survey_peers(double wait_s);

}  // namespace tandem::comm
