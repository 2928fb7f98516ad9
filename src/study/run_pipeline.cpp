#include "study/run_pipeline.hpp"

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "report/batsim_csv.hpp"
#include "report/gpu_report.hpp"
#include "report/measured_results.hpp"
#include "report/run_report.hpp"
#include "report/tenant_report.hpp"

namespace kubesim {

std::vector<std::pair<std::string, std::string>> setup_parameters(const std::vector<SetupChoice>& setups) {
  std::vector<std::pair<std::string, std::string>> p;
  for (const SetupChoice& c : setups) {
    p.emplace_back("scheduler", c.setup);
    // The file name only: outputs must not depend on where the inputs live.
    if (!c.config_file.empty())
      p.emplace_back("scheduler configuration", std::filesystem::path(c.config_file).filename().string());
    if (c.cache_delay > Duration()) p.emplace_back("cache delay (s)", format_seconds(c.cache_delay));
  }
  return p;
}

std::string describe_setup(const SetupChoice& c) {
  std::string out = "setup " + c.setup;
  if (!c.config_file.empty()) out += ", configuration " + std::filesystem::path(c.config_file).filename().string();
  if (c.cache_delay > Duration()) out += ", cache delay " + format_seconds(c.cache_delay) + " s";
  return out;
}

RunPipeline::RunPipeline(SimulationInputs inputs, const SimulationOptions& options, const ReportSettings* report,
                         std::string version)
    : options_(options), version_(std::move(version)), sim_(std::move(inputs), options) {
  completions_.reserve(sim_.store().reserved_pods());
  sim_.add_listener(&completions_);
  if (report) {
    report_ = *report;
    has_report_ = true;
    tenants_ = std::make_unique<TenantRecorder>(sim_, report->sample_interval, report->capacity_milli, report->tenants);
    sim_.add_listener(tenants_.get());
  }
  if (GpuRecorder::cluster_has_gpus(sim_.store())) {
    gpus_ = std::make_unique<GpuRecorder>(sim_);
    sim_.add_listener(gpus_.get());
  }
}

std::vector<ReportFile> RunPipeline::finish(FileForm form) {
  return finish({"jobs", "schedule", "pods", "timeseries", "queue", "summary", "charts", "report", "gpu"}, form);
}

std::vector<ReportFile> RunPipeline::finish(const std::vector<std::string>& kinds, FileForm form) {
  const auto wanted = [&](const char* kind) { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); };
  // Results of a run whose pods were refused for the limit are not the workload's: no output.
  if (sim_.pod_limit_reached())
    throw InputError("", 0,
                     "the run reached the pod limit (--max-pods " + std::to_string(options_.max_pods) +
                         "): a Job's parallelism or completions, or the workload, asks for more pods; raise "
                         "--max-pods if that is intended");
  if (tenants_) {
    tenants_->finish();
    summary_ = tenants_->summary();
  }
  const RunOutputs run{sim_.store(), sim_.workload(), completions_.completion_order(), sim_.job_pods(), sim_.now(), version_};
  std::vector<ReportFile> files = batsim_job_files(run, wanted("jobs"), wanted("schedule"));
  const std::vector<JobResult> jobs = job_results(run);
  stats_ = kubesim::job_stats(run, jobs);
  job_times_ = started_job_times(jobs);
  if (wanted("pods")) {
    if (form == FileForm::kStreamed) {
      files.push_back({"pods.csv", "", [run](const TextSink& sink) { stream_pods_csv(run, sink); }});
    } else {
      files.push_back({"pods.csv", pods_csv(run)});
    }
  }
  std::vector<ReportFile> gpu_files;
  if (gpus_ && (wanted("gpu") || wanted("report"))) {
    gpus_->finish();
    gpu_files = gpu_report_files(gpus_->series(), sim_.store(), sim_.now().to_seconds());
    if (wanted("report")) extra_html_ += gpu_report_section_html(gpus_->series(), gpu_files);
  }
  if (tenants_ && report_.tenant_files) {
    TenantReportInput in{tenants_->series(), summary_, sim_.store(), report_.name, report_.name, options_.seed,
                         options_.model.name};
    in.parameters = {{"kubesim", version_},
                     {"jobs", std::to_string(sim_.workload().jobs.size())},
                     {"scheduling attempts", scheduling_attempts_text()},
                     {"pod creations refused by quota", std::to_string(sim_.job_controller().failed_creates())}};
    for (const auto& p : report_.parameters) in.parameters.push_back(p);
    in.extra_sections_html = extra_html_;
    if (!report_.measured.empty()) {
      std::vector<SimulatedTenantFigures> figures;
      for (const TenantSummary& t : summary_.tenants) {
        SimulatedTenantFigures f;
        f.setup = report_.setup;
        f.label = report_.setup.empty() ? "default-scheduler" : report_.setup;
        f.tenant = t.tenant;
        f.queue_mean = f.queue_min = f.queue_max = t.average_queue_s;
        f.makespan_mean = f.makespan_min = f.makespan_max = t.makespan_s;
        figures.push_back(std::move(f));
      }
      in.extra_sections_html = measured_results_section_html(report_.measured, figures, 1) + in.extra_sections_html;
    }
    if (wanted("charts") && wanted("report") && wanted("timeseries") && wanted("queue") && wanted("summary")) {
      for (auto& f : build_tenant_reports(in)) files.push_back(std::move(f));
    } else {
      if (wanted("timeseries")) files.push_back({"timeseries.csv", tenant_timeseries_csv(in)});
      if (wanted("queue")) files.push_back({"queue.csv", tenant_queue_csv(in)});
      if (wanted("summary")) files.push_back({"summary.csv", tenant_summary_csv(in)});
      if (wanted("charts") || wanted("report")) {
        std::vector<ReportFile> charts;
        for (auto& f : build_tenant_reports(in))
          if (f.name.size() > 4 && f.name.compare(f.name.size() - 4, 4, ".svg") == 0) charts.push_back(std::move(f));
        std::string html = wanted("report") ? tenant_report_html(in, charts) : "";
        if (wanted("charts"))
          for (auto& c : charts) files.push_back(std::move(c));
        if (wanted("report")) files.push_back({"report.html", std::move(html)});
      }
    }
  }
  if (wanted("report") && !(tenants_ && report_.tenant_files)) files.push_back({"report.html", run_report(run, jobs)});
  if (wanted("gpu"))
    for (auto& f : gpu_files) files.push_back(std::move(f));
  for (auto& f : extra_files_) files.push_back(std::move(f));
  return files;
}

