// client-go's client-side rate limiter: every request a clientset makes first waits for a
// token. kube-scheduler's client (the binding POST, the PodScheduled=False status PATCH, ...)
// and kube-controller-manager's Job controller client (control/job_controller.hpp) each have
// one.
//
// Upstream: cmd/kube-scheduler/app/options/options.go createKubeConfig copies
// KubeSchedulerConfiguration.clientConnection.qps/burst into the rest.Config;
// kubernetes/clientset.go NewForConfigAndClient builds one
// flowcontrol.NewTokenBucketRateLimiter(qps, burst) for the clientset when qps > 0
// (client-go util/flowcontrol/throttle.go: "The bucket is initially filled with 'burst'
// tokens, and refills at a rate of 'qps'"), a golang.org/x/time/rate Limiter; rest/request.go
// tryThrottle calls its Wait before each request. rate.Limiter.reserveN: tokens refill
// continuously up to burst; a request takes one, and if that leaves the count negative it
// waits -tokens/qps; reservations are granted in call order. kube-scheduler's defaults are
// qps 50 and burst 100 (pkg/scheduler/apis/config/v1/defaults.go
// SetDefaults_KubeSchedulerConfiguration, v1.26). The scheduler's events go through a second
// clientset (eventClient) with a bucket of its own, so they do not take these tokens.
#pragma once

#include <cstdint>

#include "core/time.hpp"

namespace kubesim {

class ClientRateLimiter {
 public:
  // qps <= 0: no limiter (NewForConfigAndClient builds none unless QPS > 0).
  ClientRateLimiter(double qps, std::int32_t burst);
  // Wait(ctx) for a request made at `now` (non-decreasing across calls): the time it may
  // go, >= now.
  SimTime acquire(SimTime now);
  bool limited() const { return qps_ > 0; }
  // The earliest time >= now at which a request would get its token without waiting (the
  // bucket holds one), without taking it.
  SimTime next_token(SimTime now) const;

 private:
  // The bucket as the time it was (or will be) empty, in nanoseconds: at time t it holds
  // min(burst, (t - empty_at) / interval) tokens, and a negative count is a queue of
  // promised tokens. Integers keep it exact and deterministic.
  double qps_;
  std::int64_t interval_ns_ = 0;  // 1 / qps
  std::int64_t burst_ns_ = 0;     // burst * interval: the time a full bucket takes to refill
  std::int64_t empty_at_ns_;
};

}  // namespace kubesim
