// The node cache: what one observer (a scheduler, the kubelets) believes is on each node.
// Per node: the node's allocatable figures next to the sums of the requests of its pods
// (NodeInfo, kube-scheduler's compact layout: the score plugins read it in place), the pods
// and their templates, and the use of each device. Each scheduler keeps its own instance, fed
// by its own informer stream (and its assumed pods); the type and code are shared.
//
// Follows kube-scheduler's cache (pkg/scheduler/internal/cache/cache.go AddPod/RemovePod,
// framework/types.go NodeInfo.AddPod/RemovePod); devices are kubesim's (model/devices.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "core/ids.hpp"
#include "model/devices.hpp"
#include "model/object_store.hpp"
#include "model/objects.hpp"

namespace kubesim {

// The cache's view of one node (pkg/scheduler/framework/types.go NodeInfo): the node object
// plus the sums of the requests of the pods the observer believes are on it (assumed or
// bound, not terminal). Kept compact (no devices, no pod lists): the scheduling loop reads it
// for every node.
struct NodeInfo {
  NodeId id;
  const Node* node = nullptr;
  Resources allocatable;        // copies of the node's, kept next to the sums for locality
  std::int64_t allowed_pods = 0;
  double inverse_allocatable[2] = {0, 0};  // 1.0 / allocatable cpu and memory (0 if none)
  Resources requested;          // NodeInfo.Requested: the pods' effective requests
  std::int64_t nonzero_cpu = 0;     // NodeInfo.NonZeroRequested.MilliCPU (100m default per container)
  std::int64_t nonzero_memory = 0;  // NodeInfo.NonZeroRequested.Memory (200Mi default per container)
  std::int32_t pod_count = 0;

  // Points the entry at its node and copies the node's allocatable figures.
  void set_node(NodeId node_id, const Node& n) {
    id = node_id;
    node = &n;
    allocatable = n.allocatable;
    allowed_pods = n.allowed_pods;
    for (std::size_t r : {kCpu, kMemory})
      inverse_allocatable[r] = allocatable[r] > 0 ? 1.0 / static_cast<double>(allocatable[r]) : 0.0;
  }

  // NodeInfo.AddPod (sign +1) / RemovePod (sign -1): the sums only.
  void add_pod(const PodTemplate& spec, int sign) {
    for (std::size_t i = 0; i < kMaxResources; ++i) requested.amount[i] += sign * spec.requests.amount[i];
    nonzero_cpu += sign * spec.nonzero_requests[kCpu];
    nonzero_memory += sign * spec.nonzero_requests[kMemory];
    pod_count += sign;
  }
};

class NodeCache {
 public:
  explicit NodeCache(const ObjectStore& store) : store_(store) {}

  // A node added or updated (its allocatable, its devices). Nodes are identified by NodeId;
  // the entry for `id` exists from then on.
  void set_node(NodeId id, const Node& node);
  std::size_t node_count() const { return nodes_.size(); }
  NodeInfo& info(NodeId id) { return nodes_[id.value()]; }
  const NodeInfo& info(NodeId id) const { return nodes_[id.value()]; }
  std::span<NodeInfo> infos() { return nodes_; }
  std::span<const NodeInfo> infos() const { return nodes_; }

  // Accounts the pod on the node (cache.go AddPod/assumePod; on another node: moved). Its
  // devices are those recorded on the pod (Pod::devices(), its binding's); a pod without
  // recorded devices that requests some (device requests, or the nvidia.com/gpu extended
  // resource) is given them first fit, as the binding would (fit_devices). Returns false,
  // doing nothing, if the pod is already on that node.
  bool add_pod(PodId pod, NodeId node);
  // Forgets the pod (cache.go RemovePod/ForgetPod). Returns the node it was on (invalid: none).
  NodeId remove_pod(PodId pod);
  // The node the pod is accounted on (invalid: none).
  NodeId node_of(PodId pod) const {
    return pod.value() < cached_.size() ? cached_[pod.value()].node : NodeId();
  }
  // The pods on the node, in no particular order (swap-remove), with their templates in the
  // parallel list (so a preemption dry run reads priorities without the pod table).
  const std::vector<PodId>& pods_on(NodeId node) const;
  std::span<const PodTemplateId> specs_on(NodeId node) const;

  // The node's devices (declared, or its anonymous GPUs) and what is used of each.
  std::span<const Device> devices(NodeId node) const;
  std::span<const DeviceUse> device_use(NodeId node) const;
  // The devices the pod holds in this cache (its recorded ones, or those picked for it).
  std::span<const DeviceGrant> grants_of(PodId pod) const;
  // Device fit of a pod template on the node (fit_devices over this cache's use): appends the
  // grants to `out` (cleared first). A template requesting no devices fits with none.
  bool fit_devices(const PodTemplate& spec, NodeId node, DeviceGrants& out) const;
  // Replaces the devices picked here for a pod accounted on a node without recorded devices
  // (an assumed pod: a Reserve plugin's device choice, e.g. open-gpu-share's). The caller
  // checked that they fit once the pod's current ones are released.
  void set_grants(PodId pod, DeviceGrants grants);
  // A counter of the node's device-use changes: equal values mean the same device use.
  std::uint64_t device_generation(NodeId node) const {
    return node.value() < devices_.size() ? devices_[node.value()].generation : 0;
  }
  // Whether the template asks for devices at all (device requests, or nvidia.com/gpu).
  bool wants_devices(const PodTemplate& spec) const {
    return !spec.device_requests.empty() || (gpu_slot_ >= 0 && spec.requests[static_cast<std::size_t>(gpu_slot_)] > 0);
  }

 private:
  struct CachedPod {
    NodeId node;
    std::uint32_t slot = 0;  // index in its node's lists
  };
  struct NodePods {
    std::vector<PodId> pods;
    std::vector<PodTemplateId> specs;  // parallel to pods
  };
  struct NodeDevices {
    std::vector<Device> anonymous;  // used when the node declares none
    std::vector<DeviceUse> use;     // by device index
    std::uint64_t generation = 0;   // device_generation
  };
  void use_devices(NodeId node, std::span<const DeviceGrant> grants, int sign);

  const ObjectStore& store_;
  std::vector<NodeInfo> nodes_;         // by NodeId
  std::vector<NodePods> node_pods_;     // by NodeId
  std::vector<NodeDevices> devices_;    // by NodeId
  std::vector<CachedPod> cached_;       // by PodId
  std::map<std::uint32_t, DeviceGrants> picked_;  // by PodId: devices picked here (no recorded ones)
  int gpu_slot_ = -1;  // the nvidia.com/gpu resource slot, once a node names it
};

}  // namespace kubesim
