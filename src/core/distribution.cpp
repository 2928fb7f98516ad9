#include "core/distribution.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/error.hpp"
#include "core/parse_number.hpp"

namespace kubesim {

Distribution Distribution::parse(std::string_view spec, const std::string& file, int line) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= spec.size(); ++i) {
    if (i == spec.size() || spec[i] == ':') {
      parts.push_back(spec.substr(start, i - start));
      start = i + 1;
    }
  }
  auto fail = [&]() -> Distribution {
    throw InputError(file, line,
                     "invalid distribution \"" + std::string(spec) +
                         "\": expected fixed:S, uniform:A:B, normal:MEAN:SD, lognormal:MU:SIGMA or exponential:MEAN "
                         "(seconds, non-negative)");
  };
  std::vector<double> args;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    auto v = parse_double(parts[i]);
    if (!v || !std::isfinite(*v)) return fail();
    args.push_back(*v);
  }
  const std::string_view kind = parts[0];
  // A bare number means a fixed latency.
  if (parts.size() == 1) {
    auto v = parse_double(kind);
    if (!v || *v < 0 || !std::isfinite(*v)) return fail();
    return Distribution(Kind::kFixed, *v, 0);
  }
  if (kind == "fixed" && args.size() == 1 && args[0] >= 0) return Distribution(Kind::kFixed, args[0], 0);
  if (kind == "uniform" && args.size() == 2 && 0 <= args[0] && args[0] <= args[1])
    return Distribution(Kind::kUniform, args[0], args[1]);
  if (kind == "normal" && args.size() == 2 && args[1] >= 0) return Distribution(Kind::kNormal, args[0], args[1]);
  if (kind == "lognormal" && args.size() == 2 && args[1] >= 0) return Distribution(Kind::kLogNormal, args[0], args[1]);
  if (kind == "exponential" && args.size() == 1 && args[0] >= 0)
    return Distribution(Kind::kExponential, args[0], 0);
  return fail();
}

Duration Distribution::sample(RandomStream& rng) const {
  double seconds = 0.0;
  switch (kind_) {
    case Kind::kFixed: seconds = a_; break;
    case Kind::kUniform: seconds = a_ + (b_ - a_) * rng.uniform01(); break;
    case Kind::kNormal: seconds = a_ + b_ * rng.standard_normal(); break;
    case Kind::kLogNormal: seconds = std::exp(a_ + b_ * rng.standard_normal()); break;
    case Kind::kExponential: seconds = -a_ * std::log1p(-rng.uniform01()); break;
  }
  if (!(seconds > 0.0)) return Duration();
  return Duration::from_seconds(seconds);
}

double Distribution::mean() const {
  switch (kind_) {
    case Kind::kFixed: return a_;
    case Kind::kUniform: return (a_ + b_) / 2;
    case Kind::kNormal: return a_;
    case Kind::kLogNormal: return std::exp(a_ + b_ * b_ / 2);
    case Kind::kExponential: return a_;
  }
  return 0.0;
}

double Distribution::variance() const {
  switch (kind_) {
    case Kind::kFixed: return 0.0;
    case Kind::kUniform: return (b_ - a_) * (b_ - a_) / 12;
    case Kind::kNormal: return b_ * b_;
    case Kind::kLogNormal: return (std::exp(b_ * b_) - 1) * std::exp(2 * a_ + b_ * b_);
    case Kind::kExponential: return a_ * a_;
  }
  return 0.0;
}

std::string Distribution::to_string() const {
  char buf[96];
  switch (kind_) {
    case Kind::kFixed: std::snprintf(buf, sizeof buf, "fixed:%g", a_); break;
    case Kind::kUniform: std::snprintf(buf, sizeof buf, "uniform:%g:%g", a_, b_); break;
    case Kind::kNormal: std::snprintf(buf, sizeof buf, "normal:%g:%g", a_, b_); break;
    case Kind::kLogNormal: std::snprintf(buf, sizeof buf, "lognormal:%g:%g", a_, b_); break;
    case Kind::kExponential: std::snprintf(buf, sizeof buf, "exponential:%g", a_); break;
  }
  return buf;
}

}  // namespace kubesim
