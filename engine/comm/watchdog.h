// Watchdog for hung collectives: a thread that, when one collective has been in flight
// longer than the timeout, prints what it was (op, size, dtype, group), the rank and host,
// and aborts the whole job through the communicator — CI fails fast instead of hanging.
// Ranks that did finish have disarmed their watchdog, so the ranks that report are the
// ones that did not finish.
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
  Watchdog(Communicator& world, double timeout_s);
  ~Watchdog();
  void arm(std::string what);
  // Lazy form: *what is called only if the collective hangs (under the lock, so the caller
  // must keep it alive until disarm(): WatchScope does).
  void arm(const std::function<std::string()>* what);
  void disarm();
  double timeout_s() const { return timeout_s_; }
  // What runs on expiry (default: print and world.abort(5), exit_code::infrastructure_error); tests replace it.
  std::function<void(const std::string& report)> on_expire;

 private:
  void loop();
  Communicator& world_;
  double timeout_s_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string what_;
  const std::function<std::string()>* what_fn_ = nullptr;
  bool armed_ = false, stop_ = false;
  uint64_t generation_ = 0;
  std::chrono::steady_clock::time_point since_;  // when the armed collective started
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

}  // namespace tandem::comm
