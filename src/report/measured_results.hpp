// Results measured on a real cluster, shown beside kubesim's in the reports of a scenario
// that names them (`measuredResults: {file, experiment}`): the multi-tenant study's
// real-results.csv (data/notebook/README.md), per experiment, scheduler and tenant the mean
// and standard deviation over the real runs of the tenant's average queue time and of its
// makespan, and each run's makespan.
//
// A kubesim scheduler setup matches the file's scheduler of the same name or of the name
// followed by "-scheduler" (the study named its scheduler-plugins column
// "scheduler-plugins-scheduler"); a run without a setup is "default-scheduler".
//
// "Outside the measured spread": beyond mean +- one standard deviation of the real runs
// (the spread the study reports); the report also says by how many standard deviations.
#pragma once

#include <string>
#include <vector>

namespace kubesim {

struct MeasuredTenantResult {
  std::string scheduler;  // the file's name, e.g. "scheduler-plugins-scheduler"
  std::string tenant;
  int runs = 0;
  double queue_mean = 0, queue_sd = 0;        // average queue time (s)
  double makespan_mean = 0, makespan_sd = 0;  // makespan (s)
  std::vector<double> makespans;              // each real run's makespan (s), may be empty
};

struct MeasuredExperiment {
  std::string source;      // the file, as given
  std::string experiment;  // e.g. "E3"
  std::vector<MeasuredTenantResult> rows;  // file order
  bool empty() const { return rows.empty(); }
  // The row of kubesim setup `setup` ("" = default-scheduler) and `tenant`, or nullptr.
  const MeasuredTenantResult* find(const std::string& setup, const std::string& tenant) const;
};

// The rows of `experiment` in the CSV at `path` (columns experiment, scheduler, tenant, runs,
// avg_queue_time_mean_s, avg_queue_time_sd_s, makespan_mean_s, makespan_sd_s, optional
// makespans_s). Throws InputError (file, line) on a missing column, a malformed number, a
// repeated (scheduler, tenant), or no row of the experiment.
MeasuredExperiment read_measured_results(const std::string& path, const std::string& experiment);

// kubesim's figures of one scheduler and tenant: over seeds, mean and min-max.
struct SimulatedTenantFigures {
  std::string setup;  // kubesim setup name ("" = default-scheduler)
  std::string label;  // as the report names the scheduler
  std::string tenant;
  double queue_mean = 0, queue_min = 0, queue_max = 0;
  double makespan_mean = 0, makespan_min = 0, makespan_max = 0;
};

// A report section (<section id="measured">): a table per row of `figures` with the measured
// mean +- sd beside kubesim's, each marked inside/outside, and a chart per quantity (kubesim's
// min-max and mean, the measured mean +- sd). Rows without a measurement are listed as such.
std::string measured_results_section_html(const MeasuredExperiment& measured,
                                          const std::vector<SimulatedTenantFigures>& figures, std::size_t seeds);

}  // namespace kubesim
