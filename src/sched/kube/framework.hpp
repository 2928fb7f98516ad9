// The scheduling framework (pkg/scheduler/framework/interface.go), reduced to the extension
// points kubesim's models use. "Unschedulable" is a result (a Status), never an exception.
// Plugins are small classes, one per folder under sched/kube/plugins/, created by name from the
// registry (plugins/registry.hpp); a profile (KubeSchedulerConfiguration) picks them and their weights.
#pragma once

#include <cstdint>
#include <array>
#include <memory>
#include <string_view>
#include <utility>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/object_store.hpp"
#include "cluster/gpu_frag.hpp"
#include "cluster/node_cache.hpp"

namespace kubesim {

inline constexpr std::int64_t kMaxNodeScore = 100;  // framework.MaxNodeScore

// framework.Code, in upstream's order.
enum class StatusCode : std::uint8_t { kSuccess, kError, kUnschedulable, kUnschedulableAndUnresolvable, kWait, kSkip };

// Index of a plugin in its profile's plugin list; a pod's UnschedulablePlugins is a bitmask
// of these (at most 32 plugins per profile).
using PluginIndex = std::uint8_t;

// A filter's verdict on one node: a code and upstream's reasons ("Insufficient cpu", ...).
// The texts outlive the cycle (static strings, or strings the plugin or store keeps).
struct FilterResult {
  StatusCode code = StatusCode::kSuccess;
  std::uint8_t reason_count = 0;
  std::array<std::string_view, kMaxResources + 1> reasons{};

  static FilterResult failure(StatusCode code, std::string_view reason) {
    FilterResult r;
    r.code = code;
    r.reasons[0] = reason;
    r.reason_count = 1;
    return r;
  }
  bool ok() const { return code == StatusCode::kSuccess; }
  std::string_view reason() const { return reason_count ? reasons[0] : std::string_view(); }
};

// Cluster-wide facts the scheduler cache keeps, so plugins can tell in O(1) that they
// cannot reject (or distinguish) any node for this pod.
struct ClusterStats {
  std::uint32_t unschedulable_nodes = 0;  // spec.unschedulable
  std::uint32_t hard_tainted_nodes = 0;   // with a NoSchedule or NoExecute taint
  std::uint32_t soft_tainted_nodes = 0;   // with a PreferNoSchedule taint
};

// What a plugin can read during one scheduling cycle.
struct CycleContext {
  const ObjectStore& store;
  PodId pod;
  const PodTemplate& spec;
  const ClusterStats& cluster;
};

// Cluster events a plugin registers for (EventsToRegister): when one happens, pods that
// this plugin rejected are moved back to activeQ/backoffQ.
enum ClusterEvent : std::uint32_t {
  kEventPodDelete = 1u << 0,          // AssignedPodDelete
  kEventPodAdd = 1u << 1,             // AssignedPodAdd
  kEventPodUpdate = 1u << 2,          // AssignedPodUpdate
  kEventNodeAdd = 1u << 3,            // NodeAdd
  kEventNodeAllocatable = 1u << 4,    // NodeAllocatableChange
  kEventNodeLabel = 1u << 5,          // NodeLabelChange
  kEventNodeTaint = 1u << 6,          // NodeTaintChange
  kEventNodeCondition = 1u << 7,      // NodeConditionChange
  kEventNodeUnschedulable = 1u << 8,  // NodeSpecUnschedulableChange
  kEventUnschedulableTimeout = 1u << 9,
  kEventNodeUpdateAny = kEventNodeAllocatable | kEventNodeLabel | kEventNodeTaint | kEventNodeCondition |
                        kEventNodeUnschedulable,
  kEventAll = 0xffffffffu,
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual const char* name() const = 0;
  // Bitmask of ClusterEvent this plugin's rejections wait for.
  virtual std::uint32_t events_to_register() const { return 0; }
};

class FilterPlugin : public virtual Plugin {
 public:
  // False when the plugin cannot reject this pod on any node (a pure speed-up: skipping it
  // changes no result). Called once per cycle.
  virtual bool applies(const CycleContext&) const { return true; }
  virtual FilterResult filter(const CycleContext& ctx, const NodeInfo& node) const = 0;
  // True when filter() is exactly noderesources.Fits (fit.go fitsRequest) on the NodeInfo's
  // sums, i.e. insufficient_resources() turned into fit_failure(): the predicate upstream's
  // event handlers call directly (eventhandlers.go preCheckForNode). When it is a cycle's only
  // active filter, the node search evaluates that predicate inline and builds the rejection
  // status once per distinct set of insufficient resources (the FitError counts, hence the
  // message, are the same), with no virtual call per node. Asked once per cycle.
  virtual bool is_fits_request() const { return false; }
};

class ScorePlugin : public virtual Plugin {
 public:
  // Scores every node of `nodes` into `scores` (same order), then normalizes as upstream's
  // ScoreExtensions.NormalizeScore does (if the plugin has one).
  virtual void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                     std::span<std::int64_t> scores) const = 0;
  // The normalized score when it is known to be the same for every node (e.g. no taints in
  // the cluster); the framework then adds it once instead of scoring node by node.
  virtual std::optional<std::int64_t> uniform_score(const CycleContext&) const { return std::nullopt; }
};

