// The FGD paper's six placement policies as the protocol mode (openb_protocol.hpp) calls them:
// one implementation of the rules, shared with the kube-scheduler plugins of the same names
// (src/sched/kube/plugins/*_score, open_gpu_share; typical pods and fragmentation in
// src/cluster/gpu_frag.hpp), called here on the compact GpuNodeState the protocol keeps.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/gpu_frag.hpp"
#include "core/random.hpp"

namespace kubesim::openb {

enum class Policy { Random, DotProd, GpuClustering, GpuPacking, BestFit, Fgd };
inline constexpr std::array<Policy, 6> kPolicies = {Policy::Random,     Policy::DotProd, Policy::GpuClustering,
                                                    Policy::GpuPacking, Policy::BestFit, Policy::Fgd};
// "01-Random" ... "06-FGD": the policy's folder name in the authors' results (sc_policy column).
std::string_view policy_label(Policy p);
// Parses a policy name, case-insensitively: random, dotprod, gpuclustering, gpupacking,
// bestfit, fgd (the label's "NN-" prefix optional). False when unknown.
bool parse_policy(std::string_view text, Policy& out);
std::string policy_names();  // "random, dotprod, ..." for messages

// The integer score of DotProd (merge, max), GpuClustering (`node_tags`: the affinity tags of
// the node's GPU pods), GpuPacking or BestFit (before its normalisation over the feasible
// nodes) for a pod on a feasible node, as the plugins compute it.
std::int64_t direct_score(Policy policy, const GpuNodeState& node, const GpuShape& pod, std::span<const std::int32_t> node_tags);
// BestFit's normalisation (plugin_utils.go NormalizeScore).
void normalize_scores(std::vector<std::int64_t>& scores);
// The GPUs Reserve gives a pod on the chosen node (Open-Gpu-Share's gpuSelMethod: best fit for
// DotProd (merge), GpuClustering, GpuPacking and BestFit; FGD's own choice; random fit with
// `random_draw` for Random: give it the plugin's stream, kOpenGpuShareStream, to draw the
// plugin's GPUs). Node device indices; `frag_before` and `access` only for FGD.
DeviceGrants reserve_gpus(Policy policy, const GpuNodeState& node, const GpuShape& pod, const TypicalPods& typical,
                          std::span<const std::uint8_t> access, double frag_before, RandomStream& random_draw);
// FGD's score given the node's fragmentation before the pod (FGDScore, without devices).
std::int64_t fgd_node_score(const GpuNodeState& node, double frag_before, const GpuShape& pod, const TypicalPods& typical,
                            std::span<const std::uint8_t> access);

}  // namespace kubesim::openb
