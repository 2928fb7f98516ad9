// The multi-tenant study's metrics (reference/scheduler-semantics.md section 7b), per tenant
// (= namespace), as data: the per-second time series of pending, running, completed and
// preempted cores, the per-tenant summary, and cluster utilisation. The recorder
// (tenant_recorder.hpp) fills these from the change feed; report/ writes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/time.hpp"

namespace kubesim {

// Cores in millicores, at one sample instant, for one tenant. The study's definitions:
// - pending: Jobs (or bare pods) not running and not finished, including Jobs that have no
//   pod because ResourceQuota admission rejected it (no pod, empty status);
// - running: Jobs with a running pod (status.ready; bare pods: phase Running);
// - completed: Jobs that completed (status.succeeded reached completions);
// - preempted: Jobs with status.failed set (a pod failed: preempted, evicted, rejected or
//   exited non-zero) that are neither running again nor completed. The study counted every
//   Job with failed pods as preempted; a replacement that runs is counted as running here,
//   so that running cores (and utilisation) are the cores actually in use.
struct TenantSample {
  std::int64_t pending = 0;
  std::int64_t running = 0;
  std::int64_t completed = 0;
  std::int64_t preempted = 0;
};

struct TenantTimeSeries {
  std::vector<std::string> tenants;  // namespaces that received work, in first-submission order
  Duration interval = Duration::seconds(1);
  std::vector<SimTime> times;          // 0, interval, 2*interval, ... up to the end of the run
  std::vector<TenantSample> samples;   // times.size() x tenants.size(), row-major by time
  std::vector<std::int64_t> pending_pods;  // per sample: pods created, not yet bound (queue length)
  std::int64_t capacity_milli = 0;     // the utilisation denominator (schedulable cores)

  const TenantSample& at(std::size_t time_index, std::size_t tenant) const {
    return samples[time_index * tenants.size() + tenant];
  }
};

// The study's per-tenant summary (one row per tenant). Queue time = container start - Job
// creation; run time = container finish - container start; makespan = last finish - first
// creation in the tenant. Only Jobs whose container started count in the queue/run sums.
struct TenantSummary {
  std::string tenant;
  std::uint64_t jobs = 0;            // Jobs (or bare pods) submitted
  std::uint64_t completed = 0;       // Jobs that completed
  std::uint64_t failed_pods = 0;     // pods that failed (preempted, evicted, rejected, non-zero exit)
  std::int64_t total_cores_milli = 0;  // sum of requested cpu of the submitted Jobs
  double total_queue_s = 0;
  double average_queue_s = 0;
  double total_run_s = 0;
  double total_queue_run_s = 0;
  double makespan_s = 0;
  // Queue time of each Job (or bare pod) whose container started, in workload order.
  std::vector<double> queue_times_s;

  // Adds another summary's counts and totals (a cluster row is the sum of its tenants'; the
  // averages, the makespan and the queue times are the caller's to derive).
  void add_totals(const TenantSummary& t) {
    jobs += t.jobs;
    completed += t.completed;
    failed_pods += t.failed_pods;
    total_cores_milli += t.total_cores_milli;
    total_queue_s += t.total_queue_s;
    total_run_s += t.total_run_s;
    total_queue_run_s += t.total_queue_run_s;
  }
};

struct RunSummary {
  std::vector<TenantSummary> tenants;
  double utilisation = 0;  // integral of running cores over [0, end] / (capacity * end)
  double makespan_s = 0;   // over all tenants: last finish - first creation
  SimTime end;
};

}  // namespace kubesim
