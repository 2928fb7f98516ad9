#include "control/resource_quota.hpp"

#include <algorithm>

#include "core/quantity.hpp"

namespace kubesim {

namespace {

Resources pod_limits(const PodTemplate& spec) {
  // resourcehelper.PodLimits: max(sum of containers, each init container).
  Resources sum;
  for (const auto& c : spec.containers) sum += c.limits;
  for (const auto& c : spec.init_containers)
    for (std::size_t i = 0; i < kMaxResources; ++i) sum[i] = std::max(sum[i], c.limits[i]);
  return sum;
}

std::string format_item(const QuotaItem& item, std::int64_t amount) {
  const bool milli = item.kind != QuotaItem::Kind::kPods && item.slot == kCpu;
  return item.name + "=" + format_quantity(amount, milli);
}

}  // namespace

std::int64_t ResourceQuotaAdmission::usage(const QuotaItem& item, const PodTemplate& spec, const Resources& limits) {
  switch (item.kind) {
    case QuotaItem::Kind::kPods: return 1;
    case QuotaItem::Kind::kRequests: return spec.requests[item.slot];
    case QuotaItem::Kind::kLimits: return limits[item.slot];
    case QuotaItem::Kind::kOther: return 0;
  }
  return 0;
}

std::optional<std::string> ResourceQuotaAdmission::admit(NamespaceId ns, const std::string& pod_name,
                                                         const PodTemplate& spec) {
  last_admitted_charged_ = false;
  const auto& quotas = store_.quotas_in(ns);
  if (quotas.empty()) return std::nullopt;
  const Resources limits = pod_limits(spec);
  const std::string forbidden = "pods \"" + pod_name + "\" is forbidden: ";
  // CheckRequest: quotas in order, the first that fails rejects the pod.
  for (const QuotaId id : quotas) {
    const ResourceQuota& q = store_.quota(id);
    // pods.go Constraints: a quota on cpu/memory requests or limits needs every container
    // to state that request or limit.
    std::vector<std::string> missing;
    for (const auto& item : q.items) {
      if (item.kind != QuotaItem::Kind::kRequests && item.kind != QuotaItem::Kind::kLimits) continue;
      if (item.slot != kCpu && item.slot != kMemory) continue;
      std::vector<std::string> names;
      auto check = [&](const std::vector<Container>& cs) {
        for (const auto& c : cs) {
          const std::uint32_t mask = item.kind == QuotaItem::Kind::kRequests ? c.requested_mask : c.limited_mask;
          if (!(mask & (1u << item.slot))) names.push_back(c.name);
        }
      };
      check(spec.containers);
      check(spec.init_containers);
      if (names.empty()) continue;
      std::sort(names.begin(), names.end());
      std::string joined;
      for (const auto& n : names) joined += (joined.empty() ? "" : ",") + n;
      missing.push_back(item.name + " for: " + joined);
    }
    if (!missing.empty()) {
      std::sort(missing.begin(), missing.end());
      std::string msg;
      for (const auto& m : missing) msg += (msg.empty() ? "" : "; ") + m;
      return forbidden + "failed quota: " + q.name + ": must specify " + msg;
    }
    // Items are sorted by name, so the exceeded lists come out sorted as prettyPrint's do.
    std::string requested, used, limited;
    for (const auto& item : q.items) {
      const std::int64_t want = usage(item, spec, limits);
      if (item.kind == QuotaItem::Kind::kOther || item.used + want <= item.hard) continue;
      const char* sep = requested.empty() ? "" : ",";
      requested += sep + format_item(item, want);
      used += sep + format_item(item, item.used);
      limited += sep + format_item(item, item.hard);
    }
    if (!requested.empty())
      return forbidden + "exceeded quota: " + q.name + ", requested: " + requested + ", used: " + used +
             ", limited: " + limited;
  }
  for (const QuotaId id : quotas)
    store_.update_quota(id, [&](ResourceQuota& q) {
      for (auto& item : q.items) item.used += usage(item, spec, limits);
    });
  last_admitted_charged_ = true;
  return std::nullopt;
}

void ResourceQuotaAdmission::charged(PodId id) {
  if (!last_admitted_charged_) return;
  if (charged_.size() <= id.value()) charged_.resize(id.value() + 1, 0);
  charged_[id.value()] = 1;
}

void ResourceQuotaAdmission::on_pod_change(const Change& c) {
  if (c.id >= charged_.size() || !charged_[c.id]) return;
  if (!is_terminal(c.phase) && c.type != ChangeType::kDeleted) return;
  charged_[c.id] = 0;
  const PodId pod(c.id);
  const PodTemplate& spec = store_.spec_of(pod);
  const Resources limits = pod_limits(spec);
  for (const QuotaId id : store_.quotas_in(store_.pod(pod).ns))
    store_.update_quota(id, [&](ResourceQuota& q) {
      for (auto& item : q.items) item.used -= usage(item, spec, limits);
    });
}

}  // namespace kubesim
