// Measured per-pod timelines, the input of `kubesim calibrate`, from two sources:
// - a Batsim-style jobs.csv with the extra columns of the Batkube real-cluster runs
//   (data/batkube/real-k3s/README.md: scheduled, pulling, pulled, created are when the
//   submitter's informer saw the Events Scheduled, Pulling, Pulled, Created; starting_time
//   Started; finish_time the Job's status.succeeded == 1), checked against the workload it
//   ran (job ids, profiles and resources must match: another workload's file is an error);
// - a live cluster's Pods and Events (core/v1 pods, events.k8s.io/v1 events) of one
//   namespace, as JSON lists (read over HTTP by live_cluster.hpp).
// A missing value (a blank cell, an Event the cluster did not keep) leaves that timestamp
// unknown: the intervals that need it are skipped and counted, never guessed.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workload/workload.hpp"

namespace kubesim::calibrate {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
inline bool known(double t) { return !std::isnan(t); }

// Seconds since the run's origin; kUnknown when not measured.
struct PodTimeline {
  std::string id;  // job id (jobs.csv) or pod name
  double submitted = kUnknown;  // Job/pod creation
  double scheduled = kUnknown;  // Event Scheduled
  double pulling = kUnknown, pulled = kUnknown, created = kUnknown;  // kubelet Events
  double started = kUnknown;    // Event Started / container startedAt
  double finished = kUnknown;   // completion seen (see MeasuredRun::finish_meaning)
  double run_time = kUnknown;   // how long the container was asked to run (the workload's)
  double pull_duration = kUnknown;  // from the Pulled message ("... in 1.234s"), when given
  // The node the pod ran on (jobs.csv allocated_resources, a pod's spec.nodeName); empty when
  // not measured. Per-node start-up history (calibrate.hpp podStartupStall) needs it.
  std::string node;
};

struct MeasuredRun {
  std::string source;  // file name or "cluster <server> namespace <ns>"
  std::vector<PodTimeline> pods;  // sorted by id (row order never matters)
  // Timestamp resolution (seconds) of the scheduler's and of the kubelet's timestamps:
  // 0.001 in the jobs.csv files, 1 s for core/v1 Events and pod statuses (metav1.Time).
  double scheduled_resolution = 0.001;
  double kubelet_resolution = 0.001;
  // Hops of the API's watch between a submission and the scheduler's cycle: 2 for a Job
  // (Job controller, then scheduler), 1 for a bare pod.
  int submission_watch_hops = 2;
  std::string finish_meaning;  // what `finished` is, for the model file's comments
  // Whether the stamps are the Batkube submitter's (observer.hpp: when one client handled
  // each Event, its Scheduled GETs held by a 5 QPS limit), not the Events' own times.
  bool stamped_by_batkube_submitter = false;
  // Cells or objects that could not be used, by reason (in first-seen order).
  SkippedJobs skipped;
};

// Reads one jobs.csv. Throws InputError (file, line) on a missing column, a malformed
// number, a duplicated job id, or a job the workload does not have / has with another
// profile or resource count. Blank cells are counted in `skipped` by column.
MeasuredRun read_measured_jobs_csv(const std::string& path, const Workload& workload);

// Builds timelines from a PodList and an events.k8s.io/v1 EventList (JSON). Pods created
// outside [since, until] (unix seconds; NaN: unbounded) are skipped and counted. The
// origin (time 0) is the earliest pod creation kept.
MeasuredRun timelines_from_cluster(const nlohmann::json& pods, const nlohmann::json& events, const std::string& source,
                                   double since_unix, double until_unix);

// Go's time.Duration text ("1.5s", "950ms", "1m2.5s", "12µs") in seconds; NaN if malformed.
double parse_go_duration(std::string_view text);

}  // namespace kubesim::calibrate