// ---- Extension points beyond Filter/Score (framework/interface.go, v1.26) ----

// A status with a message built at run time (PreFilter, Permit, PostFilter results).
struct PluginStatus {
  StatusCode code = StatusCode::kSuccess;
  std::string message;
  bool ok() const { return code == StatusCode::kSuccess; }
};

// What plugins may ask of the framework (framework.Handle): the waiting pods map
// (runtime/waiting_pods_map.go), the queue's Activate (PodsToActivate), and the scheduler
// cache (snapshot) and pod informer views.
class FrameworkHandle {
 public:
  virtual ~FrameworkHandle() = default;
  virtual const ObjectStore& store() const = 0;
  // IterateOverWaitingPods, in the order the pods started waiting.
  virtual std::vector<PodId> waiting_pods() const = 0;
  // WaitingPod.Allow(plugin): with no other plugin still to allow, the pod goes on to bind.
  virtual void allow_waiting_pod(PodId pod, const char* plugin) = 0;
  // WaitingPod.Reject(plugin, msg).
  virtual void reject_waiting_pod(PodId pod, const char* plugin, const std::string& message) = 0;
  // CycleState PodsToActivate: moved to activeQ when the scheduling cycle ends.
  virtual void request_activation(PodId pod) = 0;
  // The node the scheduler cache accounts the pod on (assumed or bound), or invalid.
  virtual NodeId cached_node(PodId pod) const = 0;
  // The pods of the cache on a node (assumed or bound, not terminal), in no order.
  virtual const std::vector<PodId>& cached_pods_on(NodeId node) const = 0;
  // Every pod the nominator holds (NominatedPodsForNode over all nodes).
  virtual const std::vector<PodId>& nominated_pods() = 0;
  // Every node of the snapshot, in the cache's node-tree order.
  virtual std::span<const NodeInfo* const> snapshot_nodes() = 0;
};

// Plugins with state kept from the informers (PodGroups, ElasticQuotas) see every pod change
// the scheduler receives, before the scheduler acts on it.
class InformerPlugin : public virtual Plugin {
 public:
  virtual void set_handle(FrameworkHandle* handle) = 0;
  virtual void on_pod_change(const Change& change, SimTime now) = 0;
};

// What the FGD authors' GPU plugins (plugins/open_gpu_share, fgd_score, ...) read beyond a
// NodeInfo: the scheduler cache's device use, the workload's typical pods (frag.go
// GetTypicalPods), the run's seed (their random choices); and Reserve's device choice, which
// replaces the devices the cache picked for the assumed pod (the binding carries them).
class GpuHandle {
 public:
  virtual ~GpuHandle() = default;
  virtual const ObjectStore& store() const = 0;
  virtual const NodeCache& node_cache() const = 0;
  virtual const TypicalPods& typical_pods() const = 0;
  virtual std::uint64_t seed() const = 0;
  virtual void set_device_grants(PodId pod, DeviceGrants grants) = 0;
};

