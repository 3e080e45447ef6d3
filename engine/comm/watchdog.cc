// Watchdog implementation: one thread that polls (every timeout/10, clamped to 1 ms..1 s)
// whether the armed collective has been in flight longer than the timeout. arm() and
// disarm() only take an uncontended lock and never wake the thread: waking it on every
// call cost a context switch per collective, which dominated small messages.
#include "engine/comm/watchdog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "common/exit_codes.h"

namespace tandem::comm {

Watchdog::Watchdog(Communicator& world, double timeout_s) : world_(world), timeout_s_(timeout_s) {
  on_expire = [this](const std::string& report) {
    std::fprintf(stderr, "%s\n", report.c_str());
    std::fflush(stderr);
    // The other stuck ranks' watchdogs fire within one poll of this one: give them time to
    // print their own line before the abort kills them, so the log names every rank that
    // did not finish, not just the first to time out.
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(2.0, timeout_s_)));
    world_.abort(exit_code::infrastructure_error);  // exit 5: the job did not run, not a wrong result
  };
  thread_ = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::string what) {
  std::lock_guard<std::mutex> lk(mu_);
  what_ = std::move(what);
  what_fn_ = nullptr;
  armed_ = true;
  ++generation_;
  since_ = std::chrono::steady_clock::now();
}

void Watchdog::arm(const std::function<std::string()>* what) {
  std::lock_guard<std::mutex> lk(mu_);
  what_fn_ = what;
  armed_ = true;
  ++generation_;
  since_ = std::chrono::steady_clock::now();
}

void Watchdog::disarm() {
  std::lock_guard<std::mutex> lk(mu_);
  armed_ = false;
  what_fn_ = nullptr;
}

void Watchdog::loop() {
  const auto timeout = std::chrono::duration<double>(timeout_s_);
  const auto poll = std::chrono::duration<double>(std::min(1.0, std::max(1e-3, timeout_s_ / 10)));
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    cv_.wait_for(lk, poll, [&] { return stop_; });
    if (stop_ || !armed_ || std::chrono::steady_clock::now() - since_ < timeout) continue;
    char buf[160];
    std::snprintf(buf, sizeof buf, "[tandem watchdog] rank %d of %d (host %s): no progress for %.1f s in ",
                  world_.rank(), world_.size(), host_name().c_str(), timeout_s_);
    std::string report = buf + (what_fn_ ? (*what_fn_)() : what_) +
                         "; aborting the job (raise --watchdog-timeout if this op is just slow)";
    armed_ = false;
    lk.unlock();
    on_expire(report);
    lk.lock();
  }
}

}  // namespace tandem::comm
