// report.html of a run without tenants (a Batsim-style --platform/--workload or --swf run):
// the headline first (one sentence with the answer: how many jobs ran, the makespan, the mean
// and p99 wait, the utilisation; then the decisive chart, running cores over time), then the
// figures rounded for people, the job states, and the parameters last. One self-contained page
// (inline CSS and SVG, no script, no network).
//
// The sentence is shared with the tenant report (tenant_report.hpp) and the summary line.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/job_stats.hpp"
#include "report/run_outputs.hpp"

namespace kubesim {

// "All 200 jobs ran: makespan 2.9 h, mean wait 12 min (p99 1.1 h), utilisation 74.3%." and, when
// some did not end well, which (in jobs.csv's terms).
std::string run_headline(const JobStats& s);

struct RunReportInput {
  const RunOutputs& run;
  const std::vector<JobResult>& jobs;
  const JobStats& stats;
  std::string title;
  std::vector<std::pair<std::string, std::string>> parameters;  // shown last, in this order
  std::string extra_sections_html;                              // e.g. the GPU section
};

std::string run_report_html(const RunReportInput& in);

// The rows of the "figures" table (name, value rounded for people): jobs, states, makespan,
// wait, slowdown and bounded slowdown distributions, utilisation.
std::vector<std::pair<std::string, std::string>> job_figure_rows(const JobStats& s);

}  // namespace kubesim
