// A scenario: one YAML file describing a whole experiment — the cluster, the scheduler
// configuration, Kubernetes objects (quotas, priority classes, PDBs), the tenants' job
// streams and bursts as the multi-tenant study (goughes/k8s-scheduling) generated them,
// plain Job/Pod manifests with submission times, and node failures. Paths inside are
// relative to the scenario file. Every key is checked; errors throw InputError(file, line,
// "expected ...") naming the offending line (also for manifest files it includes).
//
//   name: e2                      # default: the file name without extension
//   description: "..."
//   cluster:                      # optional; default 3 nodes of 128 cpu / 512Gi / 110 pods
//     nodes: 3                    #   shorthand (nodes, cpu, memory, pods): node-0 .. node-<n-1>
//     cpu: 128
//     memory: 512Gi
//     pods: 110
//     # or  file: cluster.yaml    (kubesim cluster YAML)   or  platform: p.xml (SimGrid)
//     # or  nodeGroups: [...]     (inline, the cluster YAML schema)
//   capacityCores: 384            # utilisation denominator; default Σ node cpu allocatable
//   schedulerConfig: sched.yaml   # KubeSchedulerConfiguration; default: the default profile
//   schedulers:                   # scheduler setups (setups/scheduler_setup.hpp); default: kube-scheduler
//     - setup: default-scheduler  #   one setup: every pod goes to it; several: each pod's
//     - setup: fluxion            #   schedulerName picks (run --scheduler overrides this list)
//       config: fluxion.yaml      #   the setup's configuration file
//       cacheDelay: 2             #   seconds its informers lag behind the store
//   model: realistic              # realistic | ideal | a latency-model YAML path
//   sampleInterval: 1             # seconds between metric samples
//   duration: 3600                # optional: stop the simulation at this time (seconds)
//   eachTenantAlone: false        # true: one simulation per tenant (the study's E1)
//   manifests:                    # Kubernetes objects: {file: f.yaml} (multi-document) or inline
//     - file: manifests/backfill-priority-class.yaml
//     - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
//   tenants:
//     - namespace: tenant1
//       quota: manifests/tenant1-quota.yaml   # manifest file(s) for this namespace (string or list)
//       priorityClassName: backfill           # for this tenant's generated jobs
//       template: {image: busybox:1.36, backoffLimit: 6, terminationGracePeriodSeconds: 30,
//                  schedulerName: default-scheduler, failure: {probability: 0.1, exitCode: 1, after: 30}}
//       streams: [{start: 60, cpu: 2, memory: 4G, jobs: 25, sleep: 60, interval: 5}]
//       bursts: [[0, 4, 8G, 96, 180]]         # [start s, cpu, memory, jobs, sleep s]
//   jobs:                         # Job/Pod manifests: {at: 10, file: job.yaml} or {at: 20, manifest: {...}}
//   failures:                     # node events: {at: 100, node: node-0, action: fail}
//                                 #   action: fail | recover | cordon | uncordon | drain
//   bsp: {data: ../../data/gang, controller: dynamic-mpc}   # a BSP gang job (bsp/gang_spec.hpp)
//                                 #   kept unparsed here: bsp/ (a layer above) reads it
//
// A tenant job is the study's: one batch/v1 Job (parallelism 1, completions 1, backoffLimit
// 6) with one container `busybox:1.36` running `sleep <t>`, restartPolicy Never, requests =
// limits = (cpu, memory); named <namespace>-b<burst>-<n> or <namespace>-s<stream>-<n>
// (zero-padded). Within a tenant, bursts are generated before streams (the notebook
// submitted a burst before the stream job of the same second); jobs of all sources are
// then sorted stably by submission time in the order tenants, manifests, jobs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/time.hpp"
#include "engine/simulation.hpp"
#include "setups/scheduler_setup.hpp"

namespace YAML {
class Node;
}

namespace kubesim {

// A section of the scenario that a layer above scenario/ reads (`bsp:`: the BSP gang study,
// bsp/gang_spec.hpp's read_gang_spec), kept as its YAML document with what that reader's
// relative paths and error messages need. The scenario checks only that the key is allowed.
struct ScenarioSection {
  std::shared_ptr<const YAML::Node> node;  // never null; shares the document's memory
  std::string source;  // the scenario file (errors name it)
  std::string dir;     // the scenario's folder: relative paths resolve against it
  int line = 0;        // 1-based line of the section
};

struct Scenario {
  std::string path;  // the scenario file
  std::string name;
  std::string description;
  SimulationInputs inputs;
  std::string scheduler_config;  // resolved schedulerConfig path; empty: the default profile
  std::vector<SetupChoice> schedulers;  // `schedulers:`, not installed yet (the CLI may override them)
  // "realistic", "ideal", or a latency-model path resolved against the scenario's folder;
  // empty when the scenario does not set one (the CLI's --model applies).
  std::string model;
  std::int64_t capacity_milli = 0;  // utilisation denominator (millicores)
  Duration sample_interval = Duration::seconds(1);
  std::vector<std::string> tenants;  // tenant namespaces, in declaration order
  bool each_tenant_alone = false;
  std::optional<Duration> duration;  // simulation time limit, when given
  std::optional<ScenarioSection> bsp_section;  // `bsp:` (null or absent: none)
  // `measuredResults: {file, experiment}`: real results shown beside the run's in its reports
  // (report/measured_results.hpp); the file resolved against the scenario's folder, empty: none.
  std::string measured_results_file;
  std::string measured_experiment;  // the experiment of that file shown
};

// Checks a layer above makes of the files a scenario names (the measured results' reader is in
// report/), called with the scenario read so far: its cluster, the files it names and its
// failures read and checked, no job generated yet. Throws InputError.
using ScenarioCheck = std::function<void(const Scenario&)>;

Scenario read_scenario(const std::string& path, ScenarioCheck check = {});
// The scenario of the document `root` as if read from `path` (relative paths resolve against
// its folder): `kubesim sweep` reads a scenario file once and overrides keys in copies.
Scenario read_scenario(const std::string& path, const YAML::Node& root, ScenarioCheck check = {});

// A copy of `src` with kube-scheduler configured from `scheduler_config` (empty: the default
// profile): a SchedulerConfig owns its plugins and cannot be copied.
SimulationInputs copy_inputs(const SimulationInputs& src, const std::string& scheduler_config);

// The inputs of a run with only `tenant`'s workload jobs (for eachTenantAlone): a copy of
// scenario.inputs (the scheduler configuration is loaded again, as it owns its plugins)
// with the other namespaces' jobs removed; namespace ids and templates stay as they were.
// `tenant` must be one of scenario.tenants.
SimulationInputs tenant_inputs(const Scenario& scenario, const std::string& tenant);

}  // namespace kubesim
