#include "cluster/gpu_frag.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>

namespace kubesim {

GpuShape gpu_shape(const PodTemplate& spec, int gpu_slot) {
  GpuShape s;
  // utils.go GetPodResource: the non-zero cpu request (schedulerutil.GetNonzeroRequests).
  s.cpu = spec.nonzero_requests[kCpu];
  for (const DeviceRequest& r : spec.device_requests) {
    if (r.device_class != kGpuDeviceClass) continue;
    s.milli = std::min(r.share, kDeviceShareUnits);
    s.count = r.count;
    for (std::size_t i = 0; i < r.models.size(); ++i) s.models += (i ? "|" : "") + r.models[i];
    return s;
  }
  if (gpu_slot >= 0) {
    const std::int64_t whole = spec.requests[static_cast<std::size_t>(gpu_slot)];
    if (whole > 0) {
      s.milli = kDeviceShareUnits;
      s.count = static_cast<std::int32_t>(whole);
    }
  }
  return s;
}

bool accepts_model(const GpuShape& shape, const std::string& model) {
  // utils.go IsNodeAccessibleToPodByType: no listed model accepts any node; a listed model
  // needs a GPU node of one of them.
  if (shape.models.empty()) return true;
  if (model.empty()) return false;
  std::string_view rest = shape.models;
  bool listed = false;
  while (true) {
    const std::size_t bar = rest.find('|');
    const std::string_view m = rest.substr(0, bar);
    if (!m.empty()) {
      listed = true;
      if (m == model) return true;
    }
    if (bar == std::string_view::npos) break;
    rest.remove_prefix(bar + 1);
  }
  return !listed;
}

TypicalPods typical_pods(std::span<const std::pair<GpuShape, std::uint64_t>> shape_counts,
                         std::int32_t threshold_percent) {
  std::map<GpuShape, double> counts;
  double total = 0;
  for (const auto& [shape, n] : shape_counts) {
    counts[shape] += static_cast<double>(n);
    total += static_cast<double>(n);
  }
  TypicalPods list;
  for (const auto& [shape, n] : counts) list.push_back(TypicalPod{shape, n});
  // SortTargetPodInDecreasingCount: sort.Reverse of (count, then PodResource.Less).
  std::sort(list.begin(), list.end(), [](const TypicalPod& a, const TypicalPod& b) {
    if (a.weight != b.weight) return a.weight > b.weight;
    return b.shape < a.shape;
  });
  if (list.empty()) return list;
  const double expected = static_cast<double>(threshold_percent) * total / 100.0;
  std::size_t i = 0;
  double cum = 0;
  while (cum < expected && i < list.size()) {  // podIncreaseStep 1: one shape per round
    cum += list[i].weight;
    list[i].weight /= total;
    ++i;
  }
  if (i >= list.size()) return list;
  list.resize(i);
  for (TypicalPod& p : list) p.weight /= cum / total;  // renormalised after the cut
  return list;
}

double frag_sum(const FragAmount& a) {
  double out = 0;
  for (std::size_t i = 0; i < kFragKinds; ++i)
    if (i != static_cast<std::size_t>(FragKind::kQ3Satisfied)) out += a[i];
  return out;
}

GpuNodeState gpu_node_state(const NodeCache& cache, NodeId node) {
  static const std::string kGpuClass = kGpuDeviceClass;  // compared by size first, no strlen
  GpuNodeState s;
  const NodeInfo& ni = cache.info(node);
  s.cpu_capacity = ni.allocatable[kCpu];
  s.cpu_left = s.cpu_capacity - ni.requested[kCpu];
  const std::span<const Device> devices = cache.devices(node);
  const std::span<const DeviceUse> use = cache.device_use(node);
  for (std::size_t i = 0; i < devices.size() && s.gpus < kMaxGpusPerNode; ++i) {
    if (devices[i].device_class != kGpuClass) continue;
    s.device[s.gpus] = static_cast<std::uint16_t>(i);
    s.left[s.gpus++] = i < use.size() ? use[i].free_share() : kDeviceShareUnits;
    if (!s.model) s.model = &devices[i].model;
  }
  return s;
}

GpuNodeState after_placement(const GpuNodeState& s, const GpuShape& pod, int device) {
  GpuNodeState out = s;
  out.cpu_left -= pod.cpu;
  if (pod.count == 0) return out;
  if (device >= 0 && pod.is_share()) {
    out.left[static_cast<std::size_t>(device)] -= pod.milli;
    return out;
  }
  // SortedMilliGpuLeftIndexList(true): a stable ascending order of the free milli.
  std::array<std::uint8_t, kMaxGpusPerNode> order{};
  for (std::uint8_t i = 0; i < s.gpus; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.begin() + s.gpus,
                   [&](std::uint8_t a, std::uint8_t b) { return s.left[a] < s.left[b]; });
  std::int32_t wanted = pod.count;
  for (std::size_t k = 0; k < s.gpus && wanted > 0; ++k) {
    if (pod.milli > out.left[order[k]]) continue;
    out.left[order[k]] -= pod.milli;
    --wanted;
  }
  return out;
}

DeviceGrants exclusive_gpus(const GpuNodeState& s, const GpuShape& pod) {
  // AllocateExclusiveGpuId: wholly free GPUs until the pod's total milli is covered (a share
  // pod sent to the free GPUs gets one of them, holding its share).
  DeviceGrants out;
  std::int64_t wanted = pod.total_milli();
  for (std::uint16_t i = 0; i < s.gpus && wanted > 0; ++i) {
    if (s.left[i] != kDeviceShareUnits) continue;
    out.push_back(DeviceGrant{s.device[i], pod.milli});
    wanted -= kDeviceShareUnits;
  }
  if (wanted > 0) out.clear();
  return out;
}

std::vector<std::uint8_t> model_access(const TypicalPods& typical, const std::string* model) {
  static const std::string kNone;
  std::vector<std::uint8_t> out(typical.size());
  for (std::size_t i = 0; i < typical.size(); ++i) out[i] = accepts_model(typical[i].shape, model ? *model : kNone);
  return out;
}

FragAmount node_frag(const GpuNodeState& s, const TypicalPods& typical, std::span<const std::uint8_t> access) {
  FragAmount a{};
  const auto total = static_cast<double>(s.total_left());
  for (std::size_t p = 0; p < typical.size(); ++p) {
    const GpuShape& pod = typical[p].shape;
    const double freq = typical[p].weight;
    const bool cpu_fits = s.cpu_left >= pod.cpu;
    FragKind kind;
    if (pod.milli == 0) {  // GetNodePodFrag: a pod without GPU
      kind = cpu_fits ? FragKind::kXlSatisfied : FragKind::kXrLackCpu;
    } else if (!access[p]) {
      kind = FragKind::kNoAccess;
    } else {
      // CanNodeHostPodOnGpuMemory: `count` GPUs with room for `milli` each; the free milli of
      // the GPUs too small for it (GetGpuFragMilliByNodeResAndPodRes).
      std::int32_t room = 0;
      std::int64_t small = 0;
      for (std::size_t g = 0; g < s.gpus; ++g) {
        if (s.left[g] >= pod.milli) {
          ++room;
        } else {
          small += s.left[g];
        }
      }
      if (room >= pod.count && cpu_fits) {
        // Q3: the GPUs too small are Q2 fragments, the rest is usable.
        a[static_cast<std::size_t>(FragKind::kQ2LackGpu)] += freq * static_cast<double>(small);
        a[static_cast<std::size_t>(FragKind::kQ3Satisfied)] += freq * (total - static_cast<double>(small));
        continue;
      }
      kind = room >= pod.count ? FragKind::kQ4LackCpu : (cpu_fits ? FragKind::kQ2LackGpu : FragKind::kQ1LackBoth);
    }
    a[static_cast<std::size_t>(kind)] += freq * total;
  }
  return a;
}

double node_frag_amount(const GpuNodeState& s, const TypicalPods& typical, std::span<const std::uint8_t> access) {
  return frag_sum(node_frag(s, typical, access));
}

}  // namespace kubesim
