#include "calibrate/observer.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace kubesim::calibrate {

namespace {

// golang.org/x/time/rate Limiter.reserveN (what client-go's token bucket calls): the bucket
// refills at `qps` up to `burst`; a reservation takes one token, possibly overdrawing, and is
// granted when the overdraft has refilled.
class TokenBucket {
 public:
  explicit TokenBucket(ClientRateLimit limit) : limit_(limit), tokens_(limit.burst) {}
  // Tokens at `now`, before taking one.
  double available(double now) const {
    return std::min(limit_.burst, tokens_ + std::max(0.0, now - last_) * limit_.qps);
  }
  // Takes a token at `now`; returns when the request may go.
  double reserve(double now) {
    tokens_ = available(now) - 1;
    last_ = std::max(last_, now);
    return tokens_ < 0 ? now - tokens_ / limit_.qps : now;
  }
  // After a reservation: a grant seen at that instant left the bucket at least empty.
  void floor_at_empty() { tokens_ = std::max(tokens_, 0.0); }
  // Tokens left by the last reservation (before any refill).
  double left() const { return tokens_; }

 private:
  ClientRateLimit limit_;
  double tokens_;
  double last_ = 0;
};

// The Event fields of a timeline, in the order same-instant arrivals are handled.
constexpr double PodTimeline::*kEventFields[] = {&PodTimeline::scheduled, &PodTimeline::pulling,
                                                 &PodTimeline::pulled,    &PodTimeline::created,
                                                 &PodTimeline::started,   &PodTimeline::finished};

}  // namespace

std::vector<PodTimeline> observe_like_batkube_submitter(const std::vector<PodTimeline>& truth, ClientRateLimit limit) {
  struct Arrival {
    double at;
    std::uint32_t pod;
    std::uint8_t field;  // index in kEventFields; 0 is Scheduled (the GET)
  };
  std::vector<Arrival> arrivals;
  std::vector<double> creations;
  for (std::uint32_t i = 0; i < truth.size(); ++i) {
    if (known(truth[i].submitted)) creations.push_back(truth[i].submitted);
    for (std::uint8_t f = 0; f < std::size(kEventFields); ++f)
      if (const double t = truth[i].*kEventFields[f]; known(t)) arrivals.push_back({t, i, f});
  }
  std::sort(creations.begin(), creations.end());
  std::sort(arrivals.begin(), arrivals.end(), [](const Arrival& a, const Arrival& b) {
    return std::tie(a.at, a.pod, a.field) < std::tie(b.at, b.pod, b.field);
  });

  std::vector<PodTimeline> observed = truth;
  TokenBucket bucket(limit);
  std::size_t next_creation = 0;
  double handler_free = -1e300;
  for (const Arrival& a : arrivals) {
    const double handled = std::max(a.at, handler_free);
    double stamp = handled;
    if (a.field == 0) {
      // The creations reserved before this GET did, in time order. Their instants are
      // measured stamps (the replays take them from the runs), that is grants that already
      // made room for the real GETs: a creation never overdraws the bucket here, or the GETs
      // of the first wave would be counted twice against the same 5 tokens a second.
      while (next_creation < creations.size() && creations[next_creation] <= handled) {
        bucket.reserve(creations[next_creation++]);
        bucket.floor_at_empty();
      }
      stamp = bucket.reserve(handled);
    }
    observed[a.pod].*kEventFields[a.field] = stamp;
    handler_free = stamp;
  }
  return observed;
}

std::vector<HeldStamps> held_by_batkube_submitter(const MeasuredRun& run, ClientRateLimit limit, double round_trip,
                                                  double queued) {
  // Token takers in time order: creations (kind 0) and Scheduled GETs (kind 1).
  std::vector<std::pair<double, int>> takers;
  for (const auto& p : run.pods) {
    if (known(p.submitted)) takers.emplace_back(p.submitted, 0);
    if (known(p.scheduled)) takers.emplace_back(p.scheduled, 1);
  }
  std::sort(takers.begin(), takers.end());
  TokenBucket bucket(limit);
  std::vector<double> held_grants;  // sorted: takers are in time order
  for (const auto& [at, kind] : takers) {
    // A stamp is a grant (plus the round trip), so the replay never overdraws the bucket:
    // creation stamps come a little after their request, and they are floored the same way.
    // A GET waited when the bucket was below one token after the previous grant and has
    // just refilled to one (give or take the round trip): the tenth GET of a full bucket
    // also finds one token, but found it without waiting.
    if (kind == 1 && bucket.left() < 1 && bucket.available(at) < 1 + round_trip * limit.qps) held_grants.push_back(at);
    bucket.reserve(at);
    bucket.floor_at_empty();
  }
  auto held = [&](double stamp) {
    if (!known(stamp)) return false;
    const auto it = std::upper_bound(held_grants.begin(), held_grants.end(), stamp);
    return it != held_grants.begin() && stamp - *std::prev(it) <= queued;
  };
  std::vector<HeldStamps> out;
  for (const auto& p : run.pods)
    out.push_back({held(p.scheduled), held(p.pulling), held(p.pulled), held(p.created), held(p.started)});
  return out;
}

}  // namespace kubesim::calibrate
