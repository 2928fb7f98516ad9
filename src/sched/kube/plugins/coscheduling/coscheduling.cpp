#include "sched/kube/plugins/coscheduling/coscheduling.hpp"

#include <algorithm>

namespace kubesim {
namespace {

// Compares "ns1/name1" with "ns2/name2" as strings, without building them.
bool namespaced_name_less(const std::string& ns1, const std::string& n1, const std::string& ns2,
                          const std::string& n2) {
  auto at = [](const std::string& ns, const std::string& n, std::size_t i) -> int {
    if (i < ns.size()) return static_cast<unsigned char>(ns[i]);
    if (i == ns.size()) return '/';
    i -= ns.size() + 1;
    return i < n.size() ? static_cast<unsigned char>(n[i]) : -1;
  };
  const std::size_t len1 = ns1.size() + 1 + n1.size();
  const std::size_t len2 = ns2.size() + 1 + n2.size();
  for (std::size_t i = 0; i < std::min(len1, len2); ++i) {
    const int c1 = at(ns1, n1, i);
    const int c2 = at(ns2, n2, i);
    if (c1 != c2) return c1 < c2;
  }
  return len1 < len2;
}

}  // namespace

int Coscheduling::find_group(NamespaceId ns, const std::string& label) {
  const ObjectStore& s = handle_->store();
  if (!groups_) {
    const std::optional<ObjectKind> kind = s.find_kind(kPodGroupApiGroup, kPodGroupPlural);
    if (!kind) return -1;
    kind_ = *kind;
    groups_ = &s.typed_table<PodGroupObject>(*kind);
  }
  const std::optional<std::uint32_t> id = s.find(kind_, ns, label);
  if (!id) return -1;
  if (*id >= members_.size()) {  // a group created since the last one seen
    members_.resize(groups_->size());
    permitted_until_.resize(groups_->size(), SimTime::never());
    backed_off_until_.resize(groups_->size(), SimTime::never());
  }
  return static_cast<int>(*id);
}

int Coscheduling::group_of(PodId pod) const {
  return pod.value() < group_of_.size() ? group_of_[pod.value()] : -1;
}

// The pod informer (non-terminal pods, as the scheduler's field selector keeps them): the
// group's member list is what core.go's podLister.List(label selector) returns.
void Coscheduling::on_pod_change(const Change& c, SimTime) {
  if (groups_ && groups_->size() == 0) return;
  const PodId pod(c.id);
  const bool gone = c.type == ChangeType::kDeleted || is_terminal(c.phase);
  if (c.type == ChangeType::kAdded && !gone) {
    const std::string* label = find_label(handle_->store().spec_of(pod).labels, kPodGroupLabel);
    if (!label) return;
    if (group_of_.size() <= pod.value()) group_of_.resize(pod.value() + 1, -1);
    const int g = find_group(handle_->store().pod(pod).ns, *label);
    group_of_[pod.value()] = g;
    if (g >= 0) members_[static_cast<std::size_t>(g)].push_back(pod);
    return;
  }
  if (gone) {
    const int g = group_of(pod);
    if (g < 0) return;
    auto& m = members_[static_cast<std::size_t>(g)];
    if (auto it = std::find(m.begin(), m.end(), pod); it != m.end()) m.erase(it);
  }
}

// coscheduling.go GetCreationTimestamp: the PodGroup's creationTimestamp for a group's pod,
// else the pod's InitialAttemptTimestamp.
SimTime Coscheduling::sort_time(PodId pod, SimTime initial) const {
  const int g = group_of(pod);
  return g >= 0 ? pod_group(g).created : initial;
}

// coscheduling.go Less: higher priority first; then the earlier group creation (or first
// attempt) time; then "namespace/name" ascending.
bool Coscheduling::less(PodId a, SimTime initial_a, PodId b, SimTime initial_b) const {
  const ObjectStore& s = handle_->store();
  const std::int32_t pa = s.spec_of(a).priority;
  const std::int32_t pb = s.spec_of(b).priority;
  if (pa != pb) return pa > pb;
  const SimTime ta = sort_time(a, initial_a);
  const SimTime tb = sort_time(b, initial_b);
  if (ta != tb) return ta < tb;
  const Pod& x = s.pod(a);
  const Pod& y = s.pod(b);
  return namespaced_name_less(s.namespace_(x.ns).name, x.name, s.namespace_(y.ns).name, y.name);
}

std::int32_t Coscheduling::assigned(int group, PodId except) const {
  std::int32_t n = 0;
  for (const PodId p : members_[static_cast<std::size_t>(group)])
    if (p != except && handle_->cached_node(p).valid()) ++n;
  return n;
}

// core.go CheckClusterResource / getNodeResource: the free room of the nodes in snapshot
// order, each without the group's own pods, summed until it covers minResources plus
// pods: minMember. A cluster-wide sum, not a per-node fit.
bool Coscheduling::check_cluster_resource(int group, std::string* gap) const {
  const PodGroupObject& pg = pod_group(group);
  Resources need = *pg.min_resources;
  std::int64_t need_pods = pg.min_member;
  std::array<bool, kMaxResources> open{};
  for (std::size_t r = 0; r < kMaxResources; ++r) open[r] = need[r] > 0;  // minResources' keys
  bool pods_open = true;
  auto all_covered = [&] {
    if (pods_open) return false;
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if (open[r]) return false;
    return true;
  };
  const ObjectStore& s = handle_->store();
  for (const NodeInfo* ni : handle_->snapshot_nodes()) {
    Resources free = ni->allocatable;
    free -= ni->requested;
    std::int64_t free_pods = ni->allowed_pods - ni->pod_count;
    for (const PodId p : handle_->cached_pods_on(ni->id)) {
      if (group_of(p) != group) continue;
      free += s.spec_of(p).requests;
      ++free_pods;
    }
    for (std::size_t r = 0; r < kMaxResources; ++r) {
      if (!open[r]) continue;
      need[r] -= free[r];
      if (need[r] <= 0) open[r] = false;
    }
    if (pods_open) {
      need_pods -= free_pods;
      if (need_pods <= 0) pods_open = false;
    }
    if (all_covered()) return true;
  }
  // fmt of a v1.ResourceList: map[name:quantity ...] in key order (approximated with
  // integers: cpu in millicores, memory in bytes).
  std::vector<std::pair<std::string, std::string>> left;
  const ResourceNames& names = s.resource_names();
  for (std::size_t r = 0; r < names.size(); ++r)
    if (open[r]) left.emplace_back(names.name(r), r == kCpu ? std::to_string(need[r]) + "m" : std::to_string(need[r]));
  if (pods_open) left.emplace_back("pods", std::to_string(need_pods));
  std::sort(left.begin(), left.end());
  *gap = "resource gap: map[";
  for (std::size_t i = 0; i < left.size(); ++i) *gap += (i ? " " : "") + left[i].first + ":" + left[i].second;
  *gap += "]";
  return false;
}

// coscheduling.go PreFilter / core.go PreFilter. A failure is UnschedulableAndUnresolvable,
// so DefaultPreemption does not run for it.
PluginStatus Coscheduling::pre_filter(const CycleContext& ctx, SimTime now) {
  const int g = group_of(ctx.pod);
  if (g < 0) return {};  // no label, or no such PodGroup: an ordinary pod
  const PodGroupObject& pg = pod_group(g);
  const std::string full = pg.ns + "/" + pg.name;
  if (!backed_off_until_[static_cast<std::size_t>(g)].is_never() && now < backed_off_until_[static_cast<std::size_t>(g)])
    return {StatusCode::kUnschedulableAndUnresolvable, "podGroup " + full + " failed recently"};
  const std::size_t n = members(g);
  if (n < static_cast<std::size_t>(pg.min_member))
    return {StatusCode::kUnschedulableAndUnresolvable,
            "pre-filter pod " + ctx.store.pod(ctx.pod).name + " cannot find enough sibling pods, current pods number: " +
                std::to_string(n) + ", minMember of group: " + std::to_string(pg.min_member)};
  if (!pg.min_resources) return {};
  SimTime& permitted = permitted_until_[static_cast<std::size_t>(g)];
  if (!permitted.is_never() && now < permitted) return {};
  std::string gap;
  if (!check_cluster_resource(g, &gap)) return {StatusCode::kUnschedulableAndUnresolvable, gap};
  // permittedPG.Add(pgFullName, pgFullName, *pgMgr.scheduleTimeout): TTL permitWaitingTimeSeconds.
  permitted = now + Duration::seconds(args_.permit_waiting_time_seconds);
  return {};
}

void Coscheduling::reject_waiting(int group, const char* message) {
  for (const PodId w : handle_->waiting_pods())
    if (group_of(w) == group) handle_->reject_waiting_pod(w, name(), message);
}

// coscheduling.go PostFilter: runs only when DefaultPreemption did not succeed.
PluginStatus Coscheduling::post_filter(PodId pod, SimTime now) {
  const int g = group_of(pod);
  if (g < 0) return {StatusCode::kUnschedulable, "can not find pod group"};
  const PodGroupObject& pg = pod_group(g);
  const std::int32_t a = assigned(g);
  if (a >= pg.min_member) return {StatusCode::kUnschedulable, ""};
  // "If the gap is less than/equal 10%, we may want to try subsequent Pods": float32 arithmetic.
  const float not_assigned = static_cast<float>(pg.min_member - a) / static_cast<float>(pg.min_member);
  if (not_assigned <= 0.1f) return {StatusCode::kUnschedulable, ""};
  reject_waiting(g, "optimistic rejection in PostFilter");
  if (args_.pod_group_backoff_seconds > 0 && members(g) >= static_cast<std::size_t>(pg.min_member))
    backed_off_until_[static_cast<std::size_t>(g)] = now + Duration::seconds(args_.pod_group_backoff_seconds);
  permitted_until_[static_cast<std::size_t>(g)] = SimTime::never();  // DeletePermittedPodGroup
  return {StatusCode::kUnschedulable, "PodGroup " + pg.ns + "/" + pg.name + " gets rejected due to Pod " +
                                          handle_->store().pod(pod).name + " is unschedulable even after PostFilter"};
}

// coscheduling.go Unreserve: one pod of the group failed after Reserve (Permit timeout,
// rejection, binding error): reject every waiting pod of the group.
void Coscheduling::unreserve(PodId pod, NodeId, SimTime) {
  const int g = group_of(pod);
  if (g < 0) return;
  reject_waiting(g, "rejection in Unreserve");
  permitted_until_[static_cast<std::size_t>(g)] = SimTime::never();  // DeletePermittedPodGroup
}

// coscheduling.go Permit / core.go Permit: Success once minMember of the group are assumed or
// bound (this pod included), allowing the waiting siblings; else Wait for
// scheduleTimeoutSeconds (or permitWaitingTimeSeconds) and activate the siblings.
PermitPlugin::Result Coscheduling::permit(PodId pod, NodeId, SimTime) {
  Result r;
  const ObjectStore& s = handle_->store();
  const std::string* label = find_label(s.spec_of(pod).labels, kPodGroupLabel);
  if (!label || label->empty()) return r;  // PodGroupNotSpecified
  const int g = group_of(pod);
  if (g < 0) {
    r.status = {StatusCode::kUnschedulable, "PodGroup not found"};
    return r;
  }
  const PodGroupObject& pg = pod_group(g);
  if (assigned(g, pod) + 1 >= pg.min_member) {
    for (const PodId w : handle_->waiting_pods())
      if (group_of(w) == g) handle_->allow_waiting_pod(w, name());
    return r;
  }
  // util.GetWaitTimeDuration: the PodGroup's scheduleTimeoutSeconds if set, else the arg.
  const std::int64_t wait =
      pg.schedule_timeout_seconds != 0 ? pg.schedule_timeout_seconds : args_.permit_waiting_time_seconds;
  r.status.code = StatusCode::kWait;
  r.timeout = Duration::seconds(wait);
  // ActivateSiblings: every other pod with the label in the namespace goes to PodsToActivate.
  for (const PodId m : members_[static_cast<std::size_t>(g)])
    if (m != pod) handle_->request_activation(m);
  return r;
}

}  // namespace kubesim
