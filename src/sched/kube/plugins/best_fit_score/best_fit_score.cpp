#include "sched/kube/plugins/best_fit_score/best_fit_score.hpp"

namespace kubesim {

std::int64_t best_fit_score(const GpuNodeState& node, const GpuShape& pod) {
  const double free[2] = {static_cast<double>(node.cpu_left), static_cast<double>(node.total_left())};
  const double request[2] = {static_cast<double>(pod.cpu), static_cast<double>(pod.total_milli())};
  const double max_spec[2] = {static_cast<double>(kMaxSpecCpu), static_cast<double>(kMaxSpecGpu)};
  double score = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    if (free[i] < request[i]) return -1;
    score += (free[i] - request[i]) / max_spec[i] * 0.5;  // weights cpu 0.5, gpu 0.5
  }
  return static_cast<std::int64_t>((1.0 - score) * static_cast<double>(kMaxNodeScore));
}

void BestFitScore::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                         std::span<std::int64_t> scores) const {
  const GpuShape pod = pod_shape(ctx);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::int64_t s = best_fit_score(node_state(*nodes[i]), pod);
    scores[i] = s < 0 ? 0 : s;  // the filters keep such nodes out (upstream: an error status)
  }
  fork_normalize_score(scores);
}

}  // namespace kubesim
