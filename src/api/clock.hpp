// Who moves simulated time while the API is served.
//
// realtime[=F]: simulated time follows wall time times F. Events are processed when their
//   time comes; a request first brings the simulation up to the current time, so what a
//   client writes happens at "now".
//
// cosim: simulated time stands still while an external scheduler has work, and otherwise
//   jumps to the next event. Precisely, the clock advances to the next event time (and
//   processes every event due then) only when all of these hold:
//     1. no pod of an external scheduler (a schedulerName the built-in scheduler does not
//        serve) is waiting for a decision: each has been bound, or marked
//        PodScheduled=False (Unschedulable) by its scheduler;
//     2. no API request is being handled;
//     3. if some pod has been given up on (marked Unschedulable) and capacity was freed
//        since the last step (a pod ended or was removed, a node was added or changed),
//        nothing happened for a quiet period (`quiet`, wall time) since the last request or
//        the last change a watcher could see, so its scheduler had the chance to retry it
//        (the quiet period must exceed the scheduler's reaction time, or a slow scheduler
//        would retry after time moved on and results would depend on its speed: it is
//        max(`quiet`, twice the longest of the scheduler's last 32 reaction times, from a
//        watch stream carrying a waiting pod to the pod's decision, each capped at 1 s));
//     4. the simulation has work that can change the cluster (the frozen-cluster rule of
//        `kubesim run`).
//   A step therefore never happens during a scheduling cycle: the pod being scheduled is
//   still waiting for its decision. Optional `decision_timeout`: an undecided pod stops
//   holding the clock after that much wall time without any request (for schedulers that
//   ignore some pods). Unlike Batkube (a timeout, a minimum delay and a maximum time step
//   between the scheduler's requests, with a patched Go time library inside the
//   scheduler), kubesim needs no change to the scheduler and never advances time on a
//   timer while a decision is pending; the scheduler's own timers (back-off, periodic
//   flushes) still run on wall time, so its retries of unschedulable pods happen at the
//   next cluster change instead of after its back-off.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "api/api_server.hpp"
#include "engine/simulation.hpp"

namespace kubesim::api {

struct ClockOptions {
  enum class Mode : std::uint8_t { kRealtime, kCosim };
  Mode mode = Mode::kRealtime;
  double factor = 1.0;  // realtime: simulated seconds per wall second
  std::chrono::milliseconds quiet{20};
  std::optional<std::chrono::milliseconds> decision_timeout;
  SimTime until = SimTime::never();
  // End once the workload's jobs were all submitted and nothing can change any more.
  bool end_with_workload = true;
};

// Parses "cosim", "realtime" or "realtime=F" (F > 0). nullopt when malformed.
std::optional<ClockOptions> parse_clock(const std::string& text);

class ClockDriver {
 public:
  ClockDriver(Simulation& sim, ApiServer& api, ClockOptions options);
  // Drives the simulation until `stop` is set or an end condition holds; returns why it
  // ended ("until", "workload finished", "stopped").
  std::string run(const std::atomic<bool>& stop);
  // Wakes run() (after `stop` was set, or on API activity).
  void wake();

 private:
  SimTime realtime_target() const;
  bool workload_over(std::chrono::steady_clock::time_point now) const;

  Simulation& sim_;
  ApiServer& api_;
  ClockOptions options_;
  std::chrono::steady_clock::time_point wall_start_;
  SimTime sim_start_;
  std::mutex wake_mutex_;
  std::condition_variable wake_cv_;
  std::uint64_t wakeups_ = 0;
};

}  // namespace kubesim::api
