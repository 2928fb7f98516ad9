// GPU fragmentation as the FGD paper measures it (Weng et al., "Beware of Fragmentation",
// USENIX ATC'23), following the authors' simulator (hkust-adsl/kubernetes-scheduler-simulator,
// Apache-2.0): pkg/utils/frag.go (GetTypicalPods, NodeGpuShareFragAmount, GetNodePodFrag,
// CanNodeHostPodOnGpuMemory), pkg/type/resource.go (PodResource, NodeResource.Sub) and
// pkg/utils/utils.go (IsNodeAccessibleToPodByType).
//
// A pod's shape (GpuShape) is its cpu and GPU request; the "typical pods" are the most frequent
// shapes of a workload covering 95% of its pods, each weighted by its frequency. A node's
// fragmentation for them is, over the typical pods, the weighted free GPU milli that pod could
// not use: all of the node's free GPU milli when the pod does not fit (lacking GPU, cpu or both,
// a GPU model it does not accept, or a pod asking for no GPU), else the free milli of the GPUs
// too small for it. The score plugins (FGD) and the GPU metrics both use it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cluster/node_cache.hpp"
#include "model/devices.hpp"
#include "model/objects.hpp"

namespace kubesim {

// PodResource (pkg/type/resource.go): the non-zero cpu request (milli), the GPU milli per GPU,
// the number of GPUs, and the accepted GPU models as the annotation writes them ("A|B"; empty:
// any). Ordered as PodResource.Less.
struct GpuShape {
  std::int64_t cpu = 0;
  std::int32_t milli = 0;
  std::int32_t count = 0;
  std::string models;
  auto operator<=>(const GpuShape&) const = default;
  bool operator==(const GpuShape&) const = default;
  bool is_share() const { return count == 1 && milli < kDeviceShareUnits; }
  std::int64_t total_milli() const { return static_cast<std::int64_t>(milli) * count; }
};

// The shape of a pod template: its first GPU device request, or nvidia.com/gpu: k (whole GPUs;
// `gpu_slot` is that resource's slot, -1 when unknown), or no GPU.
GpuShape gpu_shape(const PodTemplate& spec, int gpu_slot);
// Whether a GPU of `model` is one the shape accepts (IsNodeAccessibleToPodByType).
bool accepts_model(const GpuShape& shape, const std::string& model);

// The weighted typical pods (TargetPodList), most frequent first.
struct TypicalPod {
  GpuShape shape;
  double weight = 0;  // Percentage: 0..1, the weights sum to 1
};
using TypicalPods = std::vector<TypicalPod>;

// GetTypicalPods with the paper's settings (isInvolvedCpuPods true, podIncreaseStep 1,
// gpuResWeight 0): the shapes sorted by decreasing count (ties: the larger shape first), the
// first ones whose counts reach `threshold_percent` % of all pods (podPopularityThreshold),
// renormalised to sum to 1.
TypicalPods typical_pods(std::span<const std::pair<GpuShape, std::uint64_t>> shape_counts,
                         std::int32_t threshold_percent = 95);

// The categories of frag.go FragRatioDataMap, in its order.
enum class FragKind : std::uint8_t { kQ1LackBoth, kQ2LackGpu, kQ3Satisfied, kQ4LackCpu, kXlSatisfied, kXrLackCpu, kNoAccess };
inline constexpr std::size_t kFragKinds = 7;
using FragAmount = std::array<double, kFragKinds>;
// FragAmountSumExceptQ3: the fragmentation amount (GPU milli).
double frag_sum(const FragAmount& a);

// NodeResource (pkg/type/resource.go): what is left of a node. At most kMaxGpusPerNode GPUs.
inline constexpr std::size_t kMaxGpusPerNode = 16;
struct GpuNodeState {
  std::int64_t cpu_left = 0;  // allocatable cpu minus the pods' requests (milli)
  std::int64_t cpu_capacity = 0;  // allocatable cpu (milli)
  std::array<std::int32_t, kMaxGpusPerNode> left{};  // free milli of each GPU, in device order
  std::array<std::uint16_t, kMaxGpusPerNode> device{};  // each GPU's index in the node's devices
  std::uint8_t gpus = 0;
  const std::string* model = nullptr;  // the GPUs' model (null or empty: a CPU node)
  std::int64_t total_left() const {
    std::int64_t t = 0;
    for (std::size_t i = 0; i < gpus; ++i) t += left[i];
    return t;
  }
  std::uint8_t fully_free() const {
    std::uint8_t n = 0;
    for (std::size_t i = 0; i < gpus; ++i) n += left[i] == kDeviceShareUnits;
    return n;
  }
};

// The node's state in a cache: cpu from its NodeInfo, the GPUs (devices of the GPU class, in
// device order) from its device use.
GpuNodeState gpu_node_state(const NodeCache& cache, NodeId node);
// NodeResource.Sub for a placement the caller has checked: the cpu, and each of the pod's GPUs
// taken from the GPU with the least free milli that holds it (ties: lowest index) — or, for a
// share pod given `device` >= 0, from that GPU.
GpuNodeState after_placement(const GpuNodeState& s, const GpuShape& pod, int device = -1);
// The devices a pod of `pod` gets on exclusive GPUs: wholly free ones in index order until its
// total milli is covered, each holding `pod.milli` (AllocateExclusiveGpuId); empty when there
// are not enough. Grants name node
// device indices (GpuNodeState::device).
DeviceGrants exclusive_gpus(const GpuNodeState& s, const GpuShape& pod);

// Per typical pod, whether the node's GPU model is one it accepts (computed once per node).
std::vector<std::uint8_t> model_access(const TypicalPods& typical, const std::string* model);
// NodeGpuShareFragAmount; `access` from model_access for this node.
FragAmount node_frag(const GpuNodeState& s, const TypicalPods& typical, std::span<const std::uint8_t> access);
// NodeGpuShareFragAmountScore: frag_sum(node_frag(...)).
double node_frag_amount(const GpuNodeState& s, const TypicalPods& typical, std::span<const std::uint8_t> access);

}  // namespace kubesim
