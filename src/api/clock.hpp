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
//     3. if some pod has been given up on (marked Unschedulable) that may preempt (a
//        lower-priority pod is bound; rule 4 judges the pods that fit without preemption)
//        and capacity was freed since the last step (a pod ended or was removed, a node
//        was added or changed),
//        nothing happened for a quiet period (`quiet`, wall time) since the last request or
//        the last change a watcher could see, so its scheduler had the chance to retry it
//        (the quiet period must exceed the scheduler's reaction time, or a slow scheduler
//        would retry after time moved on and results would depend on its speed: it is
//        max(`quiet`, twice the longest of the scheduler's last 32 reaction times, from a
//        watch stream carrying a waiting pod to the pod's decision, each capped at 1 s));
//     4. no pod given up on would fit now (ApiServer::given_up_pod_fits: the default
//        profile's filters against the bound pods), or `grace` of wall time passed without
//        any request or change. A real scheduler retries such a pod only when its own
//        wall-clock timers let it: kube-scheduler v1.26 puts a pod that a cluster event
//        moves before its back-off (1 s doubling to 10 s per attempt) has expired into the
//        backoffQ, which it flushes every second (pkg/scheduler/internal/queue/
//        scheduling_queue.go: flushBackoffQCompleted). Cosim compresses the time between
//        the pod's last attempt and the event, so the back-off has usually not expired on
//        the scheduler's clock; simulated time then holds, and the free capacity stays free
//        at that instant, until the retry binds the pod. This keeps the run
//        work-conserving as a real-time run is (where the retry comes at most a flush
//        period after the back-off, in simulated time too);
//     5. the simulation has work that can change the cluster (the frozen-cluster rule of
//        `kubesim run`).
//   The run ends when the workload was submitted, nothing can change the cluster, no pod
//   waits for a decision and, if pods given up on are left that would fit, the scheduler
//   had `grace` of wall time (default 15 s: more than kube-scheduler's maximum back-off,
//   10 s, plus its 1 s flush period) without a request to bind them. Pods that fit on no
//   node only a cluster change can help, and none is coming; kube-scheduler's 30 s flush
//   of pods unschedulable for 5 minutes retries them in the same cluster, to the same
//   result. (A pod that fits but whose rejecting plugin did not register for the event
//   that freed its room waits for that 5-minute flush upstream: raise `grace` to 330 s to
//   wait for it.) Pods still pending at the end are named on stderr.
//   A step therefore never happens during a scheduling cycle: the pod being scheduled is
//   still waiting for its decision. Optional `decision_timeout`: an undecided pod stops
//   holding the clock after that much wall time without any request (for schedulers that
//   ignore some pods). Unlike Batkube (a timeout, a minimum delay and a maximum time step
//   between the scheduler's requests, with a patched Go time library inside the
//   scheduler), kubesim needs no change to the scheduler and never advances time on a
//   timer while a decision is pending or a retry can succeed. Where it is not exact: the
//   scheduler's timers still run on wall time, so between cluster events it retries its
//   pods fewer times than in real time (their attempt counts, hence back-offs, and queue
//   timestamps differ), and which waiting pod gets freed room first can differ; totals
//   that do not depend on the order (makespan, mean wait of equal jobs) agree, the
//   order-dependent tail less so (docs/evidence/cosim.md, "Co-simulation with a real scheduler").
//
// cosim with --scheduler-command (a ShimmedScheduler): the scheduler runs under
//   kubesim-timeshim, whose clock is simulated time (virtual ns = simulated time since 0), so
//   its timers (back-off, flushes, the unschedulable limit) fire at the simulated times they
//   would in real time. Rules 3 and 4 are then not needed: the clock moves only when
//     1. (rule 1 above does not hold the clock: a quiet scheduler with a pod undecided waits
//        for a timer of its own, e.g. its informers' 100 ms sync poll or a back-off),
//     2. no API request is being handled, none was for `quiet` of wall time, every watch
//        stream has written every change (ApiServer::watches_delivered), and no TCP
//        connection to the server holds unread bytes (a request not yet taken, watch events
//        not yet read),
//     3. the shim reports every scheduler thread blocked (an untimed wait, or a timed one
//        it holds until its virtual deadline), twice, `quiet` of wall time apart,
//   and it moves to the earlier of the next cluster event and the scheduler's earliest
//   timer plus `timer_slack` (2 ms), then sets the scheduler's clock to it (which wakes the
//   timers due). The slack is the lateness a real timer has on a loaded machine: without it
//   each timer is a step of its own, and kube-scheduler's periodic goroutines (the queue's
//   1 s backoff flush, the cache's 1 s cleanup, the metrics recorder's 1 s flush, their 100 ms
//   polls), started microseconds to a millisecond apart, made 4.7 steps per simulated second
//   of the spaced workload; each step costs a few ms of wall time (the shim's ptrace stops,
//   two looks at its threads). Timer steps after which the scheduler sends serve nothing
//   (vc-scheduler's 20 ms bind-queue poll) are taken by the shim itself, each to the instant
//   this rule would choose, until the scheduler writes a request or the next step would pass
//   the next cluster event (ShimmedScheduler::run_timers, the shim's RUN). Those steps do not
//   wait the `quiet` wall time of 2. and 3.: the shim's own test (every thread asleep at two looks,
//   none run between them, no TCP traffic) stands for it, as serve has nothing in flight
//   while the scheduler sent nothing. When a timer
//   and cluster events fall on the same instant, the timers fire first and the events are
//   processed at the next step, once the scheduler is quiet again (a fixed order where real
//   time orders by chance; a watch delivers an event after its instant). A request counts
//   as in flight from before its bytes leave the socket until its response is written
//   (ApiServer::in_flight), so time never moves while the scheduler waits for an answer.
//   A write of the scheduler (any request but GET) takes effect one tick (1 us) after the
//   instant its clock shows: its cycles take no simulated time, but in real time a binding
//   lands milliseconds after the events it answers, so a pod bound when a node freed at t
//   ends after, never with, the arrivals at t + its run time. Those arrivals then find no
//   room and enter kube-scheduler's back-off ladder (1, 2, 4, 8, 10 s, retried by its 1 s
//   flush) as in real time, which is what starves a few pods there (docs/evidence/cosim.md). The run
//   ends when the workload was submitted, nothing can change the cluster, no pod waits
//   for a decision and either no pod of an external scheduler is pending or 330 s of
//   simulated time (kube-scheduler's 5-minute unschedulable limit plus its 30 s flush)
//   passed since the last cluster event.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "api/api_server.hpp"
#include "api/shimmed_scheduler.hpp"
#include "engine/simulation.hpp"

