// The progress line of `kubesim run` on a terminal: how far the run is (jobs finished,
// simulated time reached) and how fast it goes (events per second), so that a user sees that
// a long run is long and why (a long simulated span, or slow events).
//
// Shown only when stderr is a terminal, and only once the run has taken two seconds of wall
// time: never in files or CI logs, and a short run prints nothing. The wall clock is read
// here only, for display: the simulation calls update() every few thousand events whatever
// the clock says, and nothing it does depends on what update() sees.
#pragma once

#include <chrono>
#include <cstdint>

namespace kubesim {

class Simulation;

class RunProgress {
 public:
  explicit RunProgress(const Simulation& sim);
  ~RunProgress();  // ends the line, when one was shown
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;

  // `finished` is the fraction of the workload's jobs that have finished.
  void update(double finished);

 private:
  using Clock = std::chrono::steady_clock;
  const Simulation& sim_;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_, last_shown_;
  std::uint64_t last_events_ = 0;
};

}  // namespace kubesim
