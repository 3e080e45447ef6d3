// The wall clock and the per-device-kind registry of equation clocks (see eqn_clock.h).
#include "engine/ir/eqn_clock.h"

#include <chrono>
#include <map>
#include <mutex>

namespace tandem {
namespace {

class WallClock final : public EqnClock {
 public:
  void start() override { t0_ = std::chrono::steady_clock::now(); }
  void stop() override {
    s_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count());
  }
  std::vector<double> seconds() override { return s_; }

 private:
  std::chrono::steady_clock::time_point t0_;
  std::vector<double> s_;
};

std::mutex& clocks_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<DeviceKind, EqnClockFactory>& clocks() {
  static std::map<DeviceKind, EqnClockFactory> m;
  return m;
}

}  // namespace

void register_eqn_clock(DeviceKind kind, EqnClockFactory make) {
  std::lock_guard<std::mutex> g(clocks_mutex());
  clocks()[kind] = std::move(make);
}

std::unique_ptr<EqnClock> make_eqn_clock(Device d) {
  {
    std::lock_guard<std::mutex> g(clocks_mutex());
    auto it = clocks().find(d.kind);
    if (it != clocks().end()) return it->second(d);
  }
  return std::make_unique<WallClock>();
}

}  // namespace tandem
