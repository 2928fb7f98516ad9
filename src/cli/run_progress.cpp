#include "cli/run_progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "engine/simulation.hpp"

namespace kubesim {

namespace {

constexpr auto kQuietStart = std::chrono::seconds(2);        // a shorter run prints nothing
constexpr auto kRefresh = std::chrono::milliseconds(500);    // the line is redrawn at most this often

// "3d04h05m06s", "5m06s", "6.5s": the simulated time reached, readable at a glance.
std::string span_text(double seconds) {
  char out[64];
  const auto s = static_cast<long long>(seconds);
  if (s < 60) {
    std::snprintf(out, sizeof out, "%.1fs", seconds);
  } else if (s < 3600) {
    std::snprintf(out, sizeof out, "%lldm%02llds", s / 60, s % 60);
  } else if (s < 86400) {
    std::snprintf(out, sizeof out, "%lldh%02lldm%02llds", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(out, sizeof out, "%lldd%02lldh%02lldm", s / 86400, s / 3600 % 24, s / 60 % 60);
  }
  return out;
}

// 1234 -> "1234", 1234567 -> "1.23M".
std::string count_text(double n) {
  char out[32];
  if (n < 1e4) std::snprintf(out, sizeof out, "%.0f", n);
  else if (n < 1e6) std::snprintf(out, sizeof out, "%.1fk", n / 1e3);
  else if (n < 1e9) std::snprintf(out, sizeof out, "%.2fM", n / 1e6);
  else std::snprintf(out, sizeof out, "%.2fG", n / 1e9);
  return out;
}

}  // namespace

RunProgress::RunProgress(const Simulation& sim)
    : sim_(sim), enabled_(::isatty(STDERR_FILENO) != 0), start_(Clock::now()), last_shown_(start_) {}

RunProgress::~RunProgress() {
  if (shown_) std::fprintf(stderr, "\n");
}

void RunProgress::update(double finished) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  if (now - start_ < kQuietStart || (shown_ && now - last_shown_ < kRefresh)) return;
  const std::uint64_t events = sim_.events_processed();
  const double wall = std::chrono::duration<double>(now - last_shown_).count();
  const double rate = wall > 0 ? static_cast<double>(events - last_events_) / wall : 0;
  const int percent = static_cast<int>(finished * 100);
  // \33[K clears what a longer previous line left.
  std::fprintf(stderr, "\rkubesim: %3d%% of jobs finished, simulated %s, %s events, %s events/s\33[K", percent,
               span_text(sim_.now().to_seconds()).c_str(), count_text(static_cast<double>(events)).c_str(),
               count_text(rate).c_str());
  std::fflush(stderr);
  shown_ = true;
  last_shown_ = now;
  last_events_ = events;
}

}  // namespace kubesim
