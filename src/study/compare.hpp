// `kubesim compare`: one scenario (or platform + workload) under several scheduler setups
// (setups/scheduler_setup.hpp) and seeds 1..N. Each (contender, seed) is an independent,
// deterministic run; runs execute on a small thread pool and their results are kept in a
// fixed order (contender-major, seed-minor), so every output is byte-identical whatever the
// number of threads. The report is built from the kept results (compare_report.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "metrics/tenant_metrics.hpp"
#include "report/job_stats.hpp"
#include "report/run_outputs.hpp"
#include "report/svg_chart.hpp"
#include "study/run_pipeline.hpp"

namespace kubesim {

// One column of the comparison: the scheduler setups of its runs (one, or several side by
// side in one cluster).
struct Contender {
  std::string label;  // report label and output folder: setups_label(setups)
  std::vector<SetupChoice> setups;
};

// "A,B=FILE,C+D,..." -> contenders in this order. An entry is what `run --scheduler` takes:
// a setup name, optionally "=CONFIGFILE" (as `run --scheduler A --scheduler-config FILE`),
// several joined by '+' to run side by side. Throws InputError for an empty entry, an unknown
// setup, a missing config file or two entries with the same label.
// `extra`: setups beside the built-in ones (policies, setups/policy_setup.hpp).
std::vector<Contender> parse_contenders(const std::string& list, std::span<const SchedulerSetup> extra = {});

struct CompareSpec {
  std::string title;              // e.g. the scenario name
  std::string source;             // what ran: the scenario file, or platform and workload files
  SimulationInputs inputs;        // no setup applied yet; its scheduler is not used (see below)
  // kube-scheduler's configuration before a setup is installed (a scenario's
  // schedulerConfig; empty: the default profile), rebuilt for every run because a
  // SchedulerConfig owns its plugins and cannot be copied.
  std::string scheduler_config;
  SimulationOptions options;      // options.seed is set per run
  ReportSettings report;          // tenant metrics settings (tenant_files: per-run tenant reports)
  std::vector<Contender> contenders;
  std::uint64_t seeds = 1;        // seeds 1..seeds
  unsigned threads = 0;           // worker threads; 0: std::thread::hardware_concurrency()
  bool keep_run_files = true;     // keep each run's output files (false: only what the report needs)
  std::string version;            // kubesim version for the run outputs
  // Setups beside the built-in ones that contenders may name (policies: setups/policy_setup.hpp).
  std::vector<SchedulerSetup> extra_setups;
  // Called after each run with the number of runs, from the worker threads (progress display
  // only: nothing the comparison computes depends on it). Empty: none.
  std::function<void(std::size_t total)> on_run_done;
};

struct RunRecord {
  std::size_t contender = 0;
  std::uint64_t seed = 1;
  RunSummary summary;
  std::vector<ReportFile> files;       // the run's outputs, as `run` writes them
  std::vector<double> running_cores;   // all tenants' running cores at each sample
  svg::ChartSpec cores_chart;          // running cores per tenant (seed 1 only)
  std::uint64_t scheduling_attempts = 0;
  std::size_t never_scheduled = 0;     // pods still pending at the end
  std::vector<JobTime> job_times;      // each started job's wait and run time (jobs.csv)
};

struct Comparison {
  std::string title;
  std::string source;
  std::string model;
  std::vector<Contender> contenders;
  std::uint64_t seeds = 1;
  Duration interval = Duration::seconds(1);
  std::int64_t capacity_milli = 0;
  std::vector<std::string> tenants;    // every tenant of every run, in first-seen order
  std::vector<RunRecord> runs;         // runs[c * seeds + (seed - 1)]
  unsigned threads_used = 1;
  MeasuredExperiment measured;         // the scenario's measuredResults (empty: none)

  const RunRecord& run(std::size_t contender, std::uint64_t seed) const {
    return runs[contender * seeds + static_cast<std::size_t>(seed - 1)];
  }
};

// Installs every contender's setup on a copy of the inputs first (bad configuration:
// InputError, nothing has run), then runs all (contender, seed) pairs on the thread pool; each
// run gets its own copy of the inputs with its setup installed (installs are serialised, so a
// setup's install need not be thread-safe). An exception in a run is rethrown after all
// threads joined (the first in run order).
Comparison run_comparison(CompareSpec spec);

// A sample interval for a platform/workload run that keeps the time series small: one
// second, or the submission span / 2000 rounded up to whole seconds.
Duration comparison_sample_interval(const Workload& workload);

}  // namespace kubesim
