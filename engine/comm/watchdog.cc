// Watchdog implementation: one thread that polls (every timeout/10, clamped to 1 ms..1 s)
// whether the outermost armed scope has been open longer than the timeout (timed from the
// first poll that saw it: at most one poll late). arm() and
// disarm() only take an uncontended lock and never wake the thread: waking it on every
// call cost a context switch per collective, which dominated small messages.
#include "engine/comm/watchdog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "common/exit_codes.h"
#include "engine/comm/job.h"
#include "engine/comm/peer_status.h"
#include "engine/comm/test_hooks.h"
#include "engine/core/error.h"

namespace tandem::comm {

Watchdog::Watchdog(Communicator& world, double timeout_s) : Watchdog(&world, timeout_s) {}

Watchdog::Watchdog(double timeout_s) : Watchdog(nullptr, timeout_s) {}

Watchdog::Watchdog(Communicator* world, double timeout_s) : world_(world), timeout_s_(timeout_s) {
  on_expire = [this](const std::string& report) {
    std::fprintf(stderr, "%s\n", report.c_str());
    std::fflush(stderr);
    // The other stuck ranks' watchdogs fire within one poll of this one: give them time to
    // print their own line before the abort kills them, so the log names every rank that
    // did not finish, not just the first to time out.
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(2.0, timeout_s_.load())));
    // exit 5: the job did not run, not a wrong result
    if (world_) world_->abort(exit_code::infrastructure_error);
    abort_job(exit_code::infrastructure_error);
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
  if (depth_++) return;  // nested: the outer scope is timed and described
  what_ = std::move(what);
  what_fn_ = nullptr, describe_ = nullptr;
  fired_ = false;
  ++generation_;
}

void Watchdog::arm(const std::function<std::string()>* what) {
  std::lock_guard<std::mutex> lk(mu_);
  if (depth_++) return;
  what_fn_ = what, describe_ = nullptr;
  fired_ = false;
  ++generation_;
}

void Watchdog::arm(Describe describe, const void* ctx) {
  std::lock_guard<std::mutex> lk(mu_);
  if (depth_++) return;
  what_fn_ = nullptr, describe_ = describe, ctx_ = ctx;
  fired_ = false;
  ++generation_;
}

void Watchdog::disarm() {
  std::lock_guard<std::mutex> lk(mu_);
  if (depth_ > 0 && --depth_ == 0) what_fn_ = nullptr, describe_ = nullptr;
}

Watchdog::State Watchdog::state() {
  std::lock_guard<std::mutex> lk(mu_);
  State s;
  s.scopes = generation_;
  if (depth_ == 0) return s;
  s.armed = true;
  s.what = what_fn_ ? (*what_fn_)() : describe_ ? describe_(ctx_) : what_;
  if (seen_generation_ == generation_)
    s.for_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - seen_since_).count();
  return s;
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    const double t = timeout_s_.load();
    const auto poll = std::chrono::duration<double>(std::min(1.0, std::max(1e-3, t / 10)));
    cv_.wait_for(lk, poll, [&] { return stop_; });
    if (stop_ || depth_ == 0 || fired_) continue;
    const auto now = std::chrono::steady_clock::now();
    if (generation_ != seen_generation_) {  // a call armed since the last poll: start its clock
      seen_generation_ = generation_;
      seen_since_ = now;
      continue;
    }
    if (now - seen_since_ < std::chrono::duration<double>(t)) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, ": no progress for %.1f s in ", t);
    const std::string who = world_ ? cat("rank ", world_->rank(), " of ", world_->size(), " (host ", host_name(), ")")
                                   : rank_label();
    const std::string what = what_fn_ ? (*what_fn_)() : describe_ ? describe_(ctx_) : what_;
    std::string report = "[tandem watchdog] " + who + buf + what +
                         "; aborting the job with exit 5 (raise --watchdog-timeout if this call is just slow)";
    fired_ = true;
    lk.unlock();
    // The peers' answers arrive within ~1 s; the other waiting ranks fire within one poll.
    if (const std::string peers = survey_peers(std::min(1.5, std::max(0.3, t / 2))); !peers.empty())
      report += "\n[tandem watchdog] " + who + ": what the other ranks are doing:\n" + peers.substr(0, peers.size() - 1);
    on_expire(report);
    lk.lock();
  }
}

std::function<void()> watched(Watchdog* w, std::string point, std::function<std::string()> what,
                              std::function<void()> fn) {
  // Arms by pointer to the captured description: no copy of it per call.
  return [w, point = std::move(point), what = std::move(what), fn = std::move(fn)] {
    struct Disarm {
      Watchdog* w;
      ~Disarm() { if (w) w->disarm(); }
    };
    if (w) w->arm(&what);
    Disarm d{w};
    test_point(point.c_str());
    fn();
  };
}

}  // namespace tandem::comm
