// Simulated time: integer microseconds in strong types, so that a point in time and a
// length of time cannot be mixed up and no floating-point rounding enters event order.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <string>

namespace kubesim {

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration micros(std::int64_t us) { return Duration(us); }
  static constexpr Duration millis(std::int64_t ms) { return Duration(ms * 1000); }
  static constexpr Duration seconds(std::int64_t s) { return Duration(s * 1'000'000); }
  // Rounds to the nearest microsecond; inputs are validated by callers (finite, in range).
  static Duration from_seconds(double s) { return Duration(static_cast<std::int64_t>(std::llround(s * 1e6))); }
  static constexpr Duration max() { return Duration(std::numeric_limits<std::int64_t>::max() / 4); }

  constexpr std::int64_t micros() const { return us_; }
  constexpr double to_seconds() const { return static_cast<double>(us_) / 1e6; }

  constexpr Duration operator+(Duration o) const { return Duration(us_ + o.us_); }
  constexpr Duration operator-(Duration o) const { return Duration(us_ - o.us_); }
  constexpr Duration operator*(std::int64_t k) const { return Duration(us_ * k); }
  constexpr Duration& operator+=(Duration o) { us_ += o.us_; return *this; }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime zero() { return SimTime(); }
  static constexpr SimTime at(Duration since_start) { return SimTime(since_start.micros()); }
  static SimTime from_seconds(double s) { return at(Duration::from_seconds(s)); }
  static constexpr SimTime never() { return SimTime(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t micros() const { return us_; }
  constexpr double to_seconds() const { return static_cast<double>(us_) / 1e6; }
  constexpr Duration since_start() const { return Duration::micros(us_); }
  constexpr bool is_never() const { return us_ == std::numeric_limits<std::int64_t>::max(); }

  constexpr SimTime operator+(Duration d) const { return SimTime(us_ + d.micros()); }
  constexpr SimTime operator-(Duration d) const { return SimTime(us_ - d.micros()); }
  constexpr Duration operator-(SimTime o) const { return Duration::micros(us_ - o.us_); }
  constexpr auto operator<=>(const SimTime&) const = default;

 private:
  constexpr explicit SimTime(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

// "%.6f" seconds, the format Batsim's std::to_string produces; exact for integer microseconds.
std::string format_seconds(std::int64_t micros);
void append_seconds(std::string& out, std::int64_t micros);  // format_seconds, appended
// format_seconds written at `out`, which has room for kMaxSecondsChars; returns the end.
char* write_seconds(char* out, std::int64_t micros);
inline constexpr std::size_t kMaxSecondsChars = 21;  // "-9223372036854.775808"
inline std::string format_seconds(SimTime t) { return format_seconds(t.micros()); }
inline std::string format_seconds(Duration d) { return format_seconds(d.micros()); }

}  // namespace kubesim
