// The multi-tenant study's reports (reference/scheduler-semantics.md section 7b): CSV tables,
// SVG charts and one self-contained HTML page, from the tenant recorder's data
// (metrics/tenant_metrics.hpp) and the final object store.
//
// Files written by write_tenant_reports (all built in memory first, then each written
// atomically; report.html last):
//   timeseries.csv   time_s,tenant,pending_cores,running_cores,completed_cores,preempted_cores
//                    One row per sample and tenant (long format), samples in time order and
//                    tenants in TenantTimeSeries::tenants order within a sample.
//   queue.csv        time_s,pending_pods,running_cores,capacity_cores,utilisation
//                    One row per sample, cluster-wide: pods created and not yet bound, the
//                    tenants' running cores summed, the capacity, and running / capacity
//                    (empty when the capacity is 0; pending_pods is empty when the series has
//                    no pending_pods).
//   summary.csv      tenant,jobs,completed,failed_pods,total_cores,total_queue_time_s,
//                    average_queue_time_s,total_run_time_s,total_queue_run_time_s,makespan_s,
//                    utilisation
//                    One row per tenant (RunSummary order; utilisation empty), then a final row
//                    for tenant "(cluster)" (not a valid namespace name, so it cannot collide)
//                    with the counts, cores and total times summed over tenants, empty
//                    average_queue_time_s and makespan_s (not derivable from the per-tenant
//                    rows), and RunSummary::utilisation.
//   cores_running.svg    running cores per tenant, stacked areas, with the capacity line
//   cores_pending.svg    pending cores per tenant (solid lines) and, for tenants that had
//                        any, preempted cores (dashed lines of the same colour)
//   cores_completed.svg  completed cores per tenant (lines)
//   utilisation.svg      running cores / capacity in percent, with the mean utilisation
//                        (RunSummary::utilisation) as an annotated reference line
//   queue.svg            pending pods over time
//   gantt.svg            one bar per pod that started on a node, from `started` to `finished`
//                        (or the end of the run), one row per node with as many lanes as pods
//                        overlap there, coloured by namespace; preempted pods outlined and
//                        hatched, other failures (evicted, deleted, failed, rejected) hatched,
//                        pods still running at the end drawn lighter. Bounded: at most
//                        gantt_max_nodes rows (first nodes by id) and gantt_max_bars bars (the
//                        first by start time); the chart says when it is capped.
//   report.html      the headline (tenant_headline's sentence and cores_running.svg), the
//                    summary table rounded for people (report/human_format.hpp), the extra
//                    sections, the other charts, the parameters last (inline CSS and SVG, no
//                    script, no external resource).
//
// Number formats: cores are millicores / 1000 as exact decimals without trailing zeros
// (4000 -> "4", 500 -> "0.5", 1250 -> "1.25"); times are seconds from the integer
// microseconds, exact, without trailing zeros ("0", "1", "2.5"); other decimals (summary
// seconds, utilisation) are "%.6f" with trailing zeros removed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "metrics/tenant_metrics.hpp"
#include "model/object_store.hpp"
#include "report/run_outputs.hpp"
#include "report/svg_chart.hpp"

namespace kubesim {

struct TenantReportInput {
  const TenantTimeSeries& series;
  const RunSummary& summary;  // summary.end is the end of the run (the charts' time range)
  const ObjectStore& store;   // the final store: pods, nodes, namespaces (for the Gantt chart)
  std::string title;          // page and chart title, e.g. "E2 default-scheduler run 1"
  std::string scenario;       // scenario name or file
  std::uint64_t seed = 0;
  std::string model;          // latency/scheduler model description
  // Further parameters shown in the HTML parameters table, in this order.
  std::vector<std::pair<std::string, std::string>> parameters = {};
  // Further sections of report.html (complete <section> elements), before the files list.
  std::string extra_sections_html = {};
  std::size_t gantt_max_nodes = 64;
  std::size_t gantt_max_bars = 4000;
};

// The single files (see the top of this header). Each throws std::invalid_argument if the
// time series is inconsistent (samples.size() != times.size() * tenants.size(), or
// pending_pods neither empty nor one per sample).
std::string tenant_timeseries_csv(const TenantReportInput& in);
std::string tenant_queue_csv(const TenantReportInput& in);
std::string tenant_summary_csv(const TenantReportInput& in);
// summary.csv of runs in which each tenant ran alone (the study's E1): the same columns, one
// row per run (its tenant's summary and the run's utilisation), no cluster row.
std::string tenants_alone_summary_csv(const std::vector<std::pair<TenantSummary, double>>& runs);
std::string cores_running_svg(const TenantReportInput& in);
// The chart cores_running_svg draws, for callers that restyle it (kubesim compare).
svg::ChartSpec cores_running_chart(const TenantReportInput& in);
std::string cores_pending_svg(const TenantReportInput& in);
std::string cores_completed_svg(const TenantReportInput& in);
std::string utilisation_svg(const TenantReportInput& in);
std::string queue_svg(const TenantReportInput& in);
// The end of the charts' time range (seconds): the run's end, or the last sample if later.
double tenant_report_end_seconds(const TenantReportInput& in);
// The charts' subtitle: "scenario S, model M, seed N" (the parts that are known).
std::string tenant_report_subtitle(const TenantReportInput& in);
// gantt.svg: report/gantt_chart.hpp.
// The HTML page, inlining the given SVG documents (ReportFile names ending in ".svg", in the
// given order).
std::string tenant_report_html(const TenantReportInput& in, const std::vector<ReportFile>& charts);
// report.html's answering sentence: how many Jobs completed, the makespan, the mean and p99
// queue time, the utilisation, the tenant that queued longest, failed pods.
std::string tenant_headline(const RunSummary& summary);

// Every file, in writing order (CSVs, SVGs, report.html last).
std::vector<ReportFile> build_tenant_reports(const TenantReportInput& in);

// Creates `out_dir` (and parents) if needed, builds every file, then writes each atomically.
// Throws std::invalid_argument on inconsistent input (before anything is written) and
// std::runtime_error naming the path when the directory or a file cannot be created.
void write_tenant_reports(const std::string& out_dir, const TenantReportInput& in);

// Millicores as a decimal number of cores: 4000 -> "4", 500 -> "0.5", -1250 -> "-1.25".
std::string format_cores(std::int64_t millicores);
// The charts' horizontal line at the cluster's capacity, labelled "capacity N cores".
svg::RefLine capacity_line(std::int64_t capacity_milli);
// Microseconds as a decimal number of seconds without trailing zeros: 2'500'000 -> "2.5".
std::string format_seconds_short(std::int64_t micros);

}  // namespace kubesim
