// An external scheduler that kubesim serve starts itself, under kubesim-timeshim's controller
// mode (tools/timeshim/timeshim.hpp), so that its clock is the simulated clock: cosim then
// moves simulated time only when the scheduler is blocked, to the earlier of the next cluster
// event and the scheduler's own earliest timer (clock.hpp, "cosim with --scheduler-command").
// Linux only (the shim traces the scheduler with ptrace).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kubesim::api {

class ShimmedScheduler {
 public:
  struct Options {
    std::string timeshim;              // the kubesim-timeshim binary
    std::vector<std::string> command;  // the scheduler's command line
    std::string socket_path;           // the controller socket
    std::string log_path;              // the scheduler's stdout and stderr
    std::int64_t epoch_unix_seconds;   // REALTIME of virtual time 0 (= simulated time 0)
    std::function<bool()> bytes_unread;  // unread bytes on serve's connections mean "busy" (HttpServer::bytes_unread)
    std::uint64_t seed;                // the shim's --seed (the scheduler's runtime seeds)
    std::string go_map_draws;          // the shim's --go-map-draws: pinned or per-goroutine
  };
  struct Status {
    std::int64_t now_ns;
    bool quiet;                // every scheduler thread is blocked (shim's STATUS)
    std::int64_t deadline_ns;  // its earliest timer, -1: none
  };

  // Starts the shim and connects to its socket; throws std::runtime_error with one line.
  // The scheduler runs with GOMAXPROCS=1 unless the environment sets GOMAXPROCS: its CPU
  // time takes no simulated time, so its parallelism changes no result, and one P makes
  // the Go runtime's goroutine order depend on its inputs rather than on how the kernel
  // schedules its threads (docs/evidence/cosim.md, "The scheduler on simulated time").
  explicit ShimmedScheduler(Options options);
  // SIGTERM (the shim passes it on), its clock moved to its timers while it shuts down,
  // then SIGKILL if it has not exited after 5 s.
  ~ShimmedScheduler();
  ShimmedScheduler(const ShimmedScheduler&) = delete;
  ShimmedScheduler& operator=(const ShimmedScheduler&) = delete;

  // What a RUN may do (virtual ns, -1: no such limit): see run_timers.
  struct RunLimits {
    std::int64_t event_ns;      // the next cluster event: no timer past it fires
    std::int64_t until_ns;      // --until
    std::int64_t slack_ns;      // ClockOptions::timer_slack
    std::int64_t floor_ns;      // simulated now: the clock never moves below it
    std::int64_t finish_at_ns;  // stop once the clock has reached it (the 330 s end rule)
  };
  struct RunResult {
    std::int64_t now_ns;
    std::int64_t steps;        // moves of the scheduler's clock; -1: the shim refused the RUN
    bool at_event;             // stopped settled, having written nothing, with its next timer
                               // past the event, or none, or at finish_at / until
    std::int64_t deadline_ns;  // its earliest timer then, -1: none
  };

  // nullopt once the scheduler has exited.
  std::optional<Status> status();
  // The shim's RUN: steps the scheduler's clock through its own timers, each step as
  // ClockDriver's (to the earliest timer plus the slack, never past the event), for as long
  // as it writes nothing (no request to serve) and settles after each. Call only when a
  // step is due (the scheduler quiet, serve idle): one call replaces the steps of timer
  // wake-ups that send serve nothing. nullopt once the scheduler has exited.
  std::optional<RunResult> run_timers(const RunLimits& limits);
  // Sets the scheduler's virtual time (ns since simulated time 0); wakes its due timers.
  void advance(std::int64_t ns);
  // Whether some TCP connection to serve has bytes its reader has not read yet (Options::
  // bytes_unread): a request the server has yet to take, or watch events the scheduler has
  // yet to read. Time must not move then.
  bool bytes_in_flight() const;

 private:
  std::string ask(const std::string& request);
  void drive_shutdown();

  Options options_;
  pid_t pid_ = -1;
  int fd_ = -1;
};

// Splits a --scheduler-command string on blanks and replaces "{kubeconfig}" in each word.
std::vector<std::string> scheduler_command_words(const std::string& text, const std::string& kubeconfig);

}  // namespace kubesim::api
