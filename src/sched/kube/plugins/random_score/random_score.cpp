#include "sched/kube/plugins/random_score/random_score.hpp"

#include <algorithm>

namespace kubesim {

void RandomScore::set_gpu_handle(GpuHandle* handle) {
  GpuScorePlugin::set_gpu_handle(handle);
  rng_ = RandomStream(handle->seed(), kRandomScoreStream);
}

void RandomScore::score(const CycleContext&, std::span<const NodeInfo* const> nodes,
                        std::span<std::int64_t> scores) const {
  std::fill(scores.begin(), scores.end(), 0);
  if (nodes.empty()) return;
  scores[rng_.uniform_below(nodes.size())] = kMaxNodeScore;
}

}  // namespace kubesim
