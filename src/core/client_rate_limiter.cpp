#include "core/client_rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kubesim {

ClientRateLimiter::ClientRateLimiter(double qps, std::int32_t burst)
    : qps_(qps), empty_at_ns_(std::numeric_limits<std::int64_t>::min() / 2) {
  if (qps_ <= 0) return;
  interval_ns_ = std::max<std::int64_t>(1, std::llround(1e9 / qps_));
  burst_ns_ = static_cast<std::int64_t>(std::max(burst, 0)) * interval_ns_;
}

SimTime ClientRateLimiter::acquire(SimTime now) {
  if (qps_ <= 0) return now;
  const std::int64_t now_ns = now.micros() * 1000;
  // rate.Limiter.advance: the bucket refills up to burst (the empty time moves no further
  // back than burst intervals before now); reserveN takes one token.
  empty_at_ns_ = std::max(empty_at_ns_, now_ns - burst_ns_) + interval_ns_;
  if (empty_at_ns_ <= now_ns) return now;
  return SimTime::at(Duration::micros((empty_at_ns_ + 999) / 1000));  // waits until its token exists
}

SimTime ClientRateLimiter::next_token(SimTime now) const {
  if (qps_ <= 0) return now;
  const std::int64_t ready_ns = empty_at_ns_ + interval_ns_;
  if (ready_ns <= now.micros() * 1000) return now;
  return SimTime::at(Duration::micros((ready_ns + 999) / 1000));
}

}  // namespace kubesim
