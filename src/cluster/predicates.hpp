// The placement predicates: whether a pod may be placed on a node, one implementation each,
// with upstream's semantics. Every scheduler family, the kubelet's admission and the API's
// checks call these; a caller that deliberately checks a subset or differs from upstream's
// scheduler (the kubelet, YuniKorn, the batch policies) says so where it calls them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cluster/node_cache.hpp"
#include "model/devices.hpp"
#include "model/objects.hpp"
#include "model/resources.hpp"

namespace kubesim {

// ---- Taints and tolerations (component-helpers/scheduling/corev1/helpers.go
// FindMatchingUntoleratedTaint; plugins/tainttoleration/taint_toleration.go Filter) ----

// Whether some toleration tolerates the taint (TolerationsTolerateTaint).
bool tolerations_tolerate(const std::vector<Toleration>& tolerations, const Taint& taint);
// FindMatchingUntoleratedTaint with the NoSchedule/NoExecute filter (TaintToleration's
// Filter, and the kubelet admission of a pod with nodeName): the first such taint of the node
// that no toleration tolerates, or nullptr.
const Taint* first_untolerated_schedule_taint(const Node& node, const std::vector<Toleration>& tolerations);

// ---- Node unschedulable (plugins/nodeunschedulable/node_unschedulable.go Filter): a
// cordoned node accepts only pods tolerating node.kubernetes.io/unschedulable:NoSchedule. ----
bool tolerates_unschedulable(const std::vector<Toleration>& tolerations);
inline bool passes_unschedulable(const PodTemplate& spec, const Node& node) {
  return !node.unschedulable || tolerates_unschedulable(spec.tolerations);
}

// ---- spec.nodeName (plugins/nodename/node_name.go Fits) ----
inline bool node_name_matches(const PodTemplate& spec, const Node& node) {
  return spec.node_name.empty() || spec.node_name == node.name;
}

// ---- Node selector and required node affinity (component-helpers/scheduling/corev1/
// nodeaffinity/nodeaffinity.go GetRequiredNodeAffinity(pod).Match) ----

// A term matches when all its requirements do; an empty term matches nothing.
bool node_selector_term_matches(const NodeSelectorTerm& term, const Node& node);
// spec.nodeSelector (every label equal) and, if any, one of the required terms (ORed).
bool pod_matches_node_selector_and_affinity(const PodTemplate& spec, const Node& node);

// ---- Resource fit (plugins/noderesources/fit.go fitsRequest) ----

// A bit per insufficient resource slot (1 << slot), plus kTooManyPodsBit when the node's pod
// count is full. Upstream's order of the insufficient resources is: pods, then the slots in
// ascending order (cpu, memory, ephemeral-storage, extended resources in registration order),
// which is the bits' order from kTooManyPodsBit down to bit 0 read as "pods first".
inline constexpr std::uint32_t kTooManyPodsBit = 1u << kMaxResources;
// fitsRequest: the pod count always; a pod requesting nothing needs only a pod slot; cpu,
// memory and ephemeral-storage are always compared, extended resources only when requested.
inline std::uint32_t insufficient_resources(const PodTemplate& spec, const Resources& allocatable,
                                            const Resources& requested, std::int64_t pod_count,
                                            std::int64_t allowed_pods) {
  std::uint32_t out = pod_count + 1 > allowed_pods ? kTooManyPodsBit : 0;
  if (spec.requested_slots == 0) return out;
  for (std::uint32_t slots = spec.requested_slots | 0b111u; slots != 0; slots &= slots - 1) {
    const auto i = static_cast<std::size_t>(__builtin_ctz(slots));
    if (spec.requests[i] > allocatable[i] - requested[i]) out |= 1u << i;
  }
  return out;
}
// The lowest resource slot among the insufficient bits (the first in upstream's order after
// the pod count); `insufficient` must have a slot bit.
inline std::size_t first_slot(std::uint32_t insufficient) {
  return static_cast<std::size_t>(__builtin_ctz(insufficient & (kTooManyPodsBit - 1)));
}
// The same over a node cache entry (the scheduler's hot path: fields read in place).
inline std::uint32_t insufficient_resources(const PodTemplate& spec, const NodeInfo& node) {
  return insufficient_resources(spec, node.allocatable, node.requested, node.pod_count, node.allowed_pods);
}

// ---- Device fit (new: kubesim's device model, model/devices.hpp) ----

// Picks devices for every request of `requests`, then for `whole_gpus` more whole devices of
// the GPU class (the extended resource nvidia.com/gpu: k of a pod without device requests),
// from `devices` given their `use`. First fit in device order for each request, requests in
// order; a device gives at most one grant per pod (a pod's shares of one request are on
// distinct devices, as FGD's multi-GPU tasks). Appends the grants to `out` and returns true,
// or returns false (then `out` is unspecified). `use` is not changed.
bool fit_devices(std::span<const DeviceRequest> requests, std::int64_t whole_gpus, std::span<const Device> devices,
                 std::span<const DeviceUse> use, DeviceGrants& out);
// Whether the grants may be added on the node: every index names a device, each share is
// free on it and its sharer cap is not reached (the kubelet device manager's Allocate check,
// pkg/kubelet/cm/devicemanager/manager.go devicesToAllocate: the devices must be available).
bool grants_fit(std::span<const DeviceGrant> grants, std::span<const Device> devices,
                std::span<const DeviceUse> use);

}  // namespace kubesim
