// kubesim command line: `run` simulates a cluster with a workload and writes Batsim-compatible
// outputs; `convert` turns SWF traces into Batsim workloads. Bad input gives one line on
// stderr naming file, line and problem, a non-zero exit, and no output files.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "engine/simulation.hpp"
#include "metrics/completion_recorder.hpp"
#include "metrics/tenant_recorder.hpp"
#include "platform/cluster_yaml.hpp"
#include "platform/simgrid_platform.hpp"
#include "report/batsim_csv.hpp"
#include "report/tenant_report.hpp"
#include "scenario/scenario.hpp"
#include "workload/batsim_workload.hpp"
#include "workload/swf.hpp"
#include "workload/swf_to_batsim.hpp"

#ifndef KUBESIM_VERSION
#define KUBESIM_VERSION "0.1.0"
#endif

namespace kubesim {
namespace {

struct RunArgs {
  std::string scenario, platform, cluster, workload, swf, scheduler_config, out = "results", model = "realistic";
  bool model_given = false;
  std::uint64_t seed = 1;
  double until = -1;
  std::string swf_cpu = "1";
  std::string swf_memory = "none";
  bool quiet = false;
};

// A progress bar on stderr, shown only on a terminal and only once a run has taken more
// than a second of wall time. Wall time is used for display only, never for decisions.
class ProgressBar {
 public:
  ProgressBar() : enabled_(::isatty(2) != 0), start_(std::chrono::steady_clock::now()) {}
  void update(double fraction) {
    if (!enabled_) return;
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed < std::chrono::seconds(1)) return;
    const int width = 40;
    const int filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r[%s%s] %3d%%", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), static_cast<int>(fraction * 100));
    shown_ = true;
  }
  ~ProgressBar() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

// What a scenario adds to a run: the multi-tenant metrics and reports.
struct ReportSettings {
  std::string name;
  std::int64_t capacity_milli = 0;
  Duration sample_interval = Duration::seconds(1);
  std::vector<std::string> tenants;
};

// Runs one simulation and writes its outputs into `out`; returns the tenant summary rows
// when `report` is given.
RunSummary simulate(SimulationInputs inputs, const SimulationOptions& options, const RunArgs& a, const std::string& out,
                    const ReportSettings* report) {
  const auto wall_start = std::chrono::steady_clock::now();
  for (const auto& [reason, count] : inputs.workload.skipped.by_reason)
    std::fprintf(stderr, "kubesim: skipped %llu job(s) of %s: %s\n", static_cast<unsigned long long>(count),
                 inputs.workload.source.c_str(), reason.c_str());
  Simulation sim(std::move(inputs), options);
  CompletionRecorder completions;
  sim.add_listener(&completions);
  std::unique_ptr<TenantRecorder> tenants;
  if (report) {
    tenants = std::make_unique<TenantRecorder>(sim, report->sample_interval, report->capacity_milli, report->tenants);
    sim.add_listener(tenants.get());
  }
  {
    ProgressBar bar;
    sim.run([&](double f) { bar.update(f); });
  }
  RunSummary summary;
  if (tenants) {
    tenants->finish();
    summary = tenants->summary();
  }
  // Everything is built before anything is written; each file is written atomically.
  write_run_outputs(out, RunOutputs{sim.store(), sim.workload(), completions.completion_order(), sim.job_pods(),
                                    sim.now(), KUBESIM_VERSION});
  if (tenants) {
    TenantReportInput in{tenants->series(), summary, sim.store(), report->name, report->name, a.seed,
                         options.model.name};
    in.parameters = {{"kubesim", KUBESIM_VERSION},
                     {"jobs", std::to_string(sim.workload().jobs.size())},
                     {"scheduling attempts", std::to_string(sim.scheduler().attempts())},
                     {"pod creations refused by quota", std::to_string(sim.job_controller().failed_creates())}};
    write_tenant_reports(out, in);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!a.quiet) {
    std::printf("kubesim %s: %zu jobs, %zu nodes, model %s, seed %llu\n", KUBESIM_VERSION, sim.workload().jobs.size(),
                sim.store().node_count(), options.model.name.c_str(), static_cast<unsigned long long>(a.seed));
    std::printf("finished %zu pods, %zu never scheduled, %llu scheduling attempts; simulated %s s in %.3f s wall\n",
                sim.finished_pods(), sim.pending_pods(), static_cast<unsigned long long>(sim.scheduler().attempts()),
                format_seconds(sim.now()).c_str(), wall);
    if (report) {
      std::printf("utilisation %.4f;", summary.utilisation);
      for (const auto& t : summary.tenants)
        std::printf(" %s: %llu/%llu jobs completed, mean queue %.1f s;", t.tenant.c_str(),
                    static_cast<unsigned long long>(t.completed), static_cast<unsigned long long>(t.jobs),
                    t.average_queue_s);
      std::printf("\n");
      std::printf("outputs: %s/{jobs,schedule,pods,timeseries,queue,summary}.csv, %s/*.svg, %s/report.html\n",
                  out.c_str(), out.c_str(), out.c_str());
    } else {
      std::printf("outputs: %s/{jobs,schedule,pods}.csv\n", out.c_str());
    }
  }
  if (sim.job_controller().failed_creates() > 0 && !a.quiet)
    std::printf("%llu pod creations refused by admission (ResourceQuota) and retried by the Job controller\n",
                static_cast<unsigned long long>(sim.job_controller().failed_creates()));
  std::size_t unfinished_jobs = 0;
  for (std::size_t i = 0; i < sim.store().job_count(); ++i)
    if (!sim.store().job(JobId(static_cast<std::uint32_t>(i))).finished()) ++unfinished_jobs;
  if (unfinished_jobs > 0)
    std::fprintf(stderr, "kubesim: %zu Job(s) had not finished when the run ended%s%s\n", unfinished_jobs,
                 sim.job_controller().last_create_error().empty() ? "" : "; last pod creation refused: ",
                 sim.job_controller().last_create_error().c_str());
  if (!sim.rejected_pods().empty())
    std::fprintf(stderr, "kubesim: %zu pod(s) refused at creation, e.g.: %s\n", sim.rejected_pods().size(),
                 sim.rejected_pods().front().second.c_str());
  if (sim.pending_pods() > 0)
    std::fprintf(stderr, "kubesim: %zu pod(s) could never be scheduled (reported as REJECTED in jobs.csv)\n",
                 sim.pending_pods());
  return summary;
}

int scenario_command(const RunArgs& a) {
  Scenario sc = read_scenario(a.scenario);
  SimulationOptions options;
  options.seed = a.seed;
  // --model on the command line wins over the scenario's model.
  options.model = ModelConfig::load(a.model_given || sc.model.empty() ? a.model : sc.model);
  if (a.until >= 0) {
    options.until = SimTime::from_seconds(a.until);
  } else if (sc.duration) {
    options.until = SimTime::at(*sc.duration);
  }
  ReportSettings report{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants};
  if (!sc.each_tenant_alone) {
    simulate(std::move(sc.inputs), options, a, a.out, &report);
    return 0;
  }
  // The study's E1: each tenant alone on the cluster, one run each in <out>/<tenant>/, and
  // the tenants' summary rows together in <out>/summary.csv.
  std::vector<std::pair<TenantSummary, double>> runs;
  for (const auto& tenant : sc.tenants) {
    ReportSettings alone = report;
    alone.name = sc.name + " (" + tenant + " alone)";
    alone.tenants = {tenant};
    const RunSummary s = simulate(tenant_inputs(sc, tenant), options, a, a.out + "/" + tenant, &alone);
    for (const auto& t : s.tenants)
      if (t.tenant == tenant) runs.emplace_back(t, s.utilisation);
  }
  write_file_atomically(a.out + "/summary.csv", tenants_alone_summary_csv(runs));
  if (!a.quiet) std::printf("outputs: %s/<tenant>/..., %s/summary.csv (one row per tenant run alone)\n", a.out.c_str(), a.out.c_str());
  return 0;
}

int run_command(const RunArgs& a) {
  if (!a.scenario.empty()) return scenario_command(a);
  SimulationInputs inputs;
  ClusterSpec cluster = !a.platform.empty() ? read_simgrid_platform(a.platform, inputs.resource_names)
                                            : read_cluster_yaml(a.cluster, inputs.resource_names);
  inputs.nodes = std::move(cluster.nodes);
  if (!a.workload.empty()) {
    inputs.workload = read_batsim_workload(a.workload, inputs.resource_names);
  } else {
    SwfOptions options;
    options.cpu_per_processor = a.swf_cpu;
    if (a.swf_memory == "requested") options.memory = SwfOptions::Memory::kRequested;
    if (a.swf_memory == "used") options.memory = SwfOptions::Memory::kUsed;
    inputs.workload = swf_to_workload(read_swf(a.swf), options, inputs.resource_names);
  }
  inputs.scheduler = a.scheduler_config.empty() ? default_scheduler_config(inputs.resource_names)
                                                : load_scheduler_config(a.scheduler_config, inputs.resource_names);
  SimulationOptions options;
  options.seed = a.seed;
  options.model = ModelConfig::load(a.model);
  if (a.until >= 0) options.until = SimTime::from_seconds(a.until);
  simulate(std::move(inputs), options, a, a.out, nullptr);
  return 0;
}

}  // namespace
}  // namespace kubesim

