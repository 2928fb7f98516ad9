#include "api/clock.hpp"

#include <cstdio>

#include "core/parse_number.hpp"

namespace kubesim::api {

std::optional<ClockOptions> parse_clock(const std::string& text) {
  ClockOptions o;
  if (text == "cosim") {
    o.mode = ClockOptions::Mode::kCosim;
    return o;
  }
  if (text == "realtime") return o;
  if (text.rfind("realtime=", 0) == 0) {
    const auto factor = parse_double(std::string_view(text).substr(9));
    if (!factor || !(*factor > 0)) return std::nullopt;
    o.factor = *factor;
    return o;
  }
  return std::nullopt;
}

void ClockDriver::set_shimmed_scheduler(ShimmedScheduler* scheduler) {
  shimmed_ = scheduler;
  // A write takes effect one tick (1 us, the simulation's resolution) after the instant the
  // scheduler acted at: its cycles take no simulated time under the shim, but a real API
  // request lands after the events it answers, never at their instant (clock.hpp).
  api_.locked([&] {  // serve is already listening
    api_.hold_request_changes();
    if (options_.write_gate != ClockOptions::WriteGate::kOff)
      api_.gate_writes(options_.write_gate != ClockOptions::WriteGate::kBatch,
                       options_.write_gate == ClockOptions::WriteGate::kAll);
  });
  api_.set_before_request([this](const ApiRequest& request) {
    if (request.method == "GET") return;
    const SimTime t = std::min(options_.until, shim_time_ + Duration::micros(1));
    // Only the clock moves: events due at t wait for the next step, when the scheduler is
    // quiet again, so that they never reach it while it is still working.
    if (t > sim_.now()) sim_.advance_clock_to(t);
  });
}

ClockDriver::ClockDriver(Simulation& sim, ApiServer& api, ClockOptions options)
    : sim_(sim), api_(api), options_(options), wall_start_(std::chrono::steady_clock::now()), sim_start_(sim.now()) {
  if (options_.mode == ClockOptions::Mode::kCosim) {
    // Cosim's rules look at each request (in flight, quiet periods); real time needs no
    // wake-up per request: each request advances the clock itself (below), and the loop
    // looks again within 250 ms.
    api_.set_activity_callback([this] { wake(); });
  } else {
    // Runs under the API lock before each request: writes happen at the current time.
    api_.set_before_request([this](const ApiRequest&) {
      const SimTime target = std::min(realtime_target(), options_.until);
      if (target > sim_.now()) sim_.advance_to(target);
    });
  }
}

void ClockDriver::wake() {
  {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    ++wakeups_;
  }
  wake_cv_.notify_all();
}

SimTime ClockDriver::realtime_target() const {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  return sim_start_ + Duration::micros(static_cast<std::int64_t>(wall * options_.factor * 1e6));
}

bool ClockDriver::workload_over(std::chrono::steady_clock::time_point now) const {
  if (!options_.end_with_workload || !sim_.arrivals_done() || sim_.has_work() || api_.undecided_external_pods() != 0 ||
      api_.in_flight() != 0 || now - api_.last_activity() < options_.quiet)
    return false;
  // Rule 4's end: a pod given up on that would fit gets `grace` to be bound (cosim only: in
  // realtime the scheduler's timers and simulated time run together).
  return options_.mode == ClockOptions::Mode::kRealtime || api_.given_up_external_pods() == 0 ||
         !api_.given_up_pod_fits() || now - api_.last_activity() >= options_.grace;
}

std::string ClockDriver::shimmed_step(Clock::time_point now, Clock::time_point& wake_at) {
  const auto look_again = [&] {
    wake_at = std::min(wake_at, now + std::chrono::milliseconds(1));
    return std::string();
  };
  const auto busy = [&] {
    shim_quiet_since_ = {};
    return look_again();
  };
  if (api_.writes_at_gate()) return open_gate_when_blocked(now, wake_at);
  // Pods waiting for a decision do not hold the clock here: a quiet scheduler waits for one
  // of its timers (the informers' 100 ms sync poll, a back-off), which must be let fire.
  if (api_.in_flight() != 0 || !api_.watches_delivered()) return busy();
  const Clock::time_point last = std::max(api_.last_activity(), shim_advanced_);
  if (now - last < options_.quiet) {
    shim_quiet_since_ = {};
    wake_at = std::min(wake_at, last + options_.quiet);
    return {};
  }
  const auto st = shimmed_->status();
  if (!st) {
    std::fprintf(stderr, "kubesim: cosim: the scheduler under --scheduler-command has exited\n");
    return "scheduler exited";
  }
  if (!st->quiet || shimmed_->bytes_in_flight()) return busy();
  // Until the scheduler's first request, time holds (up to 10 s of wall time, for one that
  // cannot connect): kube-scheduler sets no timer before it talks to the API, and a loaded
  // machine can show all its threads blocked while it starts, which let time jump ahead of
  // its start in some runs (its log then began at 20 s).
  if (api_.requests() == 0 && now - wall_start_ < std::chrono::seconds(10)) return busy();
  if (shim_quiet_since_ == Clock::time_point{}) {
    shim_quiet_since_ = now;
    wake_at = std::min(wake_at, now + options_.quiet);
    return {};
  }
  if (now - shim_quiet_since_ < options_.quiet) {
    wake_at = std::min(wake_at, shim_quiet_since_ + options_.quiet);
    return {};
  }
  shim_quiet_since_ = {};
  return step_shimmed(st->deadline_ns, now, wake_at);
}

std::string ClockDriver::step_shimmed(std::int64_t deadline_ns, Clock::time_point now, Clock::time_point& wake_at) {
  const auto look_again = [&] {
    wake_at = std::min(wake_at, now + std::chrono::milliseconds(1));
    return std::string();
  };
  // Quiet: move to the earlier of the next cluster event and the scheduler's next timer
  // (rounded up to the simulation's microsecond).
  // The changes of the scheduler's own writes, held back from its watches, are events of
  // the instant they took effect at (one tick after its clock).
  const bool held = api_.watch_events_held();
  const SimTime event = std::min(sim_.has_work() ? sim_.next_event_time() : SimTime::never(),
                                 held ? sim_.now() : SimTime::never());
  // A pod not yet decided holds the end too: a periodic scheduler (vc-scheduler's 1 s
  // session) may not have looked at the last arrivals when its threads block on its timer.
  const bool may_end_by_time = options_.end_with_workload && sim_.arrivals_done() && !sim_.has_work() && !held;
  for (bool first = true;; first = false) {
    const SimTime timer = deadline_ns < 0 ? SimTime::never() : SimTime::at(Duration::micros((deadline_ns + 999) / 1000));
    if (may_end_by_time && ((api_.given_up_external_pods() == 0 && api_.undecided_external_pods() == 0) ||
                            sim_.now() - last_event_sim_ >= Duration::seconds(330)))
      return "workload finished";
    // The timers due within the slack fire together, late by at most the slack.
    SimTime next = std::min(event, timer.is_never() ? timer : timer + options_.timer_slack);
    if (next.is_never()) return look_again();
    if (next > options_.until) {
      sim_.advance_to(options_.until);
      return "until";
    }
    next = std::max(next, sim_.now());
    const auto step_to_next = [&] {
      api_.notify_watchers();
      shimmed_->advance(next.micros() * 1000);
      ++shim_steps_;
      shim_time_ = next;
      shim_advanced_ = Clock::now();
      return look_again();
    };
    if (timer > event) {
      last_event_sim_ = next;
      sim_.advance_to(next);
      api_.release_watch_events();
      return step_to_next();
    }
    // The scheduler's timers due at `next` fire first, on their own; cluster events at the
    // same instant are processed at a later step, once it is quiet again: a fixed order for
    // what real time orders by chance (the watch delivers an event after its instant). The
    // shim takes these steps itself for as long as the scheduler writes nothing after them
    // (a poll that finds nothing to do), each as this one (ShimmedScheduler::run_timers).
    if (!first) return look_again();
    const auto ns = [](SimTime t) { return t.is_never() ? std::int64_t{-1} : t.micros() * 1000; };
    const auto run = shimmed_->run_timers(
        {ns(event), ns(options_.until), options_.timer_slack.micros() * 1000, ns(sim_.now()),
         may_end_by_time ? ns(last_event_sim_ + Duration::seconds(330)) : std::int64_t{-1}});
    if (!run) {
      std::fprintf(stderr, "kubesim: cosim: the scheduler under --scheduler-command has exited\n");
      return "scheduler exited";
    }
    if (run->steps < 0) {  // a shim without RUN: this one step
      sim_.advance_clock_to(next);
      return step_to_next();
    }
    if (run->steps > 0) {
      const SimTime reached = SimTime::at(Duration::micros(run->now_ns / 1000));
      if (reached > sim_.now()) sim_.advance_clock_to(reached);
      api_.notify_watchers();
      shim_steps_ += static_cast<std::uint64_t>(run->steps);
      shim_time_ = reached;
      shim_advanced_ = Clock::now();
    }
    // Settled with nothing written and its next timer past the event (or none): the event's
    // step is due now, as it would be after two quiet looks.
    if (!run->at_event) return look_again();
    deadline_ns = run->deadline_ns;
  }
}

std::string ClockDriver::open_gate_when_blocked(Clock::time_point now, Clock::time_point& wake_at) {
  // The writes the scheduler sent since the gate last opened act together once it can send
  // no more: every request it sent is at the gate (none unread in a socket) and every one of
  // its threads is blocked, seen twice a quiet period apart (as a step is).
  wake_at = std::min(wake_at, now + std::chrono::milliseconds(1));
  if (!api_.only_gated_requests() || shimmed_->bytes_in_flight()) {
    shim_quiet_since_ = {};
    return {};
  }
  const auto st = shimmed_->status();
  if (!st) {
    std::fprintf(stderr, "kubesim: cosim: the scheduler under --scheduler-command has exited\n");
    return "scheduler exited";
  }
  if (!st->quiet) {
    shim_quiet_since_ = {};
    return {};
  }
  if (shim_quiet_since_ == Clock::time_point{}) shim_quiet_since_ = now;
  if (now - shim_quiet_since_ < options_.quiet) {
    wake_at = std::min(wake_at, shim_quiet_since_ + options_.quiet);
    return {};
  }
  shim_quiet_since_ = {};
  api_.open_write_gate();
  ++gate_openings_;
  return {};
}

std::string ClockDriver::realtime_step(Clock::time_point now, Clock::time_point& wake_at) {
  const SimTime target = std::min(realtime_target(), options_.until);
  if (target > sim_.now()) sim_.advance_to(target);
  api_.notify_watchers();
  if (sim_.now() >= options_.until) return "until";
  if (workload_over(now)) return "workload finished";
  const SimTime next = sim_.next_event_time();
  if (!next.is_never()) {
    const double wall = (next - sim_start_).to_seconds() / options_.factor;
    wake_at = std::min(wake_at, wall_start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wall)));
  }
  return {};
}

