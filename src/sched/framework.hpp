// The scheduling framework (pkg/scheduler/framework/interface.go), reduced to the extension
// points kubesim's models use. "Unschedulable" is a result (a Status), never an exception.
// Plugins are small classes, one per folder under sched/plugins/, created by name from the
// registry; a profile (KubeSchedulerConfiguration) picks them and their weights.
#pragma once

#include <cstdint>
#include <array>
#include <memory>
#include <string_view>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/object_store.hpp"
#include "sched/node_info.hpp"

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
