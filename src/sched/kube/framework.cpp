#include "sched/kube/framework.hpp"

namespace kubesim {

void default_normalize_score(std::int64_t max_priority, bool reverse, std::span<std::int64_t> scores) {
  std::int64_t max_count = 0;
  for (auto s : scores) max_count = s > max_count ? s : max_count;
  if (max_count == 0) {
    if (reverse)
      for (auto& s : scores) s = max_priority;
    return;
  }
  for (auto& s : scores) {
    std::int64_t v = max_priority * s / max_count;
    s = reverse ? max_priority - v : v;
  }
}

}  // namespace kubesim
