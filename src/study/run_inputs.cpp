#include "study/run_inputs.hpp"

#include <filesystem>

#include "core/yaml_input.hpp"
#include "platform/cluster_yaml.hpp"
#include "platform/simgrid_platform.hpp"
#include "sched/kube/profile.hpp"
#include "study/compare.hpp"
#include "study/openb/openb_inputs.hpp"
#include "workload/batsim_workload.hpp"

namespace kubesim {

namespace {

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }
std::string file_stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

RunInputs scenario_inputs(const InputFiles& files, Scenario sc) {
  // --scheduler-config without --scheduler configures the scenario's kube-scheduler, in place
  // of its schedulerConfig: (read_run_inputs refused it for a scenario with `schedulers:`).
  if (!files.scheduler_config.empty()) {
    sc.scheduler_config = files.scheduler_config;
    sc.inputs.scheduler = load_scheduler_config(sc.scheduler_config, sc.inputs.resource_names);
  }
  RunInputs r;
  r.gang = bsp::read_gang_spec(sc);
  r.scenario = std::move(sc);
  r.from_scenario = true;
  r.source = "scenario " + file_name(files.scenario);
  return r;
}

// A cluster + workload run as a scenario without tenants.
RunInputs cluster_workload_inputs(const InputFiles& files) {
  RunInputs r;
  Scenario& sc = r.scenario;
  SimulationInputs& in = sc.inputs;
  if (!files.openb_pods.empty()) {
    openb_simulation_inputs(read_openb_trace(files.openb_nodes, files.openb_pods), in);
  } else {
    ClusterSpec cluster = !files.platform.empty() ? read_simgrid_platform(files.platform, in.resource_names)
                                                  : read_cluster_yaml(files.cluster, in.resource_names);
    in.nodes = std::move(cluster.nodes);
  }
  if (!files.workload.empty()) {
    in.workload = read_batsim_workload(files.workload, in.resource_names);
  } else if (!files.swf.empty()) {
    in.workload = swf_to_workload(read_swf(files.swf), files.swf_options, in.resource_names);
  }
  sc.scheduler_config = files.scheduler_config;
  in.scheduler = sc.scheduler_config.empty() ? default_scheduler_config(in.resource_names)
                                             : load_scheduler_config(sc.scheduler_config, in.resource_names);
  sc.name = cluster_workload_title(files);
  for (const Node& n : in.nodes) sc.capacity_milli += n.allocatable[kCpu];
  sc.sample_interval = comparison_sample_interval(in.workload);
  r.source = "cluster " + file_name(files.cluster_file()) + ", workload " + file_name(files.workload_file());
  return r;
}

}  // namespace

std::string cluster_workload_title(const InputFiles& files) {
  return file_stem(files.workload_file()) + " on " + file_stem(files.cluster_file());
}

SwfOptions swf_options(const std::string& cpu_per_processor, const std::string& memory, const std::string& processors) {
  SwfOptions options;
  options.cpu_per_processor = cpu_per_processor;
  if (memory == "requested") options.memory = SwfOptions::Memory::kRequested;
  if (memory == "used") options.memory = SwfOptions::Memory::kUsed;
  if (processors == "cores") options.processors = SwfOptions::Processors::kCores;
  return options;
}

ReportSettings RunInputs::report() const {
  const Scenario& sc = scenario;
  return ReportSettings{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, from_scenario, {}, {}, {}};
}

std::string RunInputs::model(const std::string& given) const {
  if (!given.empty()) return given;
  return scenario.model.empty() ? "realistic" : scenario.model;
}

MeasuredExperiment RunInputs::read_measured() const {
  if (scenario.measured_results_file.empty()) return {};
  MeasuredExperiment m = read_measured_results(scenario.measured_results_file, scenario.measured_experiment);
  m.source = file_name(scenario.measured_results_file);
  return m;
}

RunInputs read_run_inputs(const InputFiles& files) {
  if (files.scenario.empty()) return cluster_workload_inputs(files);
  return read_run_inputs(files, load_yaml_file(files.scenario));
}

RunInputs read_run_inputs(const InputFiles& files, const YAML::Node& scenario_root) {
  // The `bsp:` section needs nothing of the scenario, which keeps it unread (bsp/ sits above
  // scenario/): read it before the scenario builds its cluster and workload, so that a bad key
  // there is refused at once, not after seconds and gigabytes of a million nodes and jobs.
  if (scenario_root.IsMap())
    if (const YAML::Node b = scenario_root["bsp"]; b && !b.IsNull())
      (void)bsp::read_gang_spec(YamlInput(files.scenario), b, std::filesystem::path(files.scenario).parent_path());
  // A scenario that names its schedulers has no one kube-scheduler for --scheduler-config to
  // configure: refused, not silently ignored.
  if (!files.scheduler_config.empty() && scenario_root.IsMap())
    for (const auto& kv : scenario_root)
      if (kv.first.Scalar() == "schedulers" && !kv.second.IsNull())
        throw InputError(files.scenario, kv.first.Mark().line + 1,
                         "this scenario names its schedulers, so --scheduler-config has no one scheduler to configure: "
                         "give --scheduler NAME with it, or the file as config: in the scenario's schedulers entry");
  // measuredResults' reader is in report/ (above scenario/): checked before any job is generated.
  const auto check_measured = [](const Scenario& sc) {
    if (!sc.measured_results_file.empty()) (void)read_measured_results(sc.measured_results_file, sc.measured_experiment);
  };
  return scenario_inputs(files, read_scenario(files.scenario, scenario_root, check_measured));
}

}  // namespace kubesim
