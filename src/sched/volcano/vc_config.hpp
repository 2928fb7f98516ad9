// Volcano v1.7.0's configuration and objects as kubesim reads them, from one multi-document
// YAML file (`--scheduler-config` of the volcano setup):
// - the scheduler configuration, `volcano-scheduler.conf` (pkg/scheduler/conf/scheduler_conf.go
//   SchedulerConfiguration: actions, tiers of plugins with their enable* switches and
//   arguments), as a document of its own or as the data key of a ConfigMap (how the chart ships
//   it: installer/helm/chart/volcano/templates/scheduler.yaml);
// - Queues (scheduling.volcano.sh/v1beta1: spec.weight, capability, guarantee.resource,
//   reclaimable; status.state Open/Closed);
// - PodGroups (scheduling.volcano.sh/v1beta1: spec.minMember, minResources, queue,
//   priorityClassName), whose pods name them with the annotation scheduling.k8s.io/group-name.
// - Volcano Jobs (batch.volcano.sh/v1alpha1), skipped here: the volcano setup turns them into
//   pods and PodGroups (setups/volcano_setup.hpp).
// Without a configuration document the release's default applies (kDefaultConf, below). The
// `default` queue (weight 1, reclaimable) always exists, as vc-controller-manager's queue
// controller creates it (pkg/webhooks and pkg/controllers/queue: the default queue is created
// at start-up); a file may redefine it.
// Errors are InputError(file, line, ...); a bad line inside a ConfigMap's embedded
// configuration is reported at its line in the file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/time.hpp"
#include "model/resources.hpp"

namespace kubesim::volcano {

// The actions kubesim models (pkg/scheduler/actions: enqueue, allocate, backfill, preempt,
// reclaim). shuffle and elect are not in v1.7.0's factory; reserve was removed.
enum class Action : std::uint8_t { kEnqueue, kAllocate, kBackfill, kPreempt, kReclaim };
const char* to_string(Action a);

// The plugins kubesim models (pkg/scheduler/plugins/factory.go names).
enum class Plugin : std::uint8_t {
  kPriority, kGang, kConformance, kDrf, kProportion, kPredicates, kNodeorder, kBinpack, kOvercommit
};
const char* to_string(Plugin p);

// conf.PluginOption: the switches (nil = true, framework ApplyPluginConfDefaults, except
// enableNamespaceOrder and enableHierarchy, which drf reads as "set and true") and arguments.
struct PluginOption {
  Plugin plugin = Plugin::kPriority;
  bool job_order = true, namespace_order = false, job_ready = true, job_pipelined = true, task_order = true,
       preemptable = true, reclaimable = true, queue_order = true, predicate = true, best_node = true,
       node_order = true, target_job = true, reserved_nodes = true, job_enqueued = true, victim = true,
       job_starving = true;
  std::map<std::string, std::string> arguments;  // scalar arguments as written
  // An argument as a number (Arguments.GetInt / GetFloat64): `fallback` when absent.
  double number(const std::string& key, double fallback) const;
};

struct Tier {
  std::vector<PluginOption> plugins;
};

struct SchedulerConf {
  std::vector<Action> actions;
  std::vector<Tier> tiers;
  bool has(Action a) const;
  // The first configured option of that plugin (nullptr: not configured).
  const PluginOption* find(Plugin p) const;
};

// scheduling.volcano.sh/v1beta1 Queue.
struct QueueSpec {
  std::string name;
  std::int32_t weight = 1;  // spec.weight (the webhook defaults it to 1)
  Resources capability;     // spec.capability; a slot counts only when its bit is set
  std::uint32_t capability_slots = 0;
  Resources guarantee;      // spec.guarantee.resource
  std::uint32_t guarantee_slots = 0;
  bool reclaimable = true;  // spec.reclaimable (default true)
  bool open = true;         // status.state Open (Closed / Closing: no new jobs)
};

// scheduling.volcano.sh/v1beta1 PodGroup.
struct PodGroupSpec {
  std::string name;
  std::string ns = "default";
  std::int32_t min_member = 1;
  Resources min_resources;
  bool has_min_resources = false;
  std::string queue = "default";
  std::string priority_class;
  SimTime created = SimTime::zero();  // creationTimestamp (the job order's fallback)
  // spec.minTaskMember: task name (a pod's volcano.sh/task-spec annotation) -> its minimum,
  // by name.
  std::vector<std::pair<std::string, std::int32_t>> min_task_member;
};

struct Config {
  SchedulerConf conf;
  std::vector<QueueSpec> queues;  // "default" first
  std::vector<PodGroupSpec> pod_groups;
  int find_queue(const std::string& name) const;
};

inline constexpr const char* kVolcanoJobApi = "batch.volcano.sh/v1alpha1";

// installer/helm/chart/volcano/config/volcano-scheduler.conf at v1.7.0 (the release's
// default, also the peers folder's volcano/volcano-scheduler.conf).
extern const char* const kDefaultConf;

// Parses a volcano-scheduler.conf text (errors at `path`, lines offset by `line_offset`).
SchedulerConf parse_scheduler_conf(const std::string& text, const std::string& path, int line_offset = 0);
// The release default, the default queue, no PodGroups.
Config default_config();
// Reads the file described above.
Config load_config(const std::string& path, ResourceNames& names);

}  // namespace kubesim::volcano
