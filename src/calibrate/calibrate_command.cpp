#include "calibrate/calibrate_command.hpp"

#include <cstdio>
#include <filesystem>

#include "api/json_codec.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/fidelity.hpp"
#include "calibrate/live_cluster.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/task_progress.hpp"
#include "model/resources.hpp"
#include "platform/cluster_yaml.hpp"
#include "platform/simgrid_platform.hpp"
#include "sched/kube/profile.hpp"
#include "workload/batsim_workload.hpp"

namespace kubesim::calibrate {

CalibrateCommand::CalibrateCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("calibrate",
                            "fit the latency model to measured pod timelines (jobs.csv files or a live cluster); "
                            "write a model YAML");
  auto* jobs = cmd_->add_option("--measured", jobs_csv_,
                                "measured jobs.csv (Batsim columns plus scheduled,pulling,pulled,created); repeat "
                                "or list several runs")
                   ->check(CLI::ExistingFile);
  auto* workload = cmd_->add_option("--workload", workload_, "the Batsim workload the measured runs ran")
                       ->check(CLI::ExistingFile);
  jobs->needs(workload);
  auto* kubeconfig = cmd_->add_option("--kubeconfig", kubeconfig_,
                                      "read Pods and Events of a live cluster (plain http: kubesim serve, kubectl proxy)")
                         ->check(CLI::ExistingFile);
  jobs->excludes(kubeconfig);
  cmd_->add_option("--namespace,-n", namespace_, "namespace of the live cluster's pods")->capture_default_str();
  // kubectl's names (logs --since-time): --until is a simulated duration in run, serve, compare.
  // The old names (--jobs, --since, --until) are aliases (cli/cli_conventions.cpp).
  cmd_->add_option("--since-time", since_, "live cluster: pods created at or after this RFC 3339 time");
  cmd_->add_option("--until-time", until_, "live cluster: pods created at or before this RFC 3339 time");
  cmd_->add_option("--out", output_, "model YAML to write")->required();
  cmd_->add_option("--report", report_, "also write an HTML report (measured vs fitted histograms)");
  cmd_->footer(
      "Examples:\n"
      "  kubesim calibrate --workload data/batkube/200_delay170.json \\\n"
      "      --measured data/batkube/real-k3s/200_delay170_1_jobs.csv data/batkube/real-k3s/200_delay170_2_jobs.csv \\\n"
      "      --out k3s.yaml --report k3s-fit.html\n"
      "  kubesim calibrate --kubeconfig results/serve/e3/kubesim.kubeconfig --namespace default --out cluster.yaml");
}

int CalibrateCommand::run() {
  std::vector<MeasuredRun> runs;
  if (!jobs_csv_.empty()) {
    ResourceNames names;
    const Workload workload = read_batsim_workload(workload_, names);
    for (const auto& path : jobs_csv_) runs.push_back(read_measured_jobs_csv(path, workload));
  } else if (!kubeconfig_.empty()) {
    LiveClusterQuery q;
    q.kubeconfig = kubeconfig_;
    q.namespace_name = namespace_;
    auto bound = [](const std::string& text, const char* option) {
      if (text.empty()) return kUnknown;
      const auto micros = api::parse_rfc3339_micros(text);
      if (!micros) throw InputError("", 0, std::string(option) + ": expected an RFC 3339 time, got \"" + text + "\"");
      return static_cast<double>(*micros) / 1e6;
    };
    q.since_unix = bound(since_, "--since-time");
    q.until_unix = bound(until_, "--until-time");
    runs.push_back(read_live_cluster(q));
  } else {
    throw InputError("", 0, "calibrate needs measurements: --workload FILE --measured FILE..., or --kubeconfig FILE");
  }
  const Calibration c = calibrate(runs);
  // Everything is computed before anything is written.
  const std::string yaml = calibration_yaml(c);
  const std::string html = report_.empty() ? std::string() : calibration_report_html(c);
  write_file_atomically(output_, yaml);
  if (!report_.empty()) write_file_atomically(report_, html);
  for (const auto& [reason, n] : c.skipped)
    std::fprintf(stderr, "kubesim: calibrate skipped %llu: %s\n", static_cast<unsigned long long>(n), reason.c_str());
  for (const auto& f : c.latencies)
    std::printf("%-20s %-28s %5zu pods  mean %8.4f s  KS %.3f\n", f.key.c_str(), f.fit.spec.c_str(), f.measured.size(),
                f.fit.distribution.mean(), f.ks);
  for (const auto& f : c.latencies)
    if (f.ks > kPoorFitKs)
      std::fprintf(stderr,
                   "kubesim: calibrate: warning: %s's fit %s is poor: KS distance %.3f > %.1f (the fitted and measured "
                   "distributions differ by over %.0f percentage points somewhere; with 50 or more pods the KS test "
                   "rejects such a fit at the 5%% level); check the measurements or set %s by hand\n",
                   f.key.c_str(), f.fit.spec.c_str(), f.ks, kPoorFitKs, 100 * kPoorFitKs, f.key.c_str());
  return 0;
}

}  // namespace kubesim::calibrate

