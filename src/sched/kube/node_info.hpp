// The scheduler cache's view of one node (pkg/scheduler/framework/types.go NodeInfo): the
// node object plus the sums of the requests of the pods the scheduler believes are on it
// (assumed or bound, not terminal).
#pragma once

#include <cstdint>

#include "core/ids.hpp"
#include "model/objects.hpp"

namespace kubesim {

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

  void add_pod(const PodTemplate& spec, int sign) {
    for (std::size_t i = 0; i < kMaxResources; ++i) requested.amount[i] += sign * spec.requests.amount[i];
    nonzero_cpu += sign * spec.nonzero_requests[kCpu];
    nonzero_memory += sign * spec.nonzero_requests[kMemory];
    pod_count += sign;
  }
};

}  // namespace kubesim
