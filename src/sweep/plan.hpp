// A sweep plan (`kubesim sweep PLAN.yaml`): the axes of a study and how to run it. The plan
// expands into cells, the cartesian product of its axes in a fixed order (scenarios,
// schedulers, models, overrides in plan order, seeds innermost), so the same plan always
// gives the same cells in the same order. A cell's id is a hash of its axis values: it stays
// the same when other values are added to the plan, so outputs of finished cells are reused.
//
//   name: e3-sweep                 # default: the plan file's name without extension
//   scenarios:                     # scenario files, or {platform|cluster: F, workload|swf: F}
//     - ../multitenant/e3.yaml     #   with an swf trace, run's --swf-* options as keys:
//     - {cluster: ../nasa/cluster.yaml, swf: ../../data/swf/NASA-iPSC-1993-3.1-cln.swf,
//        swfProcessors: cores}     #   swfCpuPerProcessor (1), swfMemory (none), swfProcessors (machines)
//   schedulers:                    # `run --scheduler` values: NAME, NAME=CONFIGFILE, A+B
//     - default-scheduler          #   (default: each scenario's own schedulers)
//     - default-scheduler=../scheduler-config/most-allocated.yaml
//   models: [realistic, ideal]     # realistic | ideal | a latency-model YAML (default: the scenario's)
//   seeds: 5                       # seeds 1..5, or a list of seeds
//   overrides:                     # a scenario key by path, or model.<parameter>; list elements
//     tenants.tenant3.streams.0.interval: [5, 10, 20]   # by index or by their namespace/name
//     model.podStartup: ["normal:1.0:0.2", "fixed:2"]
//   collect: [summary]             # run outputs each cell keeps: jobs, schedule, pods, timeseries,
//                                  # queue, summary, charts, report (default: summary)
//   cellsPerTask: 8                # cells per Slurm array task / Kubernetes completion index
//   pythonPolicies:                # Python policies (kubesim.Policy, docs/python.md) as setups
//     best-fit: ../python-policy/bin_packing.py:BestFit   # NAME: FILE:CLASS, as run's --policy;
//                                  #   the schedulers axis names them like built-in setups
//
// A plan of openb traces runs the FGD paper's protocol (examples/openb/): every scenarios entry
// is {openbNodes: F, openbPods: F}, `policies` (random, dotprod, gpuclustering, gpupacking,
// bestfit, fgd) replaces schedulers, `tune` (default 1.3) is the inflation; no models or
// overrides. Its merge writes the authors' analysis_{allo,frag,frag_ratio}_discrete.csv.
//   kubernetes:                    # --emit k8s-indexed-job
//     image: kubesim:0.1.0
//     parallelism: 4
//     claimName: sweep-data        # a PersistentVolumeClaim holding the plan, inputs and OUT,
//     # hostPath: /data/sweep      #   or a host path (mounted at mountPath, the working directory)
//     mountPath: /sweep
//
// Paths in the plan are relative to the plan's folder. Every check throws
// InputError(plan, line, ...) naming the offending line, before anything runs.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "setups/scheduler_setup.hpp"
#include "study/openb/gpu_share_policy.hpp"
#include "study/run_inputs.hpp"

namespace kubesim {

// One value of the scenarios axis: a scenario file, or a cluster and a workload.
struct SweepInput {
  // As shown in results.csv: the scenario's file name, or "WORKLOAD on CLUSTER" followed by
  // the SWF options that differ from run's defaults, e.g. " (swfProcessors=cores)".
  std::string label;
  InputFiles files;  // read as `kubesim run` reads them (study/run_inputs.hpp)
  // An openb trace for the FGD paper's protocol ({openbNodes: F, openbPods: F}; cli/openb_run.hpp)
  std::string openb_nodes, openb_pods;
  bool openb() const { return !openb_pods.empty(); }
};

struct SweepSchedulers {
  std::string label;               // as written in the plan; "scenario" when the axis is absent
  std::vector<SetupChoice> setups;  // empty: the scenario's own (or kube-scheduler's default)
  openb::Policy openb_policy = openb::Policy::Fgd;  // a plan of openb traces: its policies axis
};

// One override axis: a dotted key path and its values.
struct SweepOverride {
  std::string path;
  bool model = false;             // path starts with "model.": a latency-model parameter
  std::vector<std::string> keys;  // the path's segments (without "model." for a model override)
  std::vector<YAML::Node> values;
  std::vector<std::string> labels;  // the values as results.csv shows them
  int line = 0;                     // the override's line in the plan
};

struct SweepKubernetes {
  std::string image = "kubesim:latest";
  std::uint32_t parallelism = 0;  // 0: min(completions, 4)
  std::string claim_name;
  std::string host_path;
  std::string mount_path = "/sweep";
};

// One cell: an index into each axis.
struct SweepCell {
  std::string id;  // 12 hex digits: a hash of the axis names and values
  std::size_t input = 0, schedulers = 0, model = 0;
  std::vector<std::size_t> overrides;  // one index per override axis
  std::uint64_t seed = 1;
};

struct SweepPlan {
  std::string path;  // the plan file
  std::string name;
  std::vector<SweepInput> inputs;
  std::vector<SweepSchedulers> schedulers;
  std::vector<std::string> models;       // "" when the axis is absent: the scenario's model
  std::vector<std::string> model_labels;
  std::vector<SweepOverride> overrides;
  std::vector<std::uint64_t> seeds;
  std::vector<std::string> collect;  // run output kinds, in the order of kCollectKinds
  std::size_t cells_per_task = 1;
  double openb_tune = 1.3;  // a plan of openb traces: `tune`
  SweepKubernetes kubernetes;
  // The Python policies' setups (pythonPolicies and sweep's --policy): installed with the
  // built-in ones; when the schedulers axis is absent they schedule as run's --policy does.
  std::vector<SchedulerSetup> policies;
  std::vector<SweepCell> cells;      // in plan order

  // The column names of the axes in results.csv: scenario, scheduler, model, each override
  // path, seed.
  std::vector<std::string> axis_names() const;
  // The values of `cell` in axis_names() order.
  std::vector<std::string> axis_values(const SweepCell& cell) const;
  // Cells of the same configuration (every axis but the seed) share a key.
  std::string configuration_key(const SweepCell& cell) const;
  std::size_t chunks() const { return (cells.size() + cells_per_task - 1) / cells_per_task; }
};

// The run output kinds a plan may collect, in writing order.
inline constexpr const char* kCollectKinds[] = {"jobs", "schedule", "pods", "timeseries", "queue", "summary", "charts", "report"};

// Reads and checks a plan and expands its cells. Every axis is checked against its files:
// scenario and model files exist, scheduler setups are known, every override path exists in
// every scenario (or is a model parameter). Throws InputError(path, line, ...).
// `load_policies` turns NAME=FILE:CLASS specs (pythonPolicies, files resolved against the plan's
// folder) into setups (cli/policy_option.hpp; it embeds Python, which this layer does not); it is
// called once, before the schedulers axis is read. Without it a plan's pythonPolicies is refused.
using PolicyLoader = std::function<std::vector<SchedulerSetup>(const std::vector<std::string>& specs)>;
SweepPlan read_sweep_plan(const std::string& path, const PolicyLoader& load_policies = {});

// Applies overrides to a copy of a scenario document; returns the node at `keys` in `root`
// (by map key, list index, or the list element whose namespace or name is the segment), or an
// undefined node with `why` set.
YAML::Node find_yaml_path(YAML::Node root, const std::vector<std::string>& keys, std::string* why);

}  // namespace kubesim