int main(int argc, char** argv) {
  using namespace kubesim;
  CLI::App app{"kubesim: a fast, deterministic simulator of Kubernetes clusters for scheduler studies"};
  app.require_subcommand(1);
  app.set_version_flag("--version", KUBESIM_VERSION);
  app.footer(
      "Examples:\n"
      "  kubesim run --scenario examples/multitenant/e2.yaml --out results/e2\n"
      "  kubesim run --platform platform.xml --workload workload.json --out results/spaced\n"
      "  kubesim run --cluster cluster.yaml --swf trace.swf --model ideal --seed 3 --out results/nasa\n"
      "  kubesim convert swf-to-batsim trace.swf -o workload.json");

  RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "simulate a cluster running a workload; write jobs.csv, schedule.csv, pods.csv");
  auto* scenario = run_cmd->add_option("--scenario", run.scenario,
                                       "scenario YAML: cluster, tenants, quotas, priorities, jobs, failures (writes "
                                       "the multi-tenant tables, charts and report.html as well)")
                       ->check(CLI::ExistingFile);
  auto* platform = run_cmd->add_option("--platform", run.platform, "SimGrid/Batsim platform XML (hosts become nodes)")
                       ->check(CLI::ExistingFile);
  auto* cluster = run_cmd->add_option("--cluster", run.cluster, "kubesim cluster YAML (node groups)")->check(CLI::ExistingFile);
  platform->excludes(cluster);
  auto* workload = run_cmd->add_option("--workload", run.workload, "Batsim v4 JSON workload")->check(CLI::ExistingFile);
  auto* swf = run_cmd->add_option("--swf", run.swf, "SWF trace (Parallel Workloads Archive)")->check(CLI::ExistingFile);
  workload->excludes(swf);
  for (auto* o : {platform, cluster, workload, swf}) scenario->excludes(o);
  run_cmd->add_option("--scheduler-config", run.scheduler_config, "KubeSchedulerConfiguration YAML")
      ->check(CLI::ExistingFile);
  run_cmd->add_option("--seed", run.seed, "seed of all random streams (same seed, same outputs)")->capture_default_str();
  auto* model = run_cmd->add_option("--model", run.model, "latency model: realistic, ideal (all latencies zero) or a YAML file")
      ->capture_default_str();
  run_cmd->add_option("--out", run.out, "output directory")->capture_default_str();
  run_cmd->add_option("--until", run.until, "stop at this simulated time (seconds)");
  run_cmd->add_option("--swf-cpu-per-processor", run.swf_cpu, "cpu request per SWF processor (a quantity)")
      ->capture_default_str();
  run_cmd->add_option("--swf-memory", run.swf_memory, "SWF memory request: none, requested (field 10) or used (field 7)")
      ->check(CLI::IsMember({"none", "requested", "used"}))
      ->capture_default_str();
  run_cmd->add_flag("--quiet", run.quiet, "print no summary");
  run_cmd->footer(
      "Examples:\n"
      "  kubesim run --scenario examples/multitenant/e2.yaml --out results/e2\n"
      "  kubesim run --scenario examples/multitenant/e4.yaml --seed 3 --out results/e4-seed3\n"
      "  kubesim run --platform ../shared/data/batkube/platform_graphene_16nodes.xml \\\n"
      "              --workload ../shared/data/batkube/spaced_200_delay170.json --out results/spaced\n"
      "  kubesim run --cluster examples/nasa/cluster.yaml --swf ../shared/data/swf/NASA-iPSC-1993-3.1-cln.swf \\\n"
      "              --out results/nasa\n"
      "  kubesim run --platform p.xml --workload w.json --model ideal --seed 7 --out results/ideal");

  auto* convert = app.add_subcommand("convert", "convert workload formats");
  convert->require_subcommand(1);
  std::string swf_in, json_out;
  SwfConvertOptions conv;
  std::int64_t platform_size = -1;
  auto* s2b = convert->add_subcommand("swf-to-batsim",
                                      "SWF trace to Batsim delay workload (as batsim's tools/swf_to_batsim_workload_delay.py)");
  s2b->add_option("trace", swf_in, "input SWF file")->required()->check(CLI::ExistingFile);
  s2b->add_option("-o,--output", json_out, "output JSON file")->required();
  s2b->add_option("--job-walltime-factor,--jwf", conv.job_walltime_factor, "walltime = max(factor * run time, requested)")
      ->capture_default_str();
  s2b->add_flag("--given-walltime-only,--gwo", conv.given_walltime_only, "walltime = requested time only");
  s2b->add_option("--job-grain,--jg", conv.job_grain, "round delays up to this grain (seconds)")->capture_default_str();
  s2b->add_option("--platform-size,--pf", platform_size, "nb_res (default: the largest job)");
  s2b->add_option("--job-size-factor", conv.job_size_factor, "nb_res of a job = factor * allocated processors")
      ->capture_default_str();
  s2b->add_option("-i,--indent", conv.indent, "indentation of the JSON output (-1: compact)")->capture_default_str();
  s2b->footer("Example:\n  kubesim convert swf-to-batsim ../shared/data/swf/KIT-10-80.swf -o kit.json");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "kubesim: error: %s (see kubesim --help)\n", e.what());
    return 2;
  }
  try {
    if (run_cmd->parsed()) {
      run.model_given = model->count() > 0;
      if (!run.scenario.empty()) return run_command(run);
      if (run.platform.empty() && run.cluster.empty())
        throw InputError("", 0, "run needs a cluster: --platform FILE or --cluster FILE");
      if (run.workload.empty() && run.swf.empty())
        throw InputError("", 0, "run needs a workload: --workload FILE or --swf FILE");
      return run_command(run);
    }
    if (s2b->parsed()) {
      if (platform_size > 0) conv.platform_size = platform_size;
      conv.command_line = "kubesim convert swf-to-batsim " + swf_in + " -o " + json_out;
      SkippedJobs skipped;
      const std::string json = swf_to_batsim_json(read_swf(swf_in), conv, &skipped);
      write_file_atomically(json_out, json);
      for (const auto& [reason, count] : skipped.by_reason)
        std::fprintf(stderr, "kubesim: skipped %llu job(s): %s\n", static_cast<unsigned long long>(count), reason.c_str());
      return 0;
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "kubesim: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubesim: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
