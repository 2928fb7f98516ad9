// One simulation with its recorders, and the files `kubesim run` writes for it, built in
// memory. Shared by `kubesim run`/`serve` (which write them at once) and `kubesim compare`
// (which runs many on a thread pool and writes them all at the end).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/simulation.hpp"
#include "metrics/completion_recorder.hpp"
#include "metrics/tenant_recorder.hpp"
#include "report/measured_results.hpp"
#include "report/run_outputs.hpp"
#include "setups/scheduler_setup.hpp"

namespace kubesim {

// What a scenario adds to a run: the multi-tenant metrics and reports.
struct ReportSettings {
  std::string name;
  std::int64_t capacity_milli = 0;
  Duration sample_interval = Duration::seconds(1);
  std::vector<std::string> tenants;
  // false: record the tenant metrics (summary(), tenants()) but write only the Batsim files,
  // as `run` does for a platform/workload run.
  bool tenant_files = true;
  // Extra rows for report.html's parameters table (after the standard ones).
  std::vector<std::pair<std::string, std::string>> parameters;
  // A scenario's measuredResults: report.html shows them beside the run's per-tenant figures
  // (report/measured_results.hpp) for the run's scheduler setup (`setup`, "" = the default).
  MeasuredExperiment measured;
  std::string setup;
};

// report.html's parameter rows naming the run's scheduler setups (with their configuration
// files and cache delays).
std::vector<std::pair<std::string, std::string>> setup_parameters(const std::vector<SetupChoice>& setups);
// "setup NAME[, configuration FILE][, cache delay S s]" (file names only).
std::string describe_setup(const SetupChoice& setup);

class RunPipeline {
 public:
  // `report` null: no tenant recorder (a platform/workload `run`).
  RunPipeline(SimulationInputs inputs, const SimulationOptions& options, const ReportSettings* report,
              std::string version);

  Simulation& sim() { return sim_; }
  const Simulation& sim() const { return sim_; }
  // Null without report settings.
  const TenantRecorder* tenants() const { return tenants_.get(); }

  // After the simulation ran: closes the recorders and builds every output file in writing
  // order (jobs.csv, schedule.csv, pods.csv, then the tenant reports). Call once.
  std::vector<ReportFile> finish();
  // Outputs of a workload driven beside the simulation (the BSP job): `html` joins report.html
  // (with report settings), `files` are written after the others. Call before finish().
  void add_report_section(std::string html, std::vector<ReportFile> files);
  // As finish(), but builds only the outputs of `kinds` (jobs, schedule, pods, timeseries,
  // queue, summary, charts, report; the tenant kinds only with tenant files), in the same
  // order: `kubesim sweep` keeps what its plan collects without building the rest.
  std::vector<ReportFile> finish(const std::vector<std::string>& kinds);
  // The tenant summary (valid after finish(); empty without report settings).
  const RunSummary& summary() const { return summary_; }
  // Job objects that had not finished at the end of the run.
  std::size_t unfinished_jobs() const;

 private:
  SimulationOptions options_;
  std::string version_;
  Simulation sim_;
  CompletionRecorder completions_;
  std::unique_ptr<TenantRecorder> tenants_;
  ReportSettings report_;
  bool has_report_ = false;
  RunSummary summary_;
  std::string extra_html_;
  std::vector<ReportFile> extra_files_;
};

}  // namespace kubesim