// A plugin given the GpuHandle when its Scheduler is built.
class GpuPlugin : public virtual Plugin {
 public:
  virtual void set_gpu_handle(GpuHandle* handle) = 0;
};

// QueueSortPlugin.Less; `initial_a`/`initial_b` are the QueuedPodInfos' InitialAttemptTimestamp.
class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool less(PodId a, SimTime initial_a, PodId b, SimTime initial_b) const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  virtual PluginStatus pre_filter(const CycleContext& ctx, SimTime now) = 0;
};

class ReservePlugin : public virtual Plugin {
 public:
  virtual PluginStatus reserve(PodId pod, NodeId node, SimTime now) = 0;
  virtual void unreserve(PodId pod, NodeId node, SimTime now) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  struct Result {
    PluginStatus status;
    Duration timeout;  // for kWait
  };
  virtual Result permit(PodId pod, NodeId node, SimTime now) = 0;
};

// A PostFilter plugin other than the preemption ones (which the Scheduler's evaluator runs).
// Returns Unschedulable (or UnschedulableAndUnresolvable) with a message, a nil result.
class PostFilterPlugin : public virtual Plugin {
 public:
  virtual PluginStatus post_filter(PodId pod, SimTime now) = 0;
};

// preemption.Interface of an out-of-tree preemption PostFilter (CapacityScheduling's
// preemptor), run by the Scheduler's Evaluator (framework/preemption/preemption.go) in place
// of DefaultPreemption's: eligibility, offset and number of candidates, and the victim rules
// of SelectVictimsOnNode (the node copy and the filters stay the Scheduler's).
class PreemptionPlugin : public virtual Plugin {
 public:
  // PodEligibleToPreemptOthers after the preemptionPolicy=Never check.
  virtual bool eligible(PodId pod, NodeId nominated, bool nominated_unresolvable) = 0;
  // GetOffsetAndNumCandidates: (offset, number).
  virtual std::pair<std::int32_t, std::int32_t> offset_and_num_candidates(std::int32_t nodes) = 0;
  // SelectVictimsOnNode on one node: begin_node resets the plugin's per-node state (the
  // CycleState clone); potential_victim is asked for the node's pods least important first;
  // removed/added mirror RemovePod/AddPod (PreFilterExtensions).
  virtual void begin_node(PodId preemptor) = 0;
  virtual bool potential_victim(PodId preemptor, PodId pod) = 0;
  virtual void removed(PodId pod) = 0;
  virtual void added(PodId pod) = 0;
  // After removing every potential victim: false means "global quota max exceeded".
  virtual bool fits_after_removal(PodId preemptor) = 0;
  // During the reprieve, after a pod was added back and the filters passed: false sends it
  // back to the victims.
  virtual bool fits_on_reprieve(PodId preemptor) = 0;
};

// floor(a / b) for 0 <= a, b > 0, given inv_b = 1.0 / b: a multiplication instead of a
// division on the per-node hot path, corrected to the exact integer quotient.
inline std::int64_t divide_exact(std::int64_t a, std::int64_t b, double inv_b) {
  if (a >= (std::int64_t{1} << 52)) return a / b;  // beyond exact doubles
  std::int64_t q = static_cast<std::int64_t>(static_cast<double>(a) * inv_b);
  if (q * b > a) {
    --q;
  } else if ((q + 1) * b <= a) {
    ++q;
  }
  return q;
}

// framework/plugins/helper/normalize_score.go DefaultNormalizeScore.
void default_normalize_score(std::int64_t max_priority, bool reverse, std::span<std::int64_t> scores);

}  // namespace kubesim