namespace kubesim::api {

struct ClockOptions {
  enum class Mode : std::uint8_t { kRealtime, kCosim };
  Mode mode = Mode::kRealtime;
  double factor = 1.0;  // realtime: simulated seconds per wall second
  std::chrono::milliseconds quiet{20};
  std::optional<std::chrono::milliseconds> decision_timeout;
  std::chrono::milliseconds grace{15000};
  // cosim with --scheduler-command: how late (simulated time) a timer of the scheduler may
  // fire, so that its timers due within this much of the earliest fire in one step of its
  // clock (clock.hpp, "cosim with --scheduler-command"); never past a cluster event.
  Duration timer_slack = Duration::millis(2);
  // Rule 4's hold: false, simulated time stands still until the retry; true ("paced"),
  // it runs with wall time (1x) meanwhile, as it would in real time.
  bool paced_hold = false;
  // cosim with --scheduler-command: the scheduler's writes wait at serve's gate until it is
  // blocked, then act in the order of their method, path and body (ApiServer::gate_writes);
  // kOne lets one act per opening; kAll also holds reads there, one request per opening.
  enum class WriteGate : std::uint8_t { kOff, kBatch, kOne, kAll };
  WriteGate write_gate = WriteGate::kOff;
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
  // cosim: the scheduler runs on simulated time under kubesim-timeshim (see above).
  void set_shimmed_scheduler(ShimmedScheduler* scheduler);
  // Times cosim moved on after `grace` although a pod given up on would fit (rule 4).
  std::uint64_t grace_expiries() const { return grace_expiries_; }
  // cosim with a shimmed scheduler: the steps taken (each a move of the scheduler's clock).
  std::uint64_t shim_steps() const { return shim_steps_; }
  std::uint64_t gate_openings() const { return gate_openings_; }  // see ApiServer::gate_writes

 private:
  using Clock = std::chrono::steady_clock;
  SimTime realtime_target() const;
  // One look of run(), under the server's lock, per mode: each may lower wake_at (when to
  // look again) and returns why the run ended, or "".
  std::string realtime_step(Clock::time_point now, Clock::time_point& wake_at);
  std::string cosim_step(Clock::time_point now, Clock::time_point& wake_at);
  // cosim with a shimmed scheduler.
  std::string shimmed_step(Clock::time_point now, Clock::time_point& wake_at);
  // The step of a quiet scheduler whose earliest timer is `deadline_ns` (-1: none).
  std::string step_shimmed(std::int64_t deadline_ns, Clock::time_point now, Clock::time_point& wake_at);
  std::string open_gate_when_blocked(Clock::time_point now, Clock::time_point& wake_at);
  // Rule 4, paced: moves simulated time with wall time during a hold; true at `until`.
  bool paced_hold_step(Clock::time_point now, Clock::time_point& wake_at);
  bool workload_over(std::chrono::steady_clock::time_point now) const;

  Simulation& sim_;
  ApiServer& api_;
  ClockOptions options_;
  std::chrono::steady_clock::time_point wall_start_;
  SimTime sim_start_;
  std::mutex wake_mutex_;
  std::condition_variable wake_cv_;
  std::uint64_t wakeups_ = 0;
  std::uint64_t grace_expiries_ = 0;
  std::uint64_t shim_steps_ = 0;
  std::uint64_t gate_openings_ = 0;
  bool warned_decision_timeout_ = false;  // run() said once that it moves on without a decision
  bool holding_ = false;  // a paced hold is running, since (hold_wall_, hold_sim_)
  std::chrono::steady_clock::time_point hold_wall_;
  SimTime hold_sim_;
  ShimmedScheduler* shimmed_ = nullptr;
  std::chrono::steady_clock::time_point shim_quiet_since_{};  // first of two quiet looks, or epoch
  std::chrono::steady_clock::time_point shim_advanced_{};     // wall time of the last advance
  SimTime last_event_sim_;  // simulated time of the last step to a cluster event
  SimTime shim_time_;       // the time last given to the shimmed scheduler's clock
};

}  // namespace kubesim::api
