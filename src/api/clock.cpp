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

ClockDriver::ClockDriver(Simulation& sim, ApiServer& api, ClockOptions options)
    : sim_(sim), api_(api), options_(options), wall_start_(std::chrono::steady_clock::now()), sim_start_(sim.now()) {
  api_.set_activity_callback([this] { wake(); });
  if (options_.mode == ClockOptions::Mode::kRealtime) {
    // Runs under the API lock before each request: writes happen at the current time.
    api_.set_before_request([this] {
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
  return options_.end_with_workload && sim_.arrivals_done() && !sim_.has_work() && api_.undecided_external_pods() == 0 &&
         api_.in_flight() == 0 && now - api_.last_activity() >= options_.quiet;
}

std::string ClockDriver::run(const std::atomic<bool>& stop) {
  using Clock = std::chrono::steady_clock;
  bool warned = false;
  while (!stop.load()) {
    std::uint64_t seen = 0;
    {
      std::lock_guard<std::mutex> lock(wake_mutex_);
      seen = wakeups_;
    }
    Clock::time_point wake_at = Clock::now() + std::chrono::milliseconds(250);
    const std::string ended = api_.locked([&]() -> std::string {
      const auto now = Clock::now();
      if (options_.mode == ClockOptions::Mode::kRealtime) {
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
      // cosim (see clock.hpp for the rule).
      const bool idle_for_quiet = now - api_.last_activity() >= options_.quiet;
      const bool retries_possible = api_.given_up_external_pods() > 0 && api_.capacity_freed();
      bool may_step = api_.in_flight() == 0 && (!retries_possible || idle_for_quiet);
      if (api_.undecided_external_pods() > 0) {
        may_step = may_step && options_.decision_timeout && now - api_.last_activity() >= *options_.decision_timeout;
        if (may_step && !warned) {
          std::fprintf(stderr, "kubesim: cosim: %zu pod(s) still wait for their scheduler's decision after %lld ms; advancing\n",
                       api_.undecided_external_pods(), static_cast<long long>(options_.decision_timeout->count()));
          warned = true;
        }
      }
      if (may_step && sim_.has_work()) {
        const SimTime next = sim_.next_event_time();
        if (next > options_.until) {
          sim_.advance_to(options_.until);
          return "until";
        }
        api_.clear_capacity_freed();
        sim_.advance_to(next);
        api_.notify_watchers();
        wake_at = now;  // look again at once
        return {};
      }
      if (workload_over(now)) return "workload finished";
      if (retries_possible && !idle_for_quiet) wake_at = api_.last_activity() + options_.quiet;
      return {};
    });
    if (!ended.empty()) return ended;
    std::unique_lock<std::mutex> lock(wake_mutex_);
    wake_cv_.wait_until(lock, wake_at, [&] { return wakeups_ != seen || stop.load(); });
  }
  return "stopped";
}

}  // namespace kubesim::api
