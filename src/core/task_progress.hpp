// The progress line of a command made of many runs (`kubesim compare`, `kubesim fidelity`) on a
// terminal: "kubesim compare: 3 of 8 runs done, 12 s", so that a long command is not silent.
// As RunProgress (cli/run_progress.hpp): shown only when stderr is a terminal and only once the
// command has taken two seconds of wall time; the wall clock is read for display only.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace kubesim {

class TaskProgress {
 public:
  // `command`: "compare"; `unit`: "runs"; `quiet`: never show (--quiet).
  TaskProgress(std::string command, std::string unit, bool quiet);
  ~TaskProgress();  // ends the line, when one was shown
  TaskProgress(const TaskProgress&) = delete;
  TaskProgress& operator=(const TaskProgress&) = delete;

  // One more of `total` done; callable from any thread.
  void done_one(std::size_t total);
  // Ends the line, when one was shown (before the command prints its summary).
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  const std::string command_, unit_;
  const bool enabled_;
  std::mutex mutex_;
  std::size_t done_ = 0;
  bool shown_ = false;
  Clock::time_point start_;
};

}  // namespace kubesim
