#include "study/openb/gpu_share_policy.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

namespace kubesim::openb {
namespace {

constexpr std::int64_t kMaxSpecCpu = 128000;  // pkg/type/open-gpu-share/utils/const.go
constexpr std::int64_t kMaxSpecGpu = 8000;

enum FragClass { kQ1LackBoth, kQ2LackGpu, kQ3Satisfied, kQ4LackCpu, kXlSatisfied, kXrLackCpu, kNoAccess };

bool accessible(const GpuNodeState& node, const PodShape& pod) {
  if (pod.models == 0) return true;
  if (node.model < 0) return false;
  return (pod.models >> node.model) & 1U;
}

// CanNodeHostPodOnGpuMemory: `gpus` devices with at least `milli` free each.
bool hosts_on_gpu(const GpuNodeState& node, const PodShape& pod) {
  std::int32_t need = pod.gpus;
  for (std::int32_t i = 0; i < node.gpus; ++i)
    if (node.left[static_cast<std::size_t>(i)] >= pod.gpu_milli && --need <= 0) return true;
  return false;
}

// GetNodePodFrag.
FragClass frag_class(const GpuNodeState& node, const PodShape& pod) {
  const bool cpu_fits = node.cpu_left >= pod.cpu;
  if (pod.gpu_milli == 0) return cpu_fits ? kXlSatisfied : kXrLackCpu;
  if (!accessible(node, pod)) return kNoAccess;
  if (hosts_on_gpu(node, pod)) return cpu_fits ? kQ3Satisfied : kQ4LackCpu;
  return cpu_fits ? kQ2LackGpu : kQ1LackBoth;
}

// PodResource.Less: the order of shapes of equal frequency.
bool shape_less(const PodShape& a, const PodShape& b) {
  return std::tie(a.cpu, a.gpu_milli, a.gpus, a.gpu_type) < std::tie(b.cpu, b.gpu_milli, b.gpus, b.gpu_type);
}

}  // namespace

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

std::int64_t GpuNodeState::total_left() const {
  std::int64_t sum = 0;
  for (std::int32_t i = 0; i < gpus; ++i) sum += left[static_cast<std::size_t>(i)];
  return sum;
}

std::int32_t GpuNodeState::fully_free() const {
  std::int32_t n = 0;
  for (std::int32_t i = 0; i < gpus; ++i) n += left[static_cast<std::size_t>(i)] == kMilli;
  return n;
}

double FragAmount::except_q3() const {
  double sum = 0;
  for (std::size_t i = 0; i < data.size(); ++i)
    if (i != kQ3Satisfied) sum += data[i];
  return sum;
}

double FragAmount::q124() const { return data[kQ1LackBoth] + data[kQ2LackGpu] + data[kQ4LackCpu]; }

double FragAmount::idle() const {
  double sum = 0;
  for (double v : data) sum += v;
  return sum;
}

void FragAmount::add(const FragAmount& o) {
  for (std::size_t i = 0; i < data.size(); ++i) data[i] += o.data[i];
}

std::vector<TypicalPod> typical_pods(const std::vector<PodShape>& pods, int threshold_percent) {
  // Count by shape (an ordered map: no dependence on hashing), then most frequent first, ties
  // by the larger shape (sort.Reverse of TargetPodList's Less).
  std::map<std::tuple<std::int64_t, std::int32_t, std::int32_t, std::string>, std::pair<PodShape, double>> counts;
  for (const PodShape& p : pods) {
    auto& slot = counts[{p.cpu, p.gpu_milli, p.gpus, p.gpu_type}];
    slot.first = p;
    slot.second += 1;
  }
  std::vector<TypicalPod> list;
  for (auto& [key, v] : counts) list.push_back({v.first, v.second});
  std::sort(list.begin(), list.end(), [](const TypicalPod& a, const TypicalPod& b) {
    if (a.frequency != b.frequency) return a.frequency > b.frequency;
    return shape_less(b.shape, a.shape);
  });
  const double total = static_cast<double>(pods.size());
  const double expected = static_cast<double>(threshold_percent) * total / 100.0;
  double cumulative = 0;
  std::size_t taken = 0;
  while (cumulative < expected && taken < list.size()) {
    cumulative += list[taken].frequency;
    list[taken].frequency /= total;
    ++taken;
  }
  if (taken >= list.size()) return list;
  list.resize(taken);
  for (TypicalPod& t : list) t.frequency /= cumulative / total;
  return list;
}

FragAmount node_frag(const GpuNodeState& node, const std::vector<TypicalPod>& typical) {
  FragAmount f;
  const double left_total = static_cast<double>(node.total_left());
  for (const TypicalPod& t : typical) {
    const FragClass c = frag_class(node, t.shape);
    if (c == kQ3Satisfied) {
      // Part of the free GPUs: those too small for the shape count as lacking GPU.
      std::int64_t frag_milli = 0;
      for (std::int32_t i = 0; i < node.gpus; ++i)
        if (node.left[static_cast<std::size_t>(i)] < t.shape.gpu_milli) frag_milli += node.left[static_cast<std::size_t>(i)];
      f.data[kQ2LackGpu] += t.frequency * static_cast<double>(frag_milli);
      f.data[kQ3Satisfied] += t.frequency * (left_total - static_cast<double>(frag_milli));
    } else {
      f.data[c] += t.frequency * left_total;
    }
  }
  return f;
}

int affinity_slot(const PodShape& pod) {
  if (pod.gpus == 0) return -1;
  if (pod.shares_gpu()) return 0;
  return std::min(pod.gpus, kMaxGpusPerNode);
}

namespace {

std::int64_t best_fit_score(const GpuNodeState& node, const PodShape& pod) {
  const double free_vec[2] = {static_cast<double>(node.cpu_left), static_cast<double>(node.total_left())};
  const double req_vec[2] = {static_cast<double>(pod.cpu), static_cast<double>(pod.total_gpu_milli())};
  const double max_spec[2] = {static_cast<double>(kMaxSpecCpu), static_cast<double>(kMaxSpecGpu)};
  double score = 0;
  for (int i = 0; i < 2; ++i) {
    if (free_vec[i] < req_vec[i]) return 0;  // "should not happen" upstream: the filters passed
    score += (free_vec[i] - req_vec[i]) / max_spec[i] * 0.5;
  }
  return static_cast<std::int64_t>((1.0 - score) * static_cast<double>(kMaxNodeScore));
}

std::int64_t dot_product_score(const GpuNodeState& node, const PodShape& pod) {
  if (node.cpu_left < pod.cpu) return 0;
  const double node_vec[2] = {static_cast<double>(node.cpu_left) / static_cast<double>(kMaxSpecCpu),
                              static_cast<double>(node.total_left()) / static_cast<double>(kMaxSpecGpu)};
  const double pod_vec[2] = {static_cast<double>(pod.cpu) / static_cast<double>(kMaxSpecCpu),
                             static_cast<double>(pod.total_gpu_milli()) / static_cast<double>(kMaxSpecGpu)};
  double dot = node_vec[0] * pod_vec[0] + node_vec[1] * pod_vec[1];
  dot /= 2;
  return static_cast<std::int64_t>(static_cast<double>(kMaxNodeScore) * (1 - dot));
}

std::int64_t packing_score(const GpuNodeState& node, const PodShape& pod) {
  if (pod.gpu_milli <= 0) return 0;
  const std::int64_t fully_free = node.fully_free();
  if (fully_free == node.gpus) return std::max(kMaxNodeScore / 3 - fully_free, fully_free);
  // Devices by free milli ascending (stable), the least free that fit first.
  std::array<int, kMaxGpusPerNode> order{};
  for (int i = 0; i < node.gpus; ++i) order[static_cast<std::size_t>(i)] = i;
  std::stable_sort(order.begin(), order.begin() + node.gpus,
                   [&](int a, int b) { return node.left[static_cast<std::size_t>(a)] < node.left[static_cast<std::size_t>(b)]; });
  std::int32_t need = pod.gpus;
  std::int64_t fully_free_used = 0;
  std::int64_t free_ratio_on_used = 0;
  for (int k = 0; k < node.gpus && need > 0; ++k) {
    const std::int32_t left = node.left[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])];
    if (pod.gpu_milli <= left) {
      --need;
      if (left == kMilli) ++fully_free_used;
      free_ratio_on_used += static_cast<std::int64_t>(left) * 100 / kMilli;
    }
  }
  if (need != 0) return 0;
  if (fully_free_used > 0) return std::max(kMaxNodeScore / 2 - fully_free_used, kMaxNodeScore / 3);
  return std::max(kMaxNodeScore - free_ratio_on_used / 10, kMaxNodeScore / 2);
}

