// The report of a comparison (study/compare.hpp), built in memory in a fixed order:
//   <label>/seed-<k>/...   each run's outputs, as `kubesim run` writes them
//   summary.csv            scheduler,tenant,seeds, then <column>_mean,<column>_min,<column>_max
//                          for the study's columns (jobs, completed, failed_pods, total_cores,
//                          total_queue_time_s, average_queue_time_s, total_run_time_s,
//                          total_queue_run_time_s, makespan_s, utilisation) over the seeds.
//                          One row per scheduler (in --schedulers order) and tenant, then the
//                          scheduler's "(cluster)" row: counts and totals summed over tenants,
//                          average queue time over every started Job, makespan = last finish -
//                          first creation over all tenants, utilisation (empty in tenant rows).
//   queue_times.csv        scheduler,jobs,mean_s,min_s,p25_s,p50_s,p75_s,p90_s,p99_s,max_s: the
//                          queue time of every started Job of every tenant, pooled over seeds
//   cores_<i>.svg          running cores per tenant of scheduler i (seed 1), same axes for all
//   cores_running.svg      all tenants' running cores over time, mean over seeds, per scheduler
//   utilisation.svg        utilisation per scheduler: min-max over seeds (bar), mean (dot)
//   makespan.svg           makespan per scheduler, the same way
//   queue_time_box.svg     queue-time distribution per scheduler: min-max whiskers, p25-p75 box,
//                          median line, mean dot
//   queue_time_quantiles.svg  queue time against quantile (0-100 %), one line per scheduler
//   compare.html           parameters, what differed, the side-by-side tables and every chart
//                          inlined (self-contained: inline CSS, no script)
// Number formats as in report/tenant_report.hpp ("%.6f" without trailing zeros).
#pragma once

#include <string>
#include <vector>

#include "report/run_outputs.hpp"
#include "study/compare.hpp"

namespace kubesim {

// Mean, min and max of one value over the seeds.
struct SeedStat {
  double mean = 0;
  double min = 0;
  double max = 0;
};
SeedStat seed_stat(const std::vector<double>& values);

// Linear-interpolation quantile (q in [0, 1]) of sorted values (R type 7); 0 when empty.
double quantile_sorted(const std::vector<double>& sorted, double q);

std::string compare_summary_csv(const Comparison& cmp);
std::string queue_times_csv(const Comparison& cmp);
// Plain statements computed from the numbers: best and worst scheduler by makespan,
// utilisation and each tenant's mean queue time (and completed Jobs, failed pods when they
// differ), and whether the gap is beyond the seed-to-seed spread (min-max ranges disjoint).
std::vector<std::string> what_differed(const Comparison& cmp);
std::string compare_html(const Comparison& cmp, const std::vector<ReportFile>& charts);

// Every file in writing order: the runs' files, the CSVs, the charts, compare.html last.
std::vector<ReportFile> build_comparison_files(const Comparison& cmp);

}  // namespace kubesim
