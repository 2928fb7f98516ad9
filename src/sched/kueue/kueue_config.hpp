// Kueue's API objects as kubesim reads them (kueue.x-k8s.io/v1beta1, Kueue v0.9):
// ResourceFlavor, ClusterQueue, LocalQueue, and the manager's Configuration
// (config.kueue.x-k8s.io/v1beta1), from one multi-document YAML file.
//
// Supported: ClusterQueue spec.cohort (flat cohorts), namespaceSelector (matchLabels /
// matchExpressions over the namespace's kubernetes.io/metadata.name label; absent = no
// namespace, {} = every namespace, apis/kueue/v1beta1 clusterqueue_types.go),
// queueingStrategy, resourceGroups with nominalQuota / borrowingLimit / lendingLimit,
// preemption (withinClusterQueue, reclaimWithinCohort, borrowWithinCohort); LocalQueue
// spec.clusterQueue; Configuration clientConnection.qps / burst (defaults 20 / 30,
// apis/config/v1beta1 defaults.go), namespace, integrations.frameworks (only whether "pod" is
// listed matters: Jobs are always admitted) and integrations.podOptions. ResourceFlavors
// carry no nodeLabels / nodeTaints / tolerations here (they would be injected into the pod template; not modelled), and
// flavorFungibility is the default (whenCanBorrow: Borrow, whenCanPreempt: TryNextFlavor).
// Not supported (rejected with a message): fair sharing, admission checks, hierarchical
// cohorts (the Cohort kind), the "pods" resource, stopPolicy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/time.hpp"
#include "model/objects.hpp"
#include "model/resources.hpp"

namespace kubesim::kueue {

enum class QueueingStrategy : std::uint8_t { kBestEffortFIFO, kStrictFIFO };
// ClusterQueuePreemption policies (Never, LowerPriority, LowerOrNewerEqualPriority, Any).
enum class Policy : std::uint8_t { kNever, kLowerPriority, kLowerOrNewerEqualPriority, kAny };

struct ResourceQuotaSpec {
  std::int64_t nominal = 0;  // milli-cpu for cpu, units otherwise (the store's slot units)
  std::optional<std::int64_t> borrowing_limit;
  std::optional<std::int64_t> lending_limit;
};

struct FlavorQuotas {
  std::uint32_t flavor = 0;                  // index into Config::flavors
  std::vector<ResourceQuotaSpec> resources;  // parallel to ResourceGroup::covered
};

struct ResourceGroup {
  std::vector<std::uint8_t> covered;  // resource slots
  std::vector<FlavorQuotas> flavors;  // in the order they are tried
};

struct ClusterQueueSpec {
  std::string name;
  std::string cohort;  // empty: none
  bool has_namespace_selector = false;
  LabelSelector namespace_selector;
  QueueingStrategy strategy = QueueingStrategy::kBestEffortFIFO;
  Policy within_cluster_queue = Policy::kNever;   // Never | LowerPriority | LowerOrNewerEqualPriority
  Policy reclaim_within_cohort = Policy::kNever;  // Never | LowerPriority | Any
  Policy borrow_within_cohort = Policy::kNever;   // Never | LowerPriority
  std::optional<std::int32_t> max_priority_threshold;
  std::vector<ResourceGroup> groups;
};

struct LocalQueueSpec {
  std::string name;
  std::string ns;
  std::uint32_t cluster_queue = 0;  // index into Config::cluster_queues
};

struct Config {
  std::vector<std::string> flavors;
  std::vector<ClusterQueueSpec> cluster_queues;
  std::vector<LocalQueueSpec> local_queues;
  // clientConnection: the manager's client-go token bucket (flowcontrol).
  double qps = 20;
  std::int32_t burst = 30;
  // kubesim: the round trip of one API write of the Kueue manager (not an upstream value).
  Duration api_latency = Duration::millis(5);
  // integrations.frameworks lists "pod": plain pods (and pod groups) labelled queue-name are
  // gated and admitted (Kueue v0.6+; off by default: the default frameworks are
  // ["batch/job"], apis/config/v1beta1 defaults.go).
  bool pod_integration = false;
  // integrations.podOptions (defaults.go): the namespaces and pods the pod webhook manages.
  // Default namespaceSelector: kubernetes.io/metadata.name NotIn [kube-system, <namespace>]
  // (the manager's namespace, default kueue-system); default podSelector: every pod.
  LabelSelector pod_namespace_selector;
  LabelSelector pod_selector;
};

// Reads the file (multi-document YAML). Resource names are registered in `names`. Throws
// InputError naming file:line.
Config load_config(const std::string& path, ResourceNames& names);
Config parse_config(const std::string& text, const std::string& path, ResourceNames& names);

}  // namespace kubesim::kueue