std::string ClockDriver::cosim_step(Clock::time_point now, Clock::time_point& wake_at) {
  // The quiet period grows with the scheduler's observed reaction time (twice its
  // slowest recent decision), so a slow or loaded scheduler still gets to retry.
  const auto quiet = std::max<Clock::duration>(options_.quiet, 2 * api_.recent_reaction_time());
  const bool idle_for_quiet = now - api_.last_activity() >= quiet;
  // Rule 3 for the retries rule 4 cannot judge: preemption (a pod that fits nowhere may
  // still evict lower-priority pods when it is retried).
  const bool retries_possible =
      api_.given_up_external_pods() > 0 && api_.capacity_freed() && api_.given_up_pod_may_preempt();
  bool may_step = api_.in_flight() == 0 && (!retries_possible || idle_for_quiet);
  const bool retry_fits = api_.given_up_external_pods() > 0 && api_.given_up_pod_fits();
  const bool within_grace = now - api_.last_activity() < options_.grace;
  if (retry_fits && within_grace) may_step = false;
  if (api_.undecided_external_pods() > 0) {
    may_step = may_step && options_.decision_timeout && now - api_.last_activity() >= *options_.decision_timeout;
    if (may_step && !warned_decision_timeout_) {
      std::fprintf(stderr, "kubesim: cosim: %zu pod(s) still wait for their scheduler's decision after %lld ms; advancing\n",
                   api_.undecided_external_pods(), static_cast<long long>(options_.decision_timeout->count()));
      warned_decision_timeout_ = true;
    }
  }
  if (may_step && sim_.has_work()) {
    const SimTime next = sim_.next_event_time();
    if (next > options_.until) {
      sim_.advance_to(options_.until);
      return "until";
    }
    if (retry_fits && grace_expiries_++ == 0)
      std::fprintf(stderr, "kubesim: cosim: a pod its scheduler gave up on would fit, but nothing was bound in %lld ms; advancing\n",
                   static_cast<long long>(options_.grace.count()));
    api_.clear_capacity_freed();
    holding_ = false;
    sim_.advance_to(next);
    api_.notify_watchers();
    wake_at = now;  // look again at once
    return {};
  }
  const bool paced_hold = options_.paced_hold && retry_fits && within_grace && api_.in_flight() == 0 &&
                          api_.undecided_external_pods() == 0 && !(retries_possible && !idle_for_quiet);
  if (!paced_hold) {
    holding_ = false;
  } else if (paced_hold_step(now, wake_at)) {
    return "until";
  }
  if (workload_over(now)) return "workload finished";
  if (retries_possible && !idle_for_quiet) wake_at = api_.last_activity() + quiet;
  if (retry_fits && within_grace) wake_at = std::min(wake_at, api_.last_activity() + options_.grace);
  return {};
}

