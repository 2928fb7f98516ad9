#include "sched/yunikorn/yk_resource.hpp"

#include <algorithm>

namespace kubesim::yunikorn {

Res pod_resource(const Resources& requests) {
  // k8shim pkg/common/resource.go GetPodResource: vcore (milli), memory and every other
  // requested type, max(containers sum, init containers) as computed by PodTemplate::finalize,
  // and pods: 1.
  Res r;
  for (std::size_t i = 0; i < kMaxResources; ++i)
    if (requests[i] != 0) r.set(i, requests[i]);
  r.set(kPods, 1);
  return r;
}

Res node_resource(const Resources& allocatable, std::int64_t allowed_pods) {
  // k8shim pkg/common/resource.go GetNodeResource: the node's allocatable, pods included.
  Res r;
  for (std::size_t i = 0; i < kMaxResources; ++i)
    if (allocatable[i] != 0) r.set(i, allocatable[i]);
  r.set(kPods, allowed_pods);
  return r;
}

bool fit_in_max_undef(const Res& max, const Res& ask) {
  for (std::size_t i = 0; i < kSlots; ++i)
    if (ask.has(i) && max.has(i) && ask.v[i] > max.v[i]) return false;
  return true;
}

bool fit_in(const Res& avail, const Res& ask) {
  for (std::size_t i = 0; i < kSlots; ++i)
    if (ask.has(i) && ask.v[i] > (avail.has(i) ? avail.v[i] : 0)) return false;
  return true;
}

Res min_permissive(const Res& a, const Res& b) {
  Res r;
  for (std::size_t i = 0; i < kSlots; ++i) {
    if (a.has(i) && b.has(i)) r.set(i, std::min(a.v[i], b.v[i]));
    else if (a.has(i)) r.set(i, a.v[i]);
    else if (b.has(i)) r.set(i, b.v[i]);
  }
  return r;
}

bool greater_or_equal(const Res& larger, const Res& smaller) {
  for (std::size_t i = 0; i < kSlots; ++i)
    if ((larger.has(i) || smaller.has(i)) && larger.v[i] < smaller.v[i]) return false;
  return true;
}

bool strictly_greater(const Res& larger, const Res& smaller) {
  bool differ = false;
  for (std::size_t i = 0; i < kSlots; ++i) {
    if (!larger.has(i) && !smaller.has(i)) continue;
    if (larger.v[i] < smaller.v[i]) return false;
    if (larger.v[i] != smaller.v[i]) differ = true;
  }
  return differ;
}

double fit_in_score(const Res& ask, const Res& avail) {
  double score = 0;
  for (std::size_t i = 0; i < kSlots; ++i) {
    if (!ask.has(i) || ask.v[i] <= 0) continue;
    const std::int64_t a = avail.has(i) ? avail.v[i] : 0;
    if (a <= 0) score += 1;
    else if (ask.v[i] > a) score += static_cast<double>(ask.v[i] - a) / static_cast<double>(ask.v[i]);
  }
  return score;
}

void shares(const Res& res, const Res& total, bool ratios_only, std::vector<double>& out) {
  out.clear();
  for (std::size_t i = 0; i < kSlots; ++i) {
    if (!res.has(i)) continue;
    const std::int64_t v = res.v[i];
    if (v == 0) {
      out.push_back(0);
      continue;
    }
    if (total.has(i) && total.v[i] != 0) {
      out.push_back(static_cast<double>(v) / static_cast<double>(total.v[i]));
    } else if (!ratios_only) {
      out.push_back(static_cast<double>(v));
    }
  }
  std::sort(out.begin(), out.end());
}

int compare_shares(const std::vector<double>& l, const std::vector<double>& r) {
  std::ptrdiff_t li = static_cast<std::ptrdiff_t>(l.size()) - 1;
  std::ptrdiff_t ri = static_cast<std::ptrdiff_t>(r.size()) - 1;
  for (; li >= 0 && ri >= 0; --li, --ri) {
    if (l[li] > r[ri]) return 1;
    if (l[li] < r[ri]) return -1;
  }
  for (; li >= 0; --li) {
    if (l[li] > 0) return 1;
    if (l[li] < 0) return -1;
  }
  for (; ri >= 0; --ri) {
    if (r[ri] > 0) return -1;
    if (r[ri] < 0) return 1;
  }
  return 0;
}

}  // namespace kubesim::yunikorn
