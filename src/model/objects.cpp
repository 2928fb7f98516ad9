#include "model/objects.hpp"

#include <algorithm>

namespace kubesim {

const std::string* find_label(const Labels& labels, const std::string& key) {
  auto it = std::lower_bound(labels.begin(), labels.end(), key,
                             [](const auto& kv, const std::string& k) { return kv.first < k; });
  return it != labels.end() && it->first == key ? &it->second : nullptr;
}

void set_label(Labels& labels, std::string key, std::string value) {
  auto it = std::lower_bound(labels.begin(), labels.end(), key,
                             [](const auto& kv, const std::string& k) { return kv.first < k; });
  if (it != labels.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    labels.emplace(it, std::move(key), std::move(value));
  }
}

const char* to_string(TaintEffect e) {
  switch (e) {
    case TaintEffect::kNoSchedule: return "NoSchedule";
    case TaintEffect::kPreferNoSchedule: return "PreferNoSchedule";
    case TaintEffect::kNoExecute: return "NoExecute";
  }
  return "";
}

std::optional<TaintEffect> parse_taint_effect(const std::string& s) {
  if (s == "NoSchedule") return TaintEffect::kNoSchedule;
  if (s == "PreferNoSchedule") return TaintEffect::kPreferNoSchedule;
  if (s == "NoExecute") return TaintEffect::kNoExecute;
  return std::nullopt;
}

bool Toleration::tolerates(const Taint& taint) const {
  // k8s.io/api/core/v1/toleration.go ToleratesTaint.
  if (effect && *effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  switch (op) {
    case Operator::kExists: return true;
    case Operator::kEqual: return value == taint.value;  // "" operator defaults to Equal
  }
  return false;
}

bool LabelSelector::matches(const Labels& labels) const {
  for (const auto& [k, v] : match_labels) {
    const std::string* have = find_label(labels, k);
    if (!have || *have != v) return false;
  }
  using Op = NodeSelectorRequirement::Operator;
  for (const auto& r : match_expressions) {
    const std::string* have = find_label(labels, r.key);
    const bool listed = have && std::find(r.values.begin(), r.values.end(), *have) != r.values.end();
    switch (r.op) {
      case Op::kIn: if (!listed) return false; break;
      case Op::kNotIn: if (listed) return false; break;
      case Op::kExists: if (!have) return false; break;
      case Op::kDoesNotExist: if (have) return false; break;
      case Op::kGt:
      case Op::kLt: return false;
    }
  }
  return true;
}

const char* to_string(DisruptionReason r) {
  switch (r) {
    case DisruptionReason::kNone: return "";
    case DisruptionReason::kPreemptionByScheduler: return "PreemptionByKubeScheduler";
    case DisruptionReason::kDeletionByTaintManager: return "DeletionByTaintManager";
    case DisruptionReason::kEvictionByEvictionAPI: return "EvictionByEvictionAPI";
    case DisruptionReason::kDeletionByUser: return "";
    case DisruptionReason::kDeletionByPodGC: return "DeletionByPodGC";
  }
  return "";
}

const char* to_string(PodPhase p) {
  switch (p) {
    case PodPhase::kPending: return "Pending";
    case PodPhase::kRunning: return "Running";
    case PodPhase::kSucceeded: return "Succeeded";
    case PodPhase::kFailed: return "Failed";
  }
  return "";
}

void PodTemplate::finalize() {
  // pkg/api/v1/resource/helpers.go PodRequests (v1.26): sum of app containers, then the max
  // with each init container, per resource. Pod overhead is not modelled.
  Resources sum;
  Resources nonzero;
  for (const auto& c : containers) {
    sum += c.requests;
    // pkg/scheduler/util/pod_resources.go GetNonzeroRequestForResource: a container without a
    // cpu (memory) request counts as 100m (200Mi) for scoring and spreading.
    nonzero[kCpu] += (c.requested_mask & (1u << kCpu)) ? c.requests[kCpu] : 100;
    nonzero[kMemory] += (c.requested_mask & (1u << kMemory)) ? c.requests[kMemory] : 200LL * 1024 * 1024;
  }
  for (const auto& c : init_containers) {
    for (std::size_t i = 0; i < kMaxResources; ++i) sum[i] = std::max(sum[i], c.requests[i]);
    const std::int64_t cpu = (c.requested_mask & (1u << kCpu)) ? c.requests[kCpu] : 100;
    const std::int64_t mem = (c.requested_mask & (1u << kMemory)) ? c.requests[kMemory] : 200LL * 1024 * 1024;
    nonzero[kCpu] = std::max(nonzero[kCpu], cpu);
    nonzero[kMemory] = std::max(nonzero[kMemory], mem);
  }
  requests = sum;
  requested_slots = 0;
  for (std::size_t i = 0; i < kMaxResources; ++i)
    if (sum[i] != 0) requested_slots |= 1u << i;
  nonzero_requests = nonzero;
  nonzero_requests.amount[kEphemeralStorage] = 0;
}

}  // namespace kubesim