bool ClockDriver::paced_hold_step(Clock::time_point now, Clock::time_point& wake_at) {
  // Rule 4, paced: simulated time runs with wall time while the scheduler's timer runs.
  if (!holding_) {
    holding_ = true;
    hold_wall_ = now;
    hold_sim_ = sim_.now();
  }
  const SimTime target = std::min(
      options_.until, hold_sim_ + Duration::micros(std::chrono::duration_cast<std::chrono::microseconds>(now - hold_wall_).count()));
  if (target > sim_.now()) {
    sim_.advance_to(target);
    api_.notify_watchers();
  }
  if (sim_.now() >= options_.until) return true;
  wake_at = std::min(wake_at, now + std::chrono::milliseconds(10));
  return false;
}

std::string ClockDriver::run(const std::atomic<bool>& stop) {
  warned_decision_timeout_ = false;
  while (!stop.load()) {
    std::uint64_t seen = 0;
    {
      std::lock_guard<std::mutex> lock(wake_mutex_);
      seen = wakeups_;
    }
    Clock::time_point wake_at = Clock::now() + std::chrono::milliseconds(250);
    const std::string ended = api_.locked([&]() -> std::string {
      const auto now = Clock::now();
      if (options_.mode == ClockOptions::Mode::kRealtime) return realtime_step(now, wake_at);
      if (shimmed_) return shimmed_step(now, wake_at);
      return cosim_step(now, wake_at);  // see clock.hpp for the rule
    });
    if (!ended.empty()) return ended;
    std::unique_lock<std::mutex> lock(wake_mutex_);
    wake_cv_.wait_until(lock, wake_at, [&] { return wakeups_ != seen || stop.load(); });
  }
  return "stopped";
}

}  // namespace kubesim::api