void RunPipeline::set_run_report(std::string title, std::vector<std::pair<std::string, std::string>> parameters) {
  run_title_ = std::move(title);
  run_parameters_ = std::move(parameters);
}

std::string RunPipeline::run_report(const RunOutputs& run, const std::vector<JobResult>& jobs) const {
  std::string title = run_title_;
  std::vector<std::pair<std::string, std::string>> extra = run_parameters_;
  if (title.empty() && has_report_) {
    title = report_.name;
    extra = report_.parameters;
  }
  if (title.empty()) title = std::filesystem::path(sim_.workload().source).filename().string();
  std::vector<std::pair<std::string, std::string>> params = {
      {"kubesim", version_},
      {"model", options_.model.name},
      {"seed", std::to_string(options_.seed)},
      {"nodes", std::to_string(sim_.store().node_count())},
      {"capacity (cores)", format_cores(stats_.capacity_milli)},
      {"jobs", std::to_string(sim_.workload().jobs.size())},
      {"pods", std::to_string(sim_.store().pod_count())},
      {"scheduling attempts", scheduling_attempts_text()},
      {"end of run (s)", format_seconds_short(sim_.now().micros())}};
  for (auto& p : extra) params.push_back(std::move(p));
  return run_report_html({run, jobs, stats_, "kubesim run: " + title, std::move(params), extra_html_});
}

void RunPipeline::run(const bsp::GangSpec* gang, const std::function<void(double)>& progress) {
  if (!gang) {
    sim_.run(progress);
    return;
  }
  bsp::GangRun job(sim_, *gang);
  job.run(options_.until);
  add_gang_report(job.result());
}

void RunPipeline::add_gang_report(const bsp::GangRunResult& result) {
  bsp::GangReport report = bsp::build_gang_report(result);
  extra_html_ += report.html_section;
  for (auto& [name, content] : report.files) extra_files_.push_back({name, std::move(content)});
}

std::size_t RunPipeline::unfinished_jobs() const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < sim_.store().job_count(); ++i)
    if (!sim_.store().job(JobId(static_cast<std::uint32_t>(i))).finished()) ++n;
  return n;
}

std::string RunPipeline::scheduling_attempts_text() const {
  const std::uint64_t attempts = sim_.scheduling_attempts();
  std::size_t bound = 0;
  const ObjectStore& store = sim_.store();
  for (std::uint32_t i = 0; i < store.pod_count(); ++i) bound += store.pod(PodId(i)).scheduled.is_never() ? 0 : 1;
  // serve with an external scheduler (kube-scheduler against the API, --builtin-scheduler off):
  // kubesim's schedulers made no attempt, yet pods were bound; say who bound them.
  if (attempts == 0 && bound > 0)
    return "0 by kubesim's schedulers; " + std::to_string(bound) + " pod(s) bound through the API (an external scheduler)";
  return std::to_string(attempts);
}

}  // namespace kubesim
