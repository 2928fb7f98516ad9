// Fitting one latency of the model (core/distribution.hpp) to measured durations.
//
// Criterion (documented, deterministic): with fine timestamps (every endpoint resolved to
// better than a millisecond) each family the model file can hold is fitted by maximum
// likelihood and the one with the smallest AIC (2k - 2 ln L) is chosen:
//   fixed        all values equal (k = 1; chosen only then: its likelihood is otherwise 0)
//   uniform      [min, max]                       (k = 2)
//   normal       mean, sd (MLE: divide by n)      (k = 2)
//   lognormal    mean and sd of ln x; all x > 0   (k = 2)
//   exponential  mean; all x >= 0                 (k = 1)
// Coarse timestamps (Kubernetes' metav1.Time has whole seconds) or a latency measured only
// inside a sum with a known other term identify the first two moments only: the fit is then
// a normal with the measured mean (minus the known term's mean) and variance (minus the
// known term's and the rounding's variance: a timestamp truncated to r seconds adds r^2/12),
// or fixed when that variance is not positive.
// Sums are taken over sorted values, so the same multiset of inputs gives the same fit
// whatever the row order.
#pragma once

#include <string>
#include <vector>

#include "core/distribution.hpp"
#include "core/random.hpp"

namespace kubesim::calibrate {

struct CandidateFit {
  std::string spec;  // e.g. "normal:1.2:0.3"
  double aic = 0.0;
};

struct Fit {
  Distribution distribution;
  std::string spec;
  std::string method;  // "AIC among ..." or "moments"
  std::vector<CandidateFit> candidates;  // maximum-likelihood fits, in the order above
  double mean = 0.0;   // of the fitted latency (model parameter), seconds
  double sd = 0.0;
};

// Maximum likelihood + AIC. `values` non-empty, finite.
Fit fit_by_likelihood(std::vector<double> values);
// Whether a model file may hold `d` (engine/model_config: mean and deviation at most
// kMaxLatencySeconds, core/limits.hpp); NaN is not.
bool within_latency_limit(const Distribution& d);

// Moments of (value - known_mean) with variance reduced by `known_variance` (a known other
// term plus rounding). `values` non-empty.
Fit fit_by_moments(std::vector<double> values, double known_mean, double known_variance);

// Formats a number of seconds for a model file: up to 6 decimals, trailing zeros trimmed.
std::string format_seconds_value(double seconds);

double mean_of(const std::vector<double>& sorted);
double variance_of(const std::vector<double>& sorted, double mean);  // population variance

// The Kolmogorov-Smirnov distance sup |F_a - F_b| of two samples (sorted in place).
double ks_distance(std::vector<double> a, std::vector<double> b);

}  // namespace kubesim::calibrate
