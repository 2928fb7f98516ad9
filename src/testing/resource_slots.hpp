// Pod templates, nodes and NodeInfos written in raw resource slots, for the unit tests of the
// scoring and fit plugins, whose upstream cases (pkg/scheduler/framework/plugins/
// noderesources/*_test.go: makeNode(name, milliCPU, memory, scalars), st.MakePod().Req(...))
// state numbers per container rather than manifests. Where a test reads like YAML, the
// builders of builders.hpp fit better.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "cluster/node_cache.hpp"
#include "model/objects.hpp"
#include "sched/kube/plugins/node_resources_fit/node_resources_fit.hpp"

namespace kubesim::testing {

// The first extended-resource slot (nvidia.com/gpu when a test names it first).
inline constexpr std::size_t kFirstExtendedSlot = 3;

// One container's requests; nullopt: the resource is not in the manifest at all (which upstream
// tells apart from an explicit 0 for the non-zero defaults).
struct SlotRequests {
  std::optional<std::int64_t> cpu;  // millicores
  std::optional<std::int64_t> mem;  // bytes
  std::int64_t ephemeral = 0;
  std::int64_t gpu = 0;  // in kFirstExtendedSlot
};

Container container_of(const SlotRequests& r);
// A finalized template with one container per entry ({}: no containers at all).
PodTemplate pod_of(const std::vector<SlotRequests>& containers);
// A node whose capacity equals its allocatable.
Node node_of(std::int64_t milli_cpu, std::int64_t mem, std::int64_t gpu = 0);
// NodeInfo of node 0 holding `existing`.
NodeInfo node_info_of(const Node& n, const std::vector<PodTemplate>& existing = {});

// One row of upstream's two-node score tables (noderesources/*_test.go): the pod, two nodes
// with the pods already on each, the plugin's resources and the scores expected on each node.
struct TwoNodeScoreCase {
  const char* name;
  PodTemplate pod;
  Node node1, node2;
  std::vector<PodTemplate> on1, on2;
  std::vector<ResourceWeight> resources;
  std::int64_t want1, want2;
};

}  // namespace kubesim::testing
