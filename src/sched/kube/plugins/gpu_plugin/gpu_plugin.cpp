#include "sched/kube/plugins/gpu_plugin/gpu_plugin.hpp"

#include <algorithm>

namespace kubesim {

void fork_normalize_score(std::span<std::int64_t> scores) {
  if (scores.empty()) return;
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const std::int64_t lowest = *lo;
  const std::int64_t range = *hi - lowest;
  for (std::int64_t& s : scores) s = range == 0 ? 0 : (s - lowest) * kMaxNodeScore / range;
}

}  // namespace kubesim
