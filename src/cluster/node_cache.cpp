#include "cluster/node_cache.hpp"

#include "cluster/predicates.hpp"

#include <algorithm>

namespace kubesim {

void NodeCache::set_node(NodeId id, const Node& node) {
  const std::size_t n = id.value();
  if (nodes_.size() <= n) {
    nodes_.resize(n + 1);
    node_pods_.resize(n + 1);
    devices_.resize(n + 1);
  }
  nodes_[n].set_node(id, node);
  const int gpu = store_.resource_names().find(kGpuDeviceClass);
  if (gpu >= 0) gpu_slot_ = gpu;
  NodeDevices& d = devices_[n];
  if (node.devices.empty()) {
    const std::int64_t count = gpu >= 0 ? node.allocatable[static_cast<std::size_t>(gpu)] : 0;
    if (static_cast<std::int64_t>(d.anonymous.size()) != count) d.anonymous = anonymous_devices(count);
  } else {
    d.anonymous.clear();
  }
  // A device list that shrank forgets the use of the devices gone (their pods stay accounted).
  d.use.resize(node.devices.empty() ? d.anonymous.size() : node.devices.size());
}

bool NodeCache::add_pod(PodId pod, NodeId node) {
  if (pod.value() >= cached_.size()) cached_.resize(pod.value() + 1);
  if (cached_[pod.value()].node == node) return false;
  if (cached_[pod.value()].node.valid()) remove_pod(pod);
  const Pod& p = store_.pod(pod);
  const PodTemplate& spec = store_.spec(p.spec);
  nodes_[node.value()].add_pod(spec, +1);
  NodePods& np = node_pods_[node.value()];
  cached_[pod.value()] = CachedPod{node, static_cast<std::uint32_t>(np.pods.size())};
  np.pods.push_back(pod);
  np.specs.push_back(p.spec);
  if (!p.devices().empty()) {
    use_devices(node, p.devices(), +1);
  } else if (wants_devices(spec)) {
    DeviceGrants grants;
    if (fit_devices(spec, node, grants)) {
      use_devices(node, grants, +1);
      picked_[pod.value()] = std::move(grants);
    }
  }
  return true;
}

NodeId NodeCache::remove_pod(PodId pod) {
  if (pod.value() >= cached_.size()) return NodeId();
  CachedPod& cached = cached_[pod.value()];
  const NodeId node = cached.node;
  if (!node.valid()) return node;
  const Pod& p = store_.pod(pod);
  nodes_[node.value()].add_pod(store_.spec(p.spec), -1);
  NodePods& np = node_pods_[node.value()];
  const PodId last = np.pods.back();  // swap-remove
  np.pods[cached.slot] = last;
  np.specs[cached.slot] = np.specs.back();
  cached_[last.value()].slot = cached.slot;
  np.pods.pop_back();
  np.specs.pop_back();
  cached = CachedPod{};
  if (!p.devices().empty()) {
    use_devices(node, p.devices(), -1);
  } else if (auto it = picked_.find(pod.value()); it != picked_.end()) {
    use_devices(node, it->second, -1);
    picked_.erase(it);
  }
  return node;
}

const std::vector<PodId>& NodeCache::pods_on(NodeId node) const {
  static const std::vector<PodId> kNone;
  return node.value() < node_pods_.size() ? node_pods_[node.value()].pods : kNone;
}

std::span<const PodTemplateId> NodeCache::specs_on(NodeId node) const {
  if (node.value() >= node_pods_.size()) return {};
  return node_pods_[node.value()].specs;
}

std::span<const Device> NodeCache::devices(NodeId node) const {
  if (node.value() >= devices_.size()) return {};
  // The store's node, not NodeInfo::node: that pointer is stale once the store's node table
  // grew after set_node (the kubelets' cache sets each node as it is created). At most the
  // devices whose use is kept (set_node sized it).
  const Node& n = store_.node(node);
  const std::size_t kept = devices_[node.value()].use.size();
  if (!n.devices.empty()) return std::span<const Device>(n.devices).first(std::min(kept, n.devices.size()));
  return devices_[node.value()].anonymous;
}

std::span<const DeviceUse> NodeCache::device_use(NodeId node) const {
  if (node.value() >= devices_.size()) return {};
  return devices_[node.value()].use;
}

std::span<const DeviceGrant> NodeCache::grants_of(PodId pod) const {
  const Pod& p = store_.pod(pod);
  if (!p.devices().empty()) return p.devices();
  auto it = picked_.find(pod.value());
  return it == picked_.end() ? std::span<const DeviceGrant>() : std::span<const DeviceGrant>(it->second);
}

bool NodeCache::fit_devices(const PodTemplate& spec, NodeId node, DeviceGrants& out) const {
  out.clear();
  if (!wants_devices(spec)) return true;
  // The nvidia.com/gpu extended resource of a pod without device requests: whole devices.
  const std::int64_t whole =
      spec.device_requests.empty() && gpu_slot_ >= 0 ? spec.requests[static_cast<std::size_t>(gpu_slot_)] : 0;
  return kubesim::fit_devices(spec.device_requests, whole, devices(node), device_use(node), out);
}

void NodeCache::set_grants(PodId pod, DeviceGrants grants) {
  const NodeId node = node_of(pod);
  if (!node.valid() || !store_.pod(pod).devices().empty()) return;
  DeviceGrants& picked = picked_[pod.value()];
  use_devices(node, picked, -1);
  picked = std::move(grants);
  use_devices(node, picked, +1);
}

void NodeCache::use_devices(NodeId node, std::span<const DeviceGrant> grants, int sign) {
  ++devices_[node.value()].generation;
  std::vector<DeviceUse>& use = devices_[node.value()].use;
  for (const DeviceGrant& g : grants) {
    if (g.device >= use.size()) continue;  // a device the node no longer declares
    use[g.device].used += sign * g.share;
    use[g.device].sharers += sign;
  }
}

}  // namespace kubesim