namespace kubesim::calibrate {

FidelityCommand::FidelityCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("fidelity",
                            "replay measured runs (jobs.csv) with their submission times; compare per-pod waits and "
                            "start-up, makespan and mean wait (HTML report)");
  auto* platform = cmd_->add_option("--platform", platform_, "SimGrid/Batsim platform XML")->check(CLI::ExistingFile);
  auto* cluster = cmd_->add_option("--cluster", cluster_, "kubesim cluster YAML")->check(CLI::ExistingFile);
  platform->excludes(cluster);
  cmd_->add_option("--workload", workload_, "the Batsim workload the measured runs ran")
      ->check(CLI::ExistingFile)
      ->required();
  cmd_->add_option("--measured", measured_, "measured jobs.csv (real-cluster columns); repeat or list several runs")
      ->check(CLI::ExistingFile)
      ->required();
  cmd_->add_option("--model", model_, "latency model: realistic, ideal, a shipped model or a YAML file")
      ->capture_default_str();
  cmd_->add_option("--seeds", seeds_, "replays per measured run, seeds 1..N")->capture_default_str();
  cmd_->add_option("--out", out_, "output directory (fidelity.html, fidelity.csv)")->capture_default_str();
  cmd_->add_flag("--quiet", quiet_, "print no summary");
  cmd_->footer(
      "Example:\n"
      "  kubesim fidelity --platform data/batkube/platform_graphene_16nodes.xml \\\n"
      "      --workload data/batkube/200_delay170.json --measured data/batkube/real-k3s/200_delay170_0_jobs.csv \\\n"
      "      --model k3s-batkube --seeds 2 --out results/fidelity");
}

int FidelityCommand::run() {
  if (platform_.empty() && cluster_.empty()) throw InputError("", 0, "fidelity needs a cluster: --platform FILE or --cluster FILE");
  if (seeds_ < 1) throw InputError("", 0, "--seeds must be at least 1");
  const ModelConfig model = ModelConfig::load(model_);
  auto make_inputs = [&] {
    SimulationInputs in;
    ClusterSpec spec = !platform_.empty() ? read_simgrid_platform(platform_, in.resource_names)
                                          : read_cluster_yaml(cluster_, in.resource_names);
    in.nodes = std::move(spec.nodes);
    in.workload = read_batsim_workload(workload_, in.resource_names);
    in.scheduler = default_scheduler_config(in.resource_names);
    return in;
  };
  const SimulationInputs first = make_inputs();  // reads (and checks) the inputs once up front
  std::vector<MeasuredRun> runs;
  for (const auto& path : measured_) runs.push_back(read_measured_jobs_csv(path, first.workload));
  TaskProgress progress("fidelity", "replays", quiet_);
  const std::size_t replays = runs.size() * seeds_;
  const FidelityResult r = replay_measured_runs(runs, make_inputs, model, seeds_, [&] { progress.done_one(replays); });
  progress.finish();
  const std::string csv = fidelity_csv(r), html = fidelity_report_html(r);
  std::filesystem::create_directories(out_);
  write_file_atomically(out_ + "/fidelity.csv", csv);
  write_file_atomically(out_ + "/fidelity.html", html);
  if (!quiet_) {
    std::printf("makespan  measured %.1f-%.1f s, simulated %.1f s (%s)\n", r.measured_makespan_min,
                r.measured_makespan_max, r.sim_makespan, r.makespan_inside() ? "inside" : "OUTSIDE");
    std::printf("mean wait measured %.1f-%.1f s, simulated %.1f s (%s)\n", r.measured_wait_min, r.measured_wait_max,
                r.sim_mean_wait, r.wait_inside() ? "inside" : "OUTSIDE");
    std::printf("KS distance: per-pod wait %.3f, per-pod start-up (Scheduled -> Started) %.3f\n", r.ks_wait, r.ks_startup);
    std::printf("outputs: %s/fidelity.html, %s/fidelity.csv\n", out_.c_str(), out_.c_str());
  }
  return 0;
}

}  // namespace kubesim::calibrate
