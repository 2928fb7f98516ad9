// The measuring client of the Batkube real-k3s runs, as a model: what its timestamps would be
// for pods whose events happened at given instants. Source: oar-team/batkube-test
// real-cluster-experiment/main.go (the program that wrote data/batkube/real-k3s/*.csv):
// - One goroutine (runResourceWatcher) handles, one at a time and in arrival order, the core/v1
//   Events from an informer and the Jobs informer's "succeeded" updates, and stamps each with
//   the wall clock when it handles it (`time.Now()`), not with the Event's own time.
// - For a Scheduled Event it first GETs the pod (to learn its node) and stamps after the GET,
//   through the program's one clientset. That clientset has client-go's default client-side
//   limit (rest.Config QPS 0 means 5 requests a second, burst 10: k8s.io/client-go/rest
//   config.go DefaultQPS/DefaultBurst; a token bucket, flowcontrol.NewTokenBucketRateLimiter
//   over golang.org/x/time/rate, whose reservations may overdraw the bucket and wait).
// - The submitter goroutine creates the Jobs through the same clientset, so the creations
//   take tokens too: with every job of the burst workload submitted at 0 s, the measured
//   submissions spread over 38 s (10 at once, then one every 0.2 s: 190 / 5 = 38 s).
// So when more than ten Scheduled Events arrive together (a wave of pods bound at once), the
// 11th and later are stamped 0.2 s apart, and every Event arriving meanwhile (a Pulling, a
// Started) waits in the queue and is stamped when the GETs are done. Measured intervals are
// those of the stamps, and the model's are compared with them through this same filter.
// Not modelled: the GET's own round trip and the watch hop to the client (milliseconds on the
// testbed; equal for every Event, so they cancel in the intervals compared).
#pragma once

#include <vector>

#include "calibrate/measurements.hpp"

namespace kubesim::calibrate {

struct ClientRateLimit {
  double qps = 5;     // client-go DefaultQPS
  double burst = 10;  // client-go DefaultBurst
};

// `truth`: per pod the instants (seconds) its Job was created (`submitted`: the creation takes
// a token) and its Events happened (scheduled, pulling, pulled, created, started) and its
// completion was stored (`finished`); unknown instants are left out. Returns the same pods with
// the stamps the submitter would have written; `submitted` is kept (the replays take it from
// the measurements, which already went through the limiter). Deterministic: ties in arrival
// are handled in pod order, then in the order of the fields above.
std::vector<PodTimeline> observe_like_batkube_submitter(const std::vector<PodTimeline>& truth,
                                                        ClientRateLimit limit = {});

// The measured side, read back: which stamps of one run the limiter held. Replays the bucket
// over the run's stamps in time order (a Scheduled GET taken at its stamp, a Job creation at
// its submission stamp): a GET that came when the previous grant had left less than one token
// and found at most one token plus `round_trip` of refill had waited for its token (its stamp
// comes the GET's round trip after the grant: consecutive held stamps on the testbed are
// 0.196-0.213 s apart, not 0.200), so its stamp is the limiter's; so is every Event stamp
// within `queued` after it (queued behind the GET, handled at once). Returns per pod (same
// order as run.pods) which of its stamps were held.
struct HeldStamps {
  bool scheduled = false, pulling = false, pulled = false, created = false, started = false;
};
std::vector<HeldStamps> held_by_batkube_submitter(const MeasuredRun& run, ClientRateLimit limit = {},
                                                  double round_trip = 0.03, double queued = 0.003);

}  // namespace kubesim::calibrate
