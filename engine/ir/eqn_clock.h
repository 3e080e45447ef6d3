// Per-equation clocks for Executor::set_timing. On the CPU an equation's time is the wall
// time of its impl; a backend whose impls only enqueue work registers its own clock (the
// CUDA backend: an event pair per equation on the device's default stream), so a record is
// the time the device spent, not the time the host took to enqueue it.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "engine/core/device.h"

namespace tandem {

class EqnClock {
 public:
  virtual ~EqnClock() = default;
  virtual void start() = 0;  // just before an equation's impl runs
  virtual void stop() = 0;   // just after it returns
  // Seconds of every start/stop pair in order; called once, after the run's last stop.
  virtual std::vector<double> seconds() = 0;
};

using EqnClockFactory = std::function<std::unique_ptr<EqnClock>(Device)>;
// Replaces the clock of a device kind (the CUDA backend registers one with its impls).
void register_eqn_clock(DeviceKind kind, EqnClockFactory make);
// The registered clock for d, else the wall clock.
std::unique_ptr<EqnClock> make_eqn_clock(Device d);

}  // namespace tandem
