// The FGD paper's placement policies and fragmentation measure on a compact GPU-node state,
// for the paper's arrival-only protocol (openb_protocol.hpp), where one run scores ~10^4 pods
// on ~10^3 nodes and must take well under a second.
//
// Everything here follows the authors' simulator, hkust-adsl/kubernetes-scheduler-simulator
// (Apache-2.0), file by file:
//   fragmentation (NodeGpuShareFragAmount, GetNodePodFrag, typical pods): pkg/utils/frag.go
//   FGD:            pkg/simulator/plugin/fgd_score.go (score and its GPU choice)
//   BestFit:        pkg/simulator/plugin/best_fit_score.go (+ NormalizeScore in plugin_utils.go)
//   DotProd:        pkg/simulator/plugin/dot_product_score.go with dimExt "merge", norm "max"
//                   (pkg/utils/utils.go GenerateSchedulingMatchGroups)
//   GpuPacking:     pkg/simulator/plugin/gpu_packing_score.go
//   GpuClustering:  pkg/simulator/plugin/gpu_clustering_score.go (affinity: pkg/type/open-gpu-share/utils/pod.go)
//   Random:         pkg/simulator/plugin/random_score.go
//   GPU choice (Reserve): pkg/simulator/plugin/open_gpu_share.go (best fit, random fit, FGD's own)
// Integer scores are computed as the Go code computes them (int64 truncation, integer
// division), so ties fall as they fall there.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim::openb {

inline constexpr int kMaxGpusPerNode = 8;    // MaxNumGpuPerNode of the authors' pkg/type
inline constexpr std::int32_t kMilli = 1000;  // one whole GPU
inline constexpr std::int64_t kMaxNodeScore = 100;

enum class Policy { Random, DotProd, GpuClustering, GpuPacking, BestFit, Fgd };
inline constexpr std::array<Policy, 6> kPolicies = {Policy::Random,     Policy::DotProd, Policy::GpuClustering,
                                                    Policy::GpuPacking, Policy::BestFit, Policy::Fgd};
// "01-Random" ... "06-FGD": the policy's folder name in the authors' results (sc_policy column).
std::string_view policy_label(Policy p);
// Parses a policy name, case-insensitively: random, dotprod, gpuclustering, gpupacking,
// bestfit, fgd (the label's "NN-" prefix optional). False when unknown.
bool parse_policy(std::string_view text, Policy& out);
std::string policy_names();  // "random, dotprod, ..." for messages

// What a pod asks for, as the authors' PodResource: cpu (the scheduler's non-zero request:
// 100m when 0), GPU milli per GPU, GPU count, and the any-of model list as a bit mask over the
// cluster's models (0: any model). `gpu_type` is the model list's text, which orders shapes.
struct PodShape {
  std::int64_t cpu = 0;
  std::int32_t gpu_milli = 0;
  std::int32_t gpus = 0;
  std::uint64_t models = 0;
  std::string gpu_type;
  std::int64_t total_gpu_milli() const { return static_cast<std::int64_t>(gpu_milli) * gpus; }
  bool shares_gpu() const { return gpus == 1 && gpu_milli < kMilli; }
  bool operator==(const PodShape&) const = default;
};

// A node's free resources: the authors' NodeResource (free cpu, free milli per GPU device in
// device order, model), plus the GpuClustering affinity counts (pods per kind on the node).
struct GpuNodeState {
  std::int64_t cpu_left = 0;
  std::int64_t cpu_capacity = 0;
  std::int32_t model = -1;  // index into the cluster's models; -1: no GPU
  std::int32_t gpus = 0;
  std::array<std::int32_t, kMaxGpusPerNode> left{};  // free milli per device
  std::int64_t total_left() const;
  std::int32_t fully_free() const;
};

// Fragmentation of one node for the typical pods, by the authors' seven classes
// (q1_lack_both, q2_lack_gpu, q3_satisfied, q4_lack_cpu, xl_satisfied, xr_lack_cpu, no_access).
struct FragAmount {
  std::array<double, 7> data{};
  double except_q3() const;  // the paper's fragmentation amount
  double q124() const;
  double idle() const;       // all seven: the idle GPU milli (weighted by frequency)
  void add(const FragAmount& o);
};

struct TypicalPod {
  PodShape shape;
  double frequency = 0;  // 0..1, sums to 1
};

// The most frequent pod shapes covering `threshold_percent` of `pods` (each pod counted once),
// frequencies renormalised to sum to 1: GetTypicalPods with isInvolvedCpuPods true,
// podIncreaseStep 1, gpuResWeight 0.
std::vector<TypicalPod> typical_pods(const std::vector<PodShape>& pods, int threshold_percent = 95);

FragAmount node_frag(const GpuNodeState& node, const std::vector<TypicalPod>& typical);

// The integer score of `policy` for a pod on a feasible node (before normalisation: BestFit's
// scores are normalised over the feasible nodes by normalize_scores). Random and FGD are not
// scored here (the protocol draws Random's node, and scores FGD through its memo).
std::int64_t direct_score(Policy policy, const GpuNodeState& node, const PodShape& pod,
                          const std::array<std::int32_t, kMaxGpusPerNode + 1>& affinity);
// plugin_utils.go NormalizeScore: min-max to [0, 100] with integer division, all 0 when equal.
void normalize_scores(std::vector<std::int64_t>& scores);

// FGD's score from the node's fragmentation before and after: sigmoid((before-after)/1000)*100.
std::int64_t fgd_score(double frag_before, double frag_after);

// The node state after the pod takes `device` (a share) or its GPUs (whole GPUs: the first
// wholly free devices in device order, AllocateExclusiveGpuId), with its cpu.
GpuNodeState after_placement(const GpuNodeState& node, const PodShape& pod, int device);

// The GpuClustering affinity slot of a pod: 0 for a share of a GPU, k for k whole GPUs, -1 for
// a CPU-only pod (GetGpuAffinityFromPodAnnotation).
int affinity_slot(const PodShape& pod);

// Best fit GPU choice for a share (the device with the least free milli that fits, first in
// device order on ties): allocateGpuIdBasedOnBestFit. -1 when none fits.
int best_fit_device(const GpuNodeState& node, std::int32_t milli);

}  // namespace kubesim::openb
