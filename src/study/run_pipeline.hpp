// One simulation with its recorders, and the files `kubesim run` writes for it, built in
// memory. Shared by `kubesim run`/`serve` (which write them at once) and `kubesim compare`
// (which runs many on a thread pool and writes them all at the end).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bsp/gang_run.hpp"
#include "engine/simulation.hpp"
#include "metrics/completion_recorder.hpp"
#include "metrics/gpu_recorder.hpp"
#include "metrics/tenant_recorder.hpp"
#include "report/job_stats.hpp"
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
  // The GPU metrics; null when the cluster has no GPUs.
  const GpuRecorder* gpus() const { return gpus_.get(); }

  // How finish() returns pods.csv, the one output that grows with the pods (33 MB for the NASA
  // trace): whole in `content`, or kStreamed, formatted as write_report_files() writes it
  // (ReportFile::stream), which must then happen while this pipeline lives.
  enum class FileForm { kInMemory, kStreamed };

  // After the simulation ran: closes the recorders and builds every output file in writing
  // order (jobs.csv, schedule.csv, pods.csv, then the tenant reports). Call once.
  std::vector<ReportFile> finish(FileForm form = FileForm::kInMemory);
  // Runs the simulation to its end (options.until). With `gang`, the scenario's BSP job drives
  // it (bsp/gang_run.hpp) and its outputs join the run's (add_gang_report); otherwise
  // Simulation::run() with `progress`. One place for `kubesim run` and the Python module.
  void run(const bsp::GangSpec* gang, const std::function<void(double)>& progress = {});
  // The BSP job's outputs (bsp_steps.csv, bsp_summary.csv, bsp_study.csv, its charts; report.html's
  // "BSP job" section with report settings), written after the others. Call before finish().
  void add_gang_report(const bsp::GangRunResult& result);
  // As finish(), but builds only the outputs of `kinds` (jobs, schedule, pods, timeseries,
  // queue, summary, charts, report; the tenant kinds only with tenant files; gpu: the GPU
  // files of a cluster with GPUs, report/gpu_report.hpp), in the same
  // order: `kubesim sweep` keeps what its plan collects without building the rest.
  std::vector<ReportFile> finish(const std::vector<std::string>& kinds, FileForm form = FileForm::kInMemory);
  // report.html of a run without tenant files (report/run_report.hpp): its title and the
  // parameter rows after the standard ones. Without it, the report settings' name and
  // parameters (compare's platform/workload runs), else the workload's file name.
  void set_run_report(std::string title, std::vector<std::pair<std::string, std::string>> parameters);
  // What jobs.csv says, summarised (valid after finish()): the summary line and the messages
  // read it so that they agree with the files.
  const JobStats& job_stats() const { return stats_; }
  // Each started job's wait and run time, in jobs.csv's order (valid after finish()).
  const std::vector<JobTime>& job_times() const { return job_times_; }
  // The tenant summary (valid after finish(); empty without report settings).
  const RunSummary& summary() const { return summary_; }
  // Job objects that had not finished at the end of the run.
  std::size_t unfinished_jobs() const;
  // "scheduling attempts" as the report's parameters show them: the built-in scheduler's, or,
  // when pods were bound by others (serve's external schedulers), how many they bound.
  std::string scheduling_attempts_text() const;

 private:
  std::string run_report(const RunOutputs& run, const std::vector<JobResult>& jobs) const;

  SimulationOptions options_;
  std::string version_;
  Simulation sim_;
  CompletionRecorder completions_;
  std::unique_ptr<TenantRecorder> tenants_;
  std::unique_ptr<GpuRecorder> gpus_;
  ReportSettings report_;
  bool has_report_ = false;
  RunSummary summary_;
  std::string extra_html_;
  std::string run_title_;
  std::vector<std::pair<std::string, std::string>> run_parameters_;
  JobStats stats_;
  std::vector<JobTime> job_times_;
  std::vector<ReportFile> extra_files_;
};

}  // namespace kubesim