std::int64_t clustering_score(const GpuNodeState& node, const PodShape& pod,
                              const std::array<std::int32_t, kMaxGpusPerNode + 1>& affinity) {
  const int slot = affinity_slot(pod);
  if (slot < 0) return 0;
  int kinds = 0;
  for (std::int32_t c : affinity) kinds += c > 0;
  const std::int64_t fill = kMaxNodeScore / 4 * (kMaxSpecGpu - node.total_left()) / kMaxSpecGpu;
  if (affinity[static_cast<std::size_t>(slot)] > 0) return fill + (kinds == 1 ? kMaxNodeScore * 3 / 4 : kMaxNodeScore * 2 / 4);
  return fill + (kinds == 0 ? kMaxNodeScore / 4 : 0);
}

}  // namespace

std::int64_t direct_score(Policy policy, const GpuNodeState& node, const PodShape& pod,
                          const std::array<std::int32_t, kMaxGpusPerNode + 1>& affinity) {
  switch (policy) {
    case Policy::DotProd: return dot_product_score(node, pod);
    case Policy::GpuClustering: return clustering_score(node, pod, affinity);
    case Policy::GpuPacking: return packing_score(node, pod);
    case Policy::BestFit: return best_fit_score(node, pod);
    case Policy::Random:
    case Policy::Fgd: break;
  }
  return 0;
}

