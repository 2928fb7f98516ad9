#include "study/openb/gpu_share_policy.hpp"

#include <cctype>

#include "core/random.hpp"
#include "sched/kube/plugins/best_fit_score/best_fit_score.hpp"
#include "sched/kube/plugins/dot_product_score/dot_product_score.hpp"
#include "sched/kube/plugins/fgd_score/fgd_score.hpp"
#include "sched/kube/plugins/gpu_clustering_score/gpu_clustering_score.hpp"
#include "sched/kube/plugins/gpu_packing_score/gpu_packing_score.hpp"
#include "sched/kube/plugins/open_gpu_share/open_gpu_share.hpp"

namespace kubesim::openb {

std::string_view policy_label(Policy p) {
  switch (p) {
    case Policy::Random: return "01-Random";
    case Policy::DotProd: return "02-DotProd";
    case Policy::GpuClustering: return "03-GpuClustering";
    case Policy::GpuPacking: return "04-GpuPacking";
    case Policy::BestFit: return "05-BestFit";
    case Policy::Fgd: return "06-FGD";
  }
  return "";
}

bool parse_policy(std::string_view text, Policy& out) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (Policy p : kPolicies) {
    std::string label(policy_label(p));
    for (char& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == label || lower == label.substr(3)) {
      out = p;
      return true;
    }
  }
  return false;
}

std::string policy_names() { return "random, dotprod, gpuclustering, gpupacking, bestfit, fgd"; }

std::int64_t direct_score(Policy policy, const GpuNodeState& node, const GpuShape& pod, std::span<const std::int32_t> node_tags) {
  switch (policy) {
    case Policy::DotProd:
      // The paper's DotProd: dimExtMethod merge, normMethod max (generate_run_scripts.py).
      return dot_product_choice(node, pod, {DotProductArgs::Dim::kMerge, DotProductArgs::Norm::kMax}).score;
    case Policy::GpuClustering: {
      const std::int32_t tag = gpu_affinity(pod);
      return tag == 0 ? 0 : gpu_clustering_score(node.total_left(), node_tags, tag);
    }
    case Policy::GpuPacking:
      // A pod without GPU scores 0 (the plugin's Score checks it before gpu_packing_score).
      return pod.milli <= 0 ? 0 : std::max<std::int64_t>(gpu_packing_score(node, pod), 0);
    case Policy::BestFit: return std::max<std::int64_t>(best_fit_score(node, pod), 0);
    case Policy::Random:
    case Policy::Fgd: break;
  }
  return 0;
}

void normalize_scores(std::vector<std::int64_t>& scores) { fork_normalize_score(scores); }

std::int64_t fgd_node_score(const GpuNodeState& node, double frag_before, const GpuShape& pod, const TypicalPods& typical,
                            std::span<const std::uint8_t> access) {
  return fgd_choice(node, frag_before, pod, typical, access, false).score;
}

DeviceGrants reserve_gpus(Policy policy, const GpuNodeState& node, const GpuShape& pod, const TypicalPods& typical,
                          std::span<const std::uint8_t> access, double frag_before, RandomStream& random_draw) {
  if (pod.milli <= 0) return {};
  if (policy == Policy::Fgd) return fgd_choice(node, frag_before, pod, typical, access).devices;
  if (!pod.is_share()) return exclusive_gpus(node, pod);
  // Open-Gpu-Share's gpuSelMethod of the paper's configs: random for Random, best otherwise.
  using Sel = OpenGpuShareArgs::Sel;
  return fit_shared_gpu(node, pod, policy == Policy::Random ? Sel::kRandom : Sel::kBest, random_draw);
}

}  // namespace kubesim::openb
