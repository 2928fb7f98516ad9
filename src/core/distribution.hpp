// Latency distributions for model parameters: "fixed:S", "uniform:A:B", "normal:MEAN:SD",
// "lognormal:MU:SIGMA" (of ln seconds), "exponential:MEAN". Values are seconds; a draw is
// clamped at zero and rounded to the microsecond.
#pragma once

#include <string>
#include <string_view>

#include "core/random.hpp"
#include "core/time.hpp"

namespace kubesim {

class Distribution {
 public:
  enum class Kind { kFixed, kUniform, kNormal, kLogNormal, kExponential };

  Distribution() = default;
  static Distribution fixed(Duration d) { return Distribution(Kind::kFixed, d.to_seconds(), 0); }
  // Throws InputError(file, line, ...) on a malformed specification.
  static Distribution parse(std::string_view spec, const std::string& file, int line);

  // A fixed distribution draws nothing, so zero latencies never consume random numbers.
  Duration sample(RandomStream& rng) const;
  bool is_zero() const { return kind_ == Kind::kFixed && a_ == 0.0; }
  // Mean and variance in seconds (of the unclamped distribution).
  double mean() const;
  double variance() const;
  std::string to_string() const;

 private:
  Distribution(Kind k, double a, double b) : kind_(k), a_(a), b_(b) {}
  Kind kind_ = Kind::kFixed;
  double a_ = 0.0;
  double b_ = 0.0;
};

}  // namespace kubesim
