// Reads kubesim's native cluster description (YAML):
//
//   nodeGroups:
//     - name: cpu            # required; nodes are named <name>-<i>, i from 0
//       count: 4             # default 1, must be >= 1
//       allocatable: {cpu: "128", memory: 512Gi, pods: 110, nvidia.com/gpu: 8, ephemeral-storage: 100Gi}
//       capacity: {...}      # optional; each resource defaults to its allocatable amount
//       labels: {topology.kubernetes.io/zone: a}
//       taints: [{key: k, value: v, effect: NoSchedule}]   # effect: NoSchedule|PreferNoSchedule|NoExecute
//       unschedulable: false
//
// Resources are Kubernetes quantities: cpu in millicores (Quantity.MilliValue), the others
// rounded up to integers (Quantity.Value). allocatable.cpu is required; pods defaults to 110
// (the kubelet's maxPods). Any other resource name must be an extended resource, i.e.
// domain-qualified like nvidia.com/gpu (or hugepages-<size>), and gets a slot from `names`.
// Unknown keys, unknown resource names and allocatable > capacity are errors naming the key,
// so typos are never silent. Every node gets the label kubernetes.io/hostname=<node name>.
// Errors throw InputError(path, line, ...) with the 1-based line of the offending YAML node.
#pragma once

#include <string>

#include "model/resources.hpp"
#include "platform/cluster.hpp"

namespace YAML {
class Node;
}

namespace kubesim {

ClusterSpec read_cluster_yaml(const std::string& path, ResourceNames& names);
// The same schema given inline (e.g. in a scenario file): `root` is the map holding
// nodeGroups; `path` is the file it came from, for error messages.
ClusterSpec read_cluster_yaml_node(const YAML::Node& root, const std::string& path, ResourceNames& names);

}  // namespace kubesim
