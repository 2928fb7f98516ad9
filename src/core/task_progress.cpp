#include "core/task_progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace kubesim {

namespace {
constexpr auto kQuietStart = std::chrono::seconds(2);  // a shorter command prints nothing (as `run`)
}  // namespace

TaskProgress::TaskProgress(std::string command, std::string unit, bool quiet)
    : command_(std::move(command)), unit_(std::move(unit)), enabled_(!quiet && ::isatty(STDERR_FILENO) != 0),
      start_(Clock::now()) {}

TaskProgress::~TaskProgress() { finish(); }

void TaskProgress::finish() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (shown_) std::fprintf(stderr, "\n");
  shown_ = false;
}

void TaskProgress::done_one(std::size_t total) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  if (!enabled_) return;
  const auto wall = Clock::now() - start_;
  if (wall < kQuietStart) return;
  // \33[K clears what a longer previous line left.
  std::fprintf(stderr, "\rkubesim %s: %zu of %zu %s done, %.0f s\33[K", command_.c_str(), done_, total, unit_.c_str(),
               std::chrono::duration<double>(wall).count());
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace kubesim
