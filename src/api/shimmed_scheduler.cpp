#include "api/shimmed_scheduler.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kubesim::api {

std::vector<std::string> scheduler_command_words(const std::string& text, const std::string& kubeconfig) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    for (std::size_t at; (at = w.find("{kubeconfig}")) != std::string::npos;) w.replace(at, 12, kubeconfig);
    words.push_back(w);
  }
  return words;
}

ShimmedScheduler::ShimmedScheduler(Options options) : options_(std::move(options)) {
  if (options_.command.empty()) throw std::runtime_error("--scheduler-command: empty command");
  std::vector<std::string> argv = {options_.timeshim, "--control", options_.socket_path, "--epoch",
                                   std::to_string(options_.epoch_unix_seconds), "--seed", std::to_string(options_.seed),
                                   "--go-map-draws", options_.go_map_draws, "--"};
  argv.insert(argv.end(), options_.command.begin(), options_.command.end());
  std::vector<char*> args;
  for (auto& s : argv) args.push_back(s.data());
  args.push_back(nullptr);
  unlink(options_.socket_path.c_str());
  const int log = open(options_.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error("--scheduler-log " + options_.log_path + ": " + std::strerror(errno));
  pid_ = fork();
  if (pid_ == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // serve blocks SIGINT/SIGTERM in its threads
    dup2(log, 1);
    dup2(log, 2);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    setenv("GOMAXPROCS", "1", 0);
    execv(args[0], args.data());
    std::fprintf(stderr, "kubesim: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(log);
  if (pid_ < 0) throw std::runtime_error(std::string("--scheduler-command: fork: ") + std::strerror(errno));
  // The shim creates the socket before it starts the scheduler.
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", options_.socket_path.c_str());
  for (int i = 0; i < 1000; ++i) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return;
    close(fd_);
    fd_ = -1;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("--scheduler-command: " + options_.timeshim + " exited at once (see " + options_.log_path + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw std::runtime_error("--scheduler-command: no controller socket at " + options_.socket_path);
}

ShimmedScheduler::~ShimmedScheduler() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    drive_shutdown();
  }
  if (fd_ >= 0) close(fd_);
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

// A graceful shutdown waits on timers: controller-runtime's manager stops its webhook server
// with net/http's Server.Shutdown, which polls its connections on a ticker (1 ms doubling to
// 500 ms, go/src/net/http/server.go), bounded by the manager's GracefulShutdownTimeout (30 s,
// sigs.k8s.io/controller-runtime pkg/manager/internal.go); and Go code that spins on the one P
// needs sysmon (let go by the shim on the signal) to see 10 ms pass to preempt it
// (go/src/runtime/proc.go retake, forcePreemptNS). Under the shim all of that runs on
// simulated time; with the clock held where the simulation ended, the Kueue v0.9.5 manager
// never got past "Stopping and waiting for webhooks" and was killed after 5 s of wall time,
// most of a short run. So while the scheduler shuts down its clock runs on: 10 ms per look
// (a millisecond apart), to its next timer when it is quiet, up to kShutdownSimulated past
// the end. Unread bytes do not hold it as during the run: a stopped informer no longer reads
// its watch. Nothing of the simulation moves: its outputs are those of the end.
void ShimmedScheduler::drive_shutdown() {
  constexpr std::int64_t kShutdownSimulated = 60'000'000'000;  // ns, twice the manager's default bound
  constexpr std::int64_t kLook = 10'000'000;                   // ns, sysmon's longest sleep
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::int64_t limit = -1;
  while (std::chrono::steady_clock::now() < give_up) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    const auto st = status();
    if (st) {
      if (limit < 0) limit = st->now_ns + kShutdownSimulated;
      std::int64_t next = st->now_ns + kLook;
      if (st->quiet && st->deadline_ns >= 0) next = std::max(next, st->deadline_ns);
      if (next <= limit) advance(next);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::string ShimmedScheduler::ask(const std::string& request) {
  if (fd_ < 0) return {};
  const std::string line = request + "\n";
  if (send(fd_, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
    close(fd_);
    fd_ = -1;
    return {};
  }
  // The reply is one line, read in blocks: a byte per read() was 70 system calls per STATUS,
  // which serve asks up to every millisecond while the scheduler works.
  std::string reply;
  char block[256];
  for (;;) {
    const ssize_t n = read(fd_, block, sizeof block);
    if (n <= 0) break;
    reply.append(block, static_cast<std::size_t>(n));
    if (reply.back() == '\n') {
      reply.pop_back();
      return reply;
    }
  }
  close(fd_);
  fd_ = -1;
  return {};
}

std::optional<ShimmedScheduler::Status> ShimmedScheduler::status() {
  std::istringstream in(ask("STATUS"));
  std::string now, quiet, deadline;
  Status s{};
  int q = 0;
  if (!(in >> now >> s.now_ns >> quiet >> q >> deadline >> s.deadline_ns)) return std::nullopt;
  s.quiet = q == 1;
  return s;
}

std::optional<ShimmedScheduler::RunResult> ShimmedScheduler::run_timers(const RunLimits& l) {
  const std::string reply = ask("RUN " + std::to_string(l.event_ns) + " " + std::to_string(l.until_ns) + " " +
                                std::to_string(l.slack_ns) + " " + std::to_string(l.floor_ns) + " " +
                                std::to_string(l.finish_at_ns));
  RunResult r{};
  if (reply.rfind("error", 0) == 0) {  // e.g. a kernel without pidfd_getfd: the caller steps itself
    r.steps = -1;
    return r;
  }
  std::istringstream in(reply);
  std::string now, steps, stop, why, deadline;
  if (!(in >> now >> r.now_ns >> steps >> r.steps >> stop >> why >> deadline >> r.deadline_ns)) return std::nullopt;
  r.at_event = why == "event" || why == "no-timer" || why == "end" || why == "until";
  return r;
}

void ShimmedScheduler::advance(std::int64_t ns) { ask("ADVANCE " + std::to_string(ns)); }

bool ShimmedScheduler::bytes_in_flight() const { return options_.bytes_unread && options_.bytes_unread(); }

}  // namespace kubesim::api
