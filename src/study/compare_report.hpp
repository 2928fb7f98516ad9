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
//   compare.html           parameters, what differed (compare_differences.hpp), the side-by-side
//                          tables and every chart inlined (self-contained: inline CSS, no script)
// Number formats as in report/tenant_report.hpp ("%.6f" without trailing zeros).
#pragma once

#include <string>
#include <vector>

#include "report/run_outputs.hpp"
#include "study/compare.hpp"
#include "study/compare_differences.hpp"
#include "study/compare_stats.hpp"

namespace kubesim {

std::string compare_summary_csv(const Comparison& cmp);
std::string queue_times_csv(const Comparison& cmp);
std::string compare_html(const Comparison& cmp, const std::vector<ReportFile>& charts);

// Every file in writing order: the runs' files, the CSVs, the charts, compare.html last.
std::vector<ReportFile> build_comparison_files(const Comparison& cmp);

}  // namespace kubesim
