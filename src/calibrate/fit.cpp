#include "calibrate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <utility>

#include "core/limits.hpp"

namespace kubesim::calibrate {

std::string format_seconds_value(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", seconds);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v, double mean) {
  double sum = 0.0;
  for (double x : v) sum += (x - mean) * (x - mean);
  return sum / static_cast<double>(v.size());
}

namespace {

Distribution parse_spec(const std::string& spec) { return Distribution::parse(spec, "calibrate", 0); }

std::string spec1(const char* kind, double a) { return std::string(kind) + ":" + format_seconds_value(a); }
std::string spec2(const char* kind, double a, double b) {
  return std::string(kind) + ":" + format_seconds_value(a) + ":" + format_seconds_value(b);
}

}  // namespace

Fit fit_by_likelihood(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  const double mean = mean_of(values);
  const double var = variance_of(values, mean);
  Fit fit;
  fit.method = "maximum likelihood, smallest AIC";
  if (values.front() == values.back()) {
    fit.spec = spec1("fixed", std::max(0.0, mean));
    fit.candidates.push_back({fit.spec, -std::numeric_limits<double>::infinity()});
  } else {
    const double lo = values.front(), hi = values.back();
    if (lo >= 0) fit.candidates.push_back({spec2("uniform", lo, hi), 2 * 2 + 2 * n * std::log(hi - lo)});
    const double sd = std::sqrt(var);
    fit.candidates.push_back(
        {spec2("normal", mean, sd), 2 * 2 + n * std::log(2 * std::numbers::pi * var) + n});
    if (lo > 0) {
      std::vector<double> logs;
      logs.reserve(values.size());
      double sum_log = 0.0;
      for (double x : values) logs.push_back(std::log(x)), sum_log += logs.back();
      const double mu = mean_of(logs);
      const double s2 = variance_of(logs, mu);
      if (s2 > 0)
        fit.candidates.push_back({spec2("lognormal", mu, std::sqrt(s2)),
                                  2 * 2 + 2 * sum_log + n * std::log(2 * std::numbers::pi * s2) + n});
    }
    if (lo >= 0 && mean > 0) fit.candidates.push_back({spec1("exponential", mean), 2 * 1 + 2 * n * std::log(mean) + 2 * n});
    // A family whose fit `run` would refuse (mean or deviation beyond the model's latency
    // limit: a lognormal of sigma 6.5 over a few outliers) is not chosen; when every family's
    // is, calibrate() refuses the measurements (within_latency_limit).
    const auto rank = [](const CandidateFit& c) {
      return std::pair(!within_latency_limit(parse_spec(c.spec)), c.aic);
    };
    const auto best = std::min_element(fit.candidates.begin(), fit.candidates.end(),
                                       [&](const CandidateFit& a, const CandidateFit& b) { return rank(a) < rank(b); });
    fit.spec = best->spec;
  }
  fit.distribution = parse_spec(fit.spec);
  fit.mean = mean;
  fit.sd = std::sqrt(var);
  return fit;
}

Fit fit_by_moments(std::vector<double> values, double known_mean, double known_variance) {
  std::sort(values.begin(), values.end());
  const double mean = mean_of(values) - known_mean;
  const double var = variance_of(values, mean_of(values)) - known_variance;
  Fit fit;
  fit.method = "moments";
  fit.mean = std::max(0.0, mean);
  fit.sd = var > 0 ? std::sqrt(var) : 0.0;
  fit.spec = fit.sd > 0 && mean > 0 ? spec2("normal", mean, fit.sd) : spec1("fixed", fit.mean);
  fit.distribution = parse_spec(fit.spec);
  return fit;
}

bool within_latency_limit(const Distribution& d) {
  return d.mean() <= kMaxLatencySeconds && std::sqrt(d.variance()) <= kMaxLatencySeconds;
}

double ks_distance(std::vector<double> a, std::vector<double> b) {
  if (a.empty() || b.empty()) return 1.0;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::size_t i = 0, j = 0;
  double d = 0.0;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  return d;
}

}  // namespace kubesim::calibrate
