#include "cluster/predicates.hpp"

#include <algorithm>

#include "core/parse_number.hpp"

namespace kubesim {
namespace {

// apimachinery labels.Requirement.Matches on one label (or field) value; nullptr: absent.
bool requirement_matches(const NodeSelectorRequirement& r, const std::string* value) {
  using Op = NodeSelectorRequirement::Operator;
  switch (r.op) {
    case Op::kIn: return value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
    case Op::kNotIn: return !value || std::find(r.values.begin(), r.values.end(), *value) == r.values.end();
    case Op::kExists: return value != nullptr;
    case Op::kDoesNotExist: return value == nullptr;
    case Op::kGt:
    case Op::kLt: {
      // Both sides must parse as integers.
      if (!value || r.values.size() != 1) return false;
      auto have = parse_int(*value);
      auto want = parse_int(r.values[0]);
      if (!have || !want) return false;
      return r.op == Op::kGt ? *have > *want : *have < *want;
    }
  }
  return false;
}

}  // namespace

bool tolerations_tolerate(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const auto& t : tolerations)
    if (t.tolerates(taint)) return true;
  return false;
}

const Taint* first_untolerated_schedule_taint(const Node& node, const std::vector<Toleration>& tolerations) {
  for (const auto& taint : node.taints)
    if (taint.effect != TaintEffect::kPreferNoSchedule && !tolerations_tolerate(tolerations, taint)) return &taint;
  return nullptr;
}

bool tolerates_unschedulable(const std::vector<Toleration>& tolerations) {
  // node_unschedulable.go: v1.TaintNodeUnschedulable with effect NoSchedule.
  static const Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", TaintEffect::kNoSchedule};
  return tolerations_tolerate(tolerations, kUnschedulableTaint);
}

bool node_selector_term_matches(const NodeSelectorTerm& term, const Node& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& r : term.match_expressions)
    if (!requirement_matches(r, find_label(node.labels, r.key))) return false;
  for (const auto& r : term.match_fields) {
    // Only metadata.name is a supported field (validation rejects others).
    const std::string* value = r.key == "metadata.name" ? &node.name : nullptr;
    if (!requirement_matches(r, value)) return false;
  }
  return true;
}

bool pod_matches_node_selector_and_affinity(const PodTemplate& spec, const Node& node) {
  for (const auto& [key, value] : spec.node_selector) {
    const std::string* have = find_label(node.labels, key);
    if (!have || *have != value) return false;
  }
  if (spec.affinity.required_terms.empty()) return true;
  for (const auto& term : spec.affinity.required_terms)
    if (node_selector_term_matches(term, node)) return true;
  return false;
}

namespace {

// Whether a grant of `share` fits on the device given its use (a whole device: wholly free).
bool share_fits(const Device& d, const DeviceUse& u, std::int32_t share) {
  if (share >= kDeviceShareUnits) return u.used == 0;
  return u.used + share <= kDeviceShareUnits && u.sharers < d.max_sharers;
}

// Whether the pod's grants so far (`grants`) include the device: one grant per device per pod.
bool granted(std::span<const DeviceGrant> grants, std::size_t device) {
  return std::any_of(grants.begin(), grants.end(), [&](const DeviceGrant& g) { return g.device == device; });
}

// First fit of `count` devices accepted by `accepts` with `share` each, after the pod's grants
// from `first` on in `out`.
template <typename Accepts>
bool pick(std::int64_t count, std::int32_t share, Accepts accepts, std::span<const Device> devices,
          std::span<const DeviceUse> use, std::size_t first, DeviceGrants& out) {
  for (std::size_t i = 0; i < devices.size() && count > 0; ++i) {
    if (!accepts(devices[i]) || !share_fits(devices[i], use[i], share)) continue;
    if (granted(std::span<const DeviceGrant>(out).subspan(first), i)) continue;
    out.push_back(DeviceGrant{static_cast<std::uint16_t>(i), std::min(share, kDeviceShareUnits)});
    --count;
  }
  return count == 0;
}

}  // namespace

bool fit_devices(std::span<const DeviceRequest> requests, std::int64_t whole_gpus, std::span<const Device> devices,
                 std::span<const DeviceUse> use, DeviceGrants& out) {
  const std::size_t first = out.size();
  for (const DeviceRequest& r : requests)
    if (!pick(r.count, r.share, [&](const Device& d) { return r.accepts(d); }, devices, use, first, out)) return false;
  if (whole_gpus > 0) {
    auto gpu = [](const Device& d) { return d.device_class == kGpuDeviceClass; };
    if (!pick(whole_gpus, kDeviceShareUnits, gpu, devices, use, first, out)) return false;
  }
  return true;
}

bool grants_fit(std::span<const DeviceGrant> grants, std::span<const Device> devices,
                std::span<const DeviceUse> use) {
  for (std::size_t k = 0; k < grants.size(); ++k) {
    const DeviceGrant& g = grants[k];
    if (g.device >= devices.size() || g.share <= 0) return false;
    if (granted(grants.first(k), g.device)) return false;
    if (!share_fits(devices[g.device], use[g.device], g.share)) return false;
  }
  return true;
}

}  // namespace kubesim
