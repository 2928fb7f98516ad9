// What a run's jobs.csv says, summarised for people: how many jobs ran, were killed or were
// rejected, the makespan, the distributions of waiting time, slowdown and bounded slowdown,
// and the cluster's utilisation. The run report (run_report.hpp), `kubesim run`'s summary line
// and its messages read these, so that they agree with jobs.csv by construction.
//
// Definitions (per job of jobs.csv that was not REJECTED):
//   wait              start - submission (Batsim's waiting_time)
//   slowdown          (finish - submission) / (finish - start) (Batsim's stretch; jobs that ran
//                     0 s have none and are left out)
//   bounded slowdown  max(1, (finish - submission) / max(finish - start, tau)), tau = 10 s:
//                     D. G. Feitelson, L. Rudolph, U. Schwiegelshohn, K. C. Sevcik, P. Wong,
//                     "Theory and Practice in Parallel Job Scheduling", JSSPP 1997, LNCS 1291,
//                     section 6.2 (very short jobs no longer dominate the mean)
//   makespan          the last finish (Batsim's schedule.csv makespan)
//   utilisation       the pods' requested cpu x running time, over the capacity (the nodes'
//                     allocatable cpu) x the makespan
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "report/batsim_csv.hpp"
#include "report/run_outputs.hpp"

namespace kubesim {

inline constexpr double kBoundedSlowdownTau = 10.0;  // seconds (Feitelson et al. 1997)

// Linear-interpolation quantile (q in [0, 1]) of sorted values (R type 7); 0 when empty.
double quantile_sorted(const std::vector<double>& sorted, double q);

// Mean and quantiles of some values (all 0 when there are none).
struct Quantiles {
  std::size_t n = 0;
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
};
// Sorts `values` and summarises them.
Quantiles quantiles_of(std::vector<double> values);

// A job's bounded slowdown (see the top of this header).
double bounded_slowdown(double wait_s, double run_s, double tau_s = kBoundedSlowdownTau);

// A started job's wait and run time (jobs.csv: start - submission, finish - start).
struct JobTime {
  double wait_s = 0;
  double run_s = 0;
};
// The jobs that were not REJECTED, in jobs.csv's order.
std::vector<JobTime> started_job_times(const std::vector<JobResult>& jobs);

// The distributions of wait, slowdown (jobs that ran 0 s left out) and bounded slowdown.
struct JobTimeQuantiles {
  Quantiles wait_s;
  Quantiles slowdown;
  Quantiles bounded_slowdown;
};
JobTimeQuantiles job_time_quantiles(const std::vector<JobTime>& times);

struct JobStats {
  std::uint64_t jobs = 0;
  std::uint64_t succeeded = 0;  // COMPLETED_SUCCESSFULLY
  std::uint64_t ended_otherwise = 0;  // ran, then COMPLETED_FAILED, _KILLED or _WALLTIME_REACHED
  std::uint64_t rejected = 0;   // REJECTED: never started
  std::uint32_t first_rejected = 0;  // workload index of the first REJECTED job in jobs.csv
  double makespan_s = 0;
  JobTimeQuantiles times;
  double utilisation = 0;      // fraction, see above
  std::int64_t capacity_milli = 0;
};

JobStats job_stats(const RunOutputs& run, const std::vector<JobResult>& jobs);
inline JobStats job_stats(const RunOutputs& run) { return job_stats(run, job_results(run)); }

// The cluster's running cores over time (a step function of the pods' requested cpu), sampled
// at `points` + 1 evenly spaced times over [0, end_s]: each value is the mean over the interval
// that ends there (0 at t = 0), so short bursts are neither lost nor exaggerated.
struct CoresOverTime {
  std::vector<double> time_s;
  std::vector<double> running_cores;
  std::vector<double> waiting_jobs;  // submitted, not started (not REJECTED ones after the end)
};
CoresOverTime cores_over_time(const RunOutputs& run, const std::vector<JobResult>& jobs, double end_s,
                              std::size_t points = 600);

}  // namespace kubesim
