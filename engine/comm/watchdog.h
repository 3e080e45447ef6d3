// Watchdog for hung collectives: a thread that, when one blocking call has been in flight
// longer than the timeout (detected within one poll, timeout/10, after it), prints what it was (op, size, dtype, group), the rank and host,
// and aborts the whole job (exit 5) — CI fails fast instead of hanging. Ranks that did
// finish have disarmed their watchdog, so the ranks that report are the ones that did not.
// Scopes nest: an op (psum) arms it, and so does each MPI call inside it; the outermost
// scope names what is reported and when the clock started. Once MPI is up, the report also
// says what every other rank is doing (peer_status.h), naming the peers that never arrived.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "engine/comm/communicator.h"

namespace tandem::comm {

class Watchdog {
 public:
  // Reports `world`'s rank and aborts through it.
  Watchdog(Communicator& world, double timeout_s);
  // Not tied to a communicator (the job watchdog, engine/comm/job.h): reports the world
  // rank (the launcher's before MPI_Init) and aborts MPI_COMM_WORLD, or exits 5 when MPI is
  // not up.
  explicit Watchdog(double timeout_s);
  ~Watchdog();
  void arm(std::string what);
  // Lazy form: *what is called only if the call hangs (under the lock, so the caller must
  // keep it alive until disarm(): WatchScope does).
  void arm(const std::function<std::string()>* what);
  // Cheapest form, for every MPI call (CallWatch): describe(ctx) only if the call hangs.
  using Describe = std::string (*)(const void* ctx);
  void arm(Describe describe, const void* ctx);
  void disarm();
  // What this watchdog is timing now, for the peer-status channel (peer_status.h): the
  // outermost scope's description, how many outermost scopes have begun, and for how long
  // the current one has been open (to within one poll).
  struct State {
    bool armed = false;
    uint64_t scopes = 0;
    double for_s = 0;
    std::string what;
  };
  State state();
  double timeout_s() const { return timeout_s_.load(); }
  void set_timeout(double s) { timeout_s_.store(s); }
  // What runs on expiry (default: print and abort the job with exit 5,
  // exit_code::infrastructure_error); tests replace it.
  std::function<void(const std::string& report)> on_expire;

 private:
  Watchdog(Communicator* world, double timeout_s);  // world_ is set before the thread starts
  void loop();
  Communicator* world_;
  std::atomic<double> timeout_s_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string what_;
  const std::function<std::string()>* what_fn_ = nullptr;
  Describe describe_ = nullptr;
  const void* ctx_ = nullptr;
  int depth_ = 0;        // open scopes; the outermost one is timed and described
  bool fired_ = false;   // the current outermost scope has been reported
  bool stop_ = false;
  // Each outermost arm is a new generation; the thread times a generation from the first
  // poll that sees it, so arm() reads no clock (a clock read cost ~100 ns on VMs, more than
  // the rest of arm and disarm together).
  uint64_t generation_ = 0, seen_generation_ = 0;
  std::chrono::steady_clock::time_point seen_since_;
  std::thread thread_;
};

// Arms for the lifetime of the scope when w is set; the description `what` is formatted
// only if the watchdog fires (formatting it per call cost more than a small collective).
class WatchScope {
 public:
  WatchScope(Watchdog* w, std::function<std::string()> what) : w_(w), what_(std::move(what)) {
    if (w_) w_->arm(&what_);
  }
  ~WatchScope() { if (w_) w_->disarm(); }
  WatchScope(const WatchScope&) = delete;
  WatchScope& operator=(const WatchScope&) = delete;

 private:
  Watchdog* w_;
  std::function<std::string()> what_;
};

// fn wrapped so that every call runs under a WatchScope of w described by what() — for
// calls made outside tandem's collectives (the sweep's raw MPI baselines). The wrapper also
// passes the test hooks' point `point` (engine/comm/test_hooks.h).
std::function<void()> watched(Watchdog* w, std::string point, std::function<std::string()> what,
                              std::function<void()> fn);

}  // namespace tandem::comm
