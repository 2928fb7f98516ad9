// The one input assembly of `kubesim run`, `serve`, `compare` and `sweep`: a run's cluster and
// workload come from a scenario file, or from a cluster file (SimGrid platform XML or cluster
// YAML) and a workload file (Batsim JSON or SWF trace). Both give a RunInputs: the simulation
// inputs with kube-scheduler configured, and what the commands derive from them (report
// settings, latency model, title), so that every command reads the same files the same way.
#pragma once

#include <optional>
#include <string>

#include "bsp/gang_spec.hpp"
#include "scenario/scenario.hpp"
#include "study/run_pipeline.hpp"
#include "workload/swf.hpp"

namespace YAML {
class Node;
}

namespace kubesim {

// Where a run's inputs come from: `scenario`, or a cluster (`platform` or `cluster`) and a
// workload (`workload` or `swf`).
struct InputFiles {
  std::string scenario;
  std::string platform, cluster;
  std::string workload, swf;
  std::string openb_nodes, openb_pods;  // an openb trace's own dynamics (study/openb/openb_inputs.hpp)
  SwfOptions swf_options;  // how SWF jobs become pods (run's --swf-* options)
  // A cluster + workload run's KubeSchedulerConfiguration ("": the default profile); a
  // scenario names its own (schedulerConfig).
  std::string scheduler_config;

  const std::string& cluster_file() const { return !platform.empty() ? platform : !cluster.empty() ? cluster : openb_nodes; }
  const std::string& workload_file() const { return !workload.empty() ? workload : !swf.empty() ? swf : openb_pods; }
};

// "WORKLOAD on CLUSTER" (the files' stems): a cluster + workload run's title.
std::string cluster_workload_title(const InputFiles& files);

// The SwfOptions of run's --swf-cpu-per-processor, --swf-memory (none, requested, used) and
// --swf-processors (machines, cores). The caller has checked the two modes' names.
SwfOptions swf_options(const std::string& cpu_per_processor, const std::string& memory, const std::string& processors);

struct RunInputs {
  // A scenario file's contents. A cluster + workload gives the same shape: its inputs,
  // scheduler_config = InputFiles::scheduler_config, name = cluster_workload_title, the
  // cluster's allocatable cpu as capacity, comparison_sample_interval, no tenants, no model.
  Scenario scenario;
  bool from_scenario = false;
  // The scenario's `bsp:` job (bsp/gang_spec.hpp), read with the scenario; nullopt: none.
  std::optional<bsp::GangSpec> gang;
  // What ran, by file names only (outputs must not depend on where the inputs live):
  // "scenario F", or "cluster F, workload F".
  std::string source;

  // The tenant metrics' settings: a scenario's (with its tenant files), or a cluster +
  // workload's (metrics only, as `run` writes a platform/workload run). No measured results
  // (read_measured).
  ReportSettings report() const;
  // The latency model's name: `given` (the command line's or the plan's) when not empty, else
  // the scenario's, else realistic.
  std::string model(const std::string& given) const;
  // The scenario's measuredResults (empty: none), with its file name as source.
  MeasuredExperiment read_measured() const;
};

// Reads the files (the cluster before the workload, then a cluster + workload run's
// scheduler configuration). Throws InputError naming the file and line.
RunInputs read_run_inputs(const InputFiles& files);
// As read_run_inputs for a scenario read from the document `scenario_root` instead of its
// file (`kubesim sweep` overrides keys in a copy of the scenario's document).
RunInputs read_run_inputs(const InputFiles& files, const YAML::Node& scenario_root);

}  // namespace kubesim
