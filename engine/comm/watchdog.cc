// Watchdog implementation: one waiting thread, re-armed per collective by generation count.
#include "engine/comm/watchdog.h"

#include <chrono>
#include <cstdio>

namespace tandem::comm {

Watchdog::Watchdog(Communicator& world, double timeout_s) : world_(world), timeout_s_(timeout_s) {
  on_expire = [this](const std::string& report) {
    std::fprintf(stderr, "%s\n", report.c_str());
    std::fflush(stderr);
    world_.abort(124);
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
  {
    std::lock_guard<std::mutex> lk(mu_);
    what_ = std::move(what);
    armed_ = true;
    ++generation_;
  }
  cv_.notify_all();
}

void Watchdog::disarm() {
  std::lock_guard<std::mutex> lk(mu_);
  armed_ = false;
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lk, [&] { return stop_ || armed_; });
      continue;
    }
    const uint64_t gen = generation_;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
    if (cv_.wait_until(lk, deadline, [&] { return stop_ || !armed_ || generation_ != gen; })) continue;
    char buf[160];
    std::snprintf(buf, sizeof buf, "[tandem watchdog] rank %d of %d (host %s): no progress for %.1f s in ",
                  world_.rank(), world_.size(), host_name().c_str(), timeout_s_);
    std::string report = buf + what_ +
                         "; aborting the job (raise --watchdog-timeout if this op is just slow)";
    armed_ = false;
    lk.unlock();
    on_expire(report);
    lk.lock();
  }
}

}  // namespace tandem::comm