void normalize_scores(std::vector<std::int64_t>& scores) {
  if (scores.empty()) return;
  const auto [lo_it, hi_it] = std::minmax_element(scores.begin(), scores.end());
  const std::int64_t lo = *lo_it, range = *hi_it - *lo_it;
  for (std::int64_t& s : scores) s = range == 0 ? 0 : (s - lo) * kMaxNodeScore / range;
}

std::int64_t fgd_score(double frag_before, double frag_after) {
  const double sigmoid = 1.0 / (1.0 + std::exp(-((frag_before - frag_after) / 1000)));
  return static_cast<std::int64_t>(sigmoid * static_cast<double>(kMaxNodeScore));
}

GpuNodeState after_placement(const GpuNodeState& node, const PodShape& pod, int device) {
  GpuNodeState out = node;
  out.cpu_left -= pod.cpu;
  if (pod.gpus == 0) return out;
  if (pod.shares_gpu()) {
    out.left[static_cast<std::size_t>(device)] -= pod.gpu_milli;
    return out;
  }
  std::int32_t need = pod.gpus;
  for (std::int32_t i = 0; i < out.gpus && need > 0; ++i)
    if (out.left[static_cast<std::size_t>(i)] == kMilli) {
      out.left[static_cast<std::size_t>(i)] = 0;
      --need;
    }
  return out;
}

int best_fit_device(const GpuNodeState& node, std::int32_t milli) {
  int best = -1;
  for (int i = 0; i < node.gpus; ++i) {
    const std::int32_t left = node.left[static_cast<std::size_t>(i)];
    if (left >= milli && (best < 0 || left < node.left[static_cast<std::size_t>(best)])) best = i;
  }
  return best;
}

}  // namespace kubesim::openb
