#include "sched/yunikorn/yunikorn.hpp"

#include <algorithm>
#include <limits>

#include "sched/plugins/node_affinity/node_affinity.hpp"
#include "sched/plugins/taint_toleration/taint_toleration.hpp"

namespace kubesim::yunikorn {

namespace {

enum : std::uint32_t { kTagCycle = 1 };
constexpr std::int64_t kNotOnPath = std::numeric_limits<std::int64_t>::min();

bool any_positive(const Res& r) {
  for (std::size_t i = 0; i < kSlots; ++i)
    if (r.has(i) && r.v[i] > 0) return true;
  return false;
}

std::int32_t clamp32(std::int64_t v) {
  return static_cast<std::int32_t>(
      std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

YuniKorn::YuniKorn(Config config, ObjectStore& store, SchedulerHost& host, std::uint64_t seed, std::string scheduler_name)
    : config_(std::move(config)),
      store_(store),
      host_(host),
      scheduler_name_(std::move(scheduler_name)),
      rng_(seed, "yunikorn"),
      queues_(config_.queues.size()) {}

YuniKorn::PodState& YuniKorn::state(PodId pod) {
  if (pod.value() >= pods_.size()) pods_.resize(pod.value() + 1);
  return pods_[pod.value()];
}

NodeId YuniKorn::allocated_node(PodId pod) const {
  if (pod.value() >= pods_.size() || pods_[pod.value()].kind != PodState::kAllocated) return NodeId();
  return NodeId(static_cast<std::uint32_t>(pods_[pod.value()].node));
}

NodeId YuniKorn::reserved_node(PodId pod) const {
  if (pod.value() >= pods_.size() || pods_[pod.value()].kind != PodState::kAsk) return NodeId();
  const int n = asks_[pods_[pod.value()].ask].reserved_node;
  return n < 0 ? NodeId() : NodeId(static_cast<std::uint32_t>(n));
}

bool YuniKorn::rejected(PodId pod) const {
  return pod.value() < pods_.size() && pods_[pod.value()].kind == PodState::kRejected;
}

// ---------------------------------------------------------------------------------------
// Informer side (the shim's cache -> core events)

void YuniKorn::add_to_queues(int leaf, const Res& r, Res QueueState::*field, int sign) {
  for (int q = leaf; q >= 0; q = config_.queues[q].parent) {
    if (sign > 0) queues_[q].*field += r;
    else queues_[q].*field -= r;
  }
}

void YuniKorn::add_ask(PodId pod, SimTime now) {
  const Pod& p = store_.pod(pod);
  const PodTemplate& spec = store_.spec(p.spec);
  PodState& ps = state(pod);
  // k8shim pkg/common/utils/utils.go GetApplicationIDFromPod: label applicationId, then
  // yunikorn.apache.org/app-id; without either, "yunikorn-<namespace>-autogen".
  std::string app_id;
  if (const std::string* v = find_label(spec.labels, "applicationId")) app_id = *v;
  else if (const std::string* v2 = find_label(spec.labels, "yunikorn.apache.org/app-id")) app_id = *v2;
  else app_id = "yunikorn-" + store_.namespace_(p.ns).name + "-autogen";
  // GetQueueNameFromPod: label queue, then yunikorn.apache.org/queue; default root.default.
  // The implicit provided placement rule (placement/provided_rule.go, create=false)
  // qualifies a name without the root prefix and needs an existing leaf queue; otherwise the
  // application is rejected (its pods stay pending here; the shim fails them).
  std::string queue = "root.default";
  if (const std::string* v = find_label(spec.labels, "queue")) queue = *v;
  else if (const std::string* v2 = find_label(spec.labels, "yunikorn.apache.org/queue")) queue = *v2;
  queue = lower(queue);
  if (queue.rfind("root.", 0) != 0 && queue != "root") queue = "root." + queue;

  auto it = app_index_.find(app_id);
  int a = -1;
  if (it == app_index_.end()) {
    const int q = config_.find(queue);
    if (q < 0 || !config_.queues[q].leaf) {
      ps.kind = PodState::kRejected;
      return;
    }
    a = static_cast<int>(apps_.size());
    App app;
    app.id = app_id;
    app.queue = q;
    app.submitted = now;  // the shim submits the application when it sees its first pod
    apps_.push_back(std::move(app));
    app_index_.emplace(app_id, a);
  } else {
    a = it->second;
  }
  App& app = apps_[a];
  int slot;
  if (!free_asks_.empty()) {
    slot = free_asks_.back();
    free_asks_.pop_back();
  } else {
    slot = static_cast<int>(asks_.size());
    asks_.emplace_back();
  }
  Ask& ask = asks_[slot];
  ask = Ask{};
  ask.pod = pod;
  ask.app = a;
  ask.priority = spec.priority;  // the pod's resolved PriorityClass value
  ask.created = p.created;
  ask.res = pod_resource(spec.requests);
  // The shim sets allowPreemptOther from the PriorityClass's preemptionPolicy (Never: false).
  ask.allow_preempt_other = spec.preemption_policy != kubesim::PreemptionPolicy::kNever;
  ps.kind = PodState::kAsk;
  ps.ask = slot;
  ps.app = a;
  ps.priority = ask.priority;
  ps.created = ask.created;
  ps.res = ask.res;
  // The first pod of an application is its originator (shim task.go: the owner pod).
  ps.originator = !app.has_originator;
  app.has_originator = true;
  if (app.asks.empty()) {
    auto& list = queues_[app.queue].apps;
    list.insert(std::upper_bound(list.begin(), list.end(), a), a);  // submission order = index order
  }
  app.asks.push_back(slot);
  app.pending += ask.res;
  add_to_queues(app.queue, ask.res, &QueueState::pending, +1);
  update_app_priority(app);
}

void YuniKorn::update_app_priority(App& app) {
  // application.go updateAskMaxPriority: the highest priority of the pending asks.
  app.max_priority = kMinPriority;
  for (int s : app.asks) app.max_priority = std::max(app.max_priority, asks_[s].priority);
}

void YuniKorn::remove_ask(int slot) {
  Ask& ask = asks_[slot];
  App& app = apps_[ask.app];
  if (ask.reserved_node >= 0) unreserve(slot);
  std::erase(app.asks, slot);
  app.pending -= ask.res;
  add_to_queues(app.queue, ask.res, &QueueState::pending, -1);
  if (app.asks.empty()) std::erase(queues_[app.queue].apps, ask.app);
  update_app_priority(app);
  free_asks_.push_back(slot);
}

void YuniKorn::release(PodId pod) {
  PodState& ps = state(pod);
  if (ps.kind == PodState::kAllocated) {
    NodeState& n = nodes_[ps.node];
    n.allocated -= ps.res;
    std::erase(n.allocs, pod);
    App& app = apps_[ps.app];
    app.allocated -= ps.res;
    add_to_queues(app.queue, ps.res, &QueueState::allocated, -1);
    if (--app.pods == 0)
      for (int q = app.queue; q >= 0; q = config_.queues[q].parent) --queues_[q].running_apps;
  } else if (ps.kind == PodState::kForeign) {
    nodes_[ps.node].occupied -= ps.res;
  } else if (ps.kind == PodState::kAsk) {
    remove_ask(ps.ask);
  }
  ps.kind = PodState::kNone;
  node_order_dirty_ = true;
}

void YuniKorn::on_pod_change(const Change& c, SimTime now) {
  const PodId pod(c.id);
  const bool terminal = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
  PodState& ps = state(pod);
  if (terminal) {
    if (ps.kind != PodState::kNone && ps.kind != PodState::kRejected) {
      release(pod);
      activity(now);
    }
    return;
  }
  if (c.node.valid()) {
    // Assigned: our own allocation confirmed, or a pod of another scheduler that now
    // occupies the node (node.go occupiedResource).
    if (ps.kind == PodState::kAllocated || ps.kind == PodState::kForeign) return;
    if (ps.kind == PodState::kAsk) remove_ask(ps.ask);
    if (c.node.value() >= nodes_.size()) return;  // a node we have not heard of yet
    ps.kind = PodState::kForeign;
    ps.node = static_cast<int>(c.node.value());
    ps.res = pod_resource(store_.spec_of(pod).requests);
    nodes_[ps.node].occupied += ps.res;
    node_order_dirty_ = true;
    activity(now);
    return;
  }
  if (c.type == ChangeType::kAdded && ps.kind == PodState::kNone && serves(store_.spec_of(pod).scheduler_name)) {
    add_ask(pod, now);
    activity(now);
  }
}

void YuniKorn::on_node_change(const Change& c, SimTime now) {
  const NodeId id(c.id);
  if (id.value() >= nodes_.size()) nodes_.resize(id.value() + 1);
  const Node& n = store_.node(id);
  NodeState& ns = nodes_[id.value()];
  ns.total = node_resource(n.allocatable, n.allowed_pods);
  // The shim's node: spec.unschedulable makes it unschedulable for the core.
  ns.schedulable = !n.unschedulable;
  // partition.go: the root queue's max is the partition's total resource.
  partition_total_ = Res{};
  for (const NodeState& x : nodes_) partition_total_ += x.total;
  node_order_dirty_ = true;
  activity(now);
}

// ---------------------------------------------------------------------------------------
// The loop (scheduler.go internalSchedule): a schedule() call right after any activity or a
// successful one, otherwise after 100 ms. Idle 100 ms ticks only matter when a time-based
// condition (reservation delay, preemption delay or re-check) becomes true; they are not
// simulated one by one: arm_timed jumps to the first tick on the 100 ms grid after it.

void YuniKorn::arm(SimTime t) {
  if (t < busy_until_) t = busy_until_;
  if (t >= armed_) return;
  armed_ = t;
  host_.post(t, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(kTagCycle), NodeId()});
}

void YuniKorn::activity(SimTime now) {
  ++version_;
  arm(now);
}

void YuniKorn::arm_timed(SimTime now) {
  SimTime t = SimTime::never();
  for (const QueueState& q : queues_) {
    for (int a : q.apps) {
      const App& app = apps_[a];
      const Duration delay = config_.queues[app.queue].preemption_delay;
      for (int s : app.asks) {
        const Ask& ask = asks_[s];
        if (app.reservations == 0 && now - ask.created <= kReservationDelay) t = std::min(t, ask.created + kReservationDelay + Duration::micros(1));
        if (!config_.preemption_enabled || ask.triggered || !ask.allow_preempt_other) continue;
        if (now < ask.created + delay) t = std::min(t, ask.created + delay);
        else if (!ask.last_check.is_never() && now < ask.last_check + kPreemptAttemptFrequency && ask.checked_version != version_)
          t = std::min(t, ask.last_check + kPreemptAttemptFrequency);
      }
    }
  }
  if (t.is_never()) return;
  const std::int64_t step = kScheduleInterval.micros();
  const std::int64_t k = std::max<std::int64_t>(1, ((t - now).micros() + step - 1) / step);
  arm(now + Duration::micros(k * step));
}

void YuniKorn::on_event(const SchedulerEvent& event, SimTime now) {
  if (event.kind == SchedulerEvent::Kind::kBindDone) {
    // The shim's Bind call landed (k8shim cache/context.go bindPod -> KubeClient.Bind).
    if (apply_binding(store_, event.pod, event.node, now)) ++bindings_;
    return;
  }
  if (event.kind != SchedulerEvent::Kind::kTimer || event.pod.value() != kTagCycle) return;
  if (now != armed_) return;  // superseded by an earlier cycle
  armed_ = SimTime::never();
  const bool result = schedule(now);
  busy_until_ = now + config_.cycle_latency.sample(rng_);
  if (result) {
    ++version_;
    arm(busy_until_);
  } else {
    arm_timed(now);
  }
}

// ---------------------------------------------------------------------------------------
// Sorting

void YuniKorn::refresh_priorities() {
  // queue.go recalculatePriority / priorityValueByPolicy: the max of the children's (leaf:
  // the apps') priorities, then offset (or, under priority.policy fence, the offset alone).
  // Children have larger indices than their parents (read depth first).
  for (int q = static_cast<int>(queues_.size()) - 1; q >= 0; --q) {
    const QueueConf& qc = config_.queues[q];
    std::int32_t cur = kMinPriority;
    if (qc.leaf) {
      for (int a : queues_[q].apps) cur = std::max(cur, apps_[a].max_priority);
    } else {
      for (int ch : qc.children) cur = std::max(cur, queues_[ch].priority);
    }
    if (cur != kMinPriority) cur = qc.priority_fence ? qc.priority_offset : clamp32(std::int64_t{cur} + qc.priority_offset);
    queues_[q].priority = cur;
  }
}

Res YuniKorn::effective_guaranteed(int q) const {
  // queue.go GetActualGuaranteedResources: guaranteed capped by max (only types guaranteed).
  const QueueConf& qc = config_.queues[q];
  Res g = qc.guaranteed;
  const Res& max = q == 0 && qc.max.empty() ? partition_total_ : qc.max;
  for (std::size_t i = 0; i < kSlots; ++i)
    if (g.has(i) && max.has(i)) g.v[i] = std::min(g.v[i], max.v[i]);
  return g;
}

void YuniKorn::sort_children(int q, bool reserved_only, std::vector<int>& out) {
  out.clear();
  for (int ch : config_.queues[q].children) {
    if (!any_positive(queues_[ch].pending)) continue;
    if (reserved_only && queues_[ch].reservations == 0) continue;
    out.push_back(ch);
  }
  // sorters.go sortQueue: parents sort their children fair; with application.sort.priority
  // enabled (sortQueuesByPriorityAndFairness) priority first, then CompUsageRatioSeparately
  // of allocated vs guaranteed, then more pending first. Ties keep the children's order
  // (upstream: a map copy's order; here by name).
  const bool by_priority = config_.queues[q].priority_sort;
  std::stable_sort(out.begin(), out.end(), [&](int l, int r) {
    const QueueState& L = queues_[l];
    const QueueState& R = queues_[r];
    if (by_priority && L.priority != R.priority) return L.priority > R.priority;
    shares(L.allocated, effective_guaranteed(l), config_.ratios_only, shares_l_);
    shares(R.allocated, effective_guaranteed(r), config_.ratios_only, shares_r_);
    const int comp = compare_shares(shares_l_, shares_r_);
    if (comp != 0) return comp < 0;
    if (!by_priority && L.priority != R.priority) return L.priority > R.priority;
    return strictly_greater(L.pending - R.pending, Res{});
  });
}

void YuniKorn::sort_apps(int q, std::vector<int>& out) {
  out.clear();
  for (int a : queues_[q].apps)
    if (any_positive(apps_[a].pending)) out.push_back(a);
  const QueueConf& qc = config_.queues[q];
  const bool by_priority = qc.priority_sort;
  if (qc.app_sort == AppSort::kFifo) {
    // sortApplicationsByPriorityAndSubmissionTime / BySubmissionTimeAndPriority.
    std::stable_sort(out.begin(), out.end(), [&](int l, int r) {
      const App& L = apps_[l];
      const App& R = apps_[r];
      if (by_priority && L.max_priority != R.max_priority) return L.max_priority > R.max_priority;
      if (L.submitted != R.submitted) return L.submitted < R.submitted;
      return !by_priority && L.max_priority > R.max_priority;
    });
  } else {
    // sortApplicationsByPriorityAndFairness: CompUsageRatio of allocated over the
    // partition's total.
    std::stable_sort(out.begin(), out.end(), [&](int l, int r) {
      const App& L = apps_[l];
      const App& R = apps_[r];
      if (by_priority && L.max_priority != R.max_priority) return L.max_priority > R.max_priority;
      shares(L.allocated, partition_total_, false, shares_l_);
      shares(R.allocated, partition_total_, false, shares_r_);
      const int comp = compare_shares(shares_l_, shares_r_);
      if (comp != 0) return comp < 0;
      return !by_priority && L.max_priority > R.max_priority;
    });
  }
}

void YuniKorn::sort_nodes() {
  if (!node_order_dirty_) return;
  node_order_dirty_ = false;
  node_order_.clear();
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    NodeState& n = nodes_[i];
    if (!n.schedulable || n.total.empty()) continue;
    // nodesorting.go: fair scores the weighted mean of the used shares (1 - available/total)
    // over the weighted types (vcore, memory by default); binpacking 1 - that. Ascending.
    const Res avail = n.available();
    double sum = 0, weights = 0;
    for (const auto& [slot, w] : config_.resource_weights) {
      if (!n.total.has(slot) || n.total.v[slot] <= 0) continue;
      sum += w * (1.0 - static_cast<double>(avail.v[slot]) / static_cast<double>(n.total.v[slot]));
      weights += w;
    }
    const double usage = weights > 0 ? sum / weights : 0;
    n.score = config_.node_sort == NodeSort::kFair ? usage : 1.0 - usage;
    node_order_.push_back(static_cast<int>(i));
  }
  // Ties by node ID as a string (node_collection.go nodeRef.Less, read).
  std::stable_sort(node_order_.begin(), node_order_.end(), [&](int l, int r) {
    if (nodes_[l].score != nodes_[r].score) return nodes_[l].score < nodes_[r].score;
    return store_.node(NodeId(static_cast<std::uint32_t>(l))).name < store_.node(NodeId(static_cast<std::uint32_t>(r))).name;
  });
}

std::vector<std::string> YuniKorn::queue_order(const std::string& parent_path) {
  refresh_priorities();
  std::vector<int> out;
  sort_children(config_.find(parent_path), false, out);
  std::vector<std::string> names;
  for (int q : out) names.push_back(config_.queues[q].path);
  return names;
}

std::vector<std::string> YuniKorn::node_order() {
  sort_nodes();
  std::vector<std::string> names;
  for (int n : node_order_) names.push_back(store_.node(NodeId(static_cast<std::uint32_t>(n))).name);
  return names;
}

std::int32_t YuniKorn::queue_priority(const std::string& path) {
  refresh_priorities();
  return queues_[config_.find(path)].priority;
}

// ---------------------------------------------------------------------------------------
// Allocation

Res YuniKorn::headroom(int q, const Res& parent) const {
  // queue.go internalHeadRoom: max - allocated over the types of max, then the component-wise
  // permissive min with the parent's headroom. Root's max is the partition's size.
  const QueueConf& qc = config_.queues[q];
  const Res& max = q == 0 && qc.max.empty() ? partition_total_ : qc.max;
  if (max.empty()) return parent;
  Res h;
  for (std::size_t i = 0; i < kSlots; ++i)
    if (max.has(i)) h.set(i, max.v[i] - queues_[q].allocated.v[i]);
  return q == 0 ? h : min_permissive(h, parent);
}

bool YuniKorn::can_run_app(const App& app) const {
  // queue.go canRunApp: maxapplications counts running applications, up the tree.
  if (app.pods > 0) return true;
  for (int q = app.queue; q >= 0; q = config_.queues[q].parent) {
    const std::int64_t m = config_.queues[q].max_applications;
    if (m > 0 && queues_[q].running_apps >= m) return false;
  }
  return true;
}

bool YuniKorn::predicates(PodId pod, int node) const {
  // The shim's predicates (k8shim pkg/plugin/predicates: the default framework's Filter
  // plugins): node name, node selector/affinity, taints. Resources are the core's check.
  const PodTemplate& spec = store_.spec_of(pod);
  const Node& n = store_.node(NodeId(static_cast<std::uint32_t>(node)));
  if (!spec.node_name.empty() && spec.node_name != n.name) return false;
  if (!pod_matches_node_selector_and_affinity(spec, n)) return false;
  if (first_untolerated_schedule_taint(n, spec.tolerations)) return false;
  return true;
}

bool YuniKorn::try_node(int node, const Ask& ask) const {
  // application.go tryNode: node.FitInNode, preAllocateCheck (ask <= available, pods
  // included), then the shim's predicates.
  const NodeState& n = nodes_[node];
  if (!n.schedulable) return false;
  if (!fit_in_max_undef(n.total, ask.res)) return false;
  if (!fit_in(n.available(), ask.res)) return false;
  return predicates(ask.pod, node);
}

void YuniKorn::allocate(int slot, int node, SimTime now) {
  const Ask ask = asks_[slot];
  App& app = apps_[ask.app];
  remove_ask(slot);  // also drops its reservation (AllocatedReserved -> unreserve)
  PodState& ps = state(ask.pod);
  ps.kind = PodState::kAllocated;
  ps.node = node;
  NodeState& n = nodes_[node];
  n.allocated += ask.res;
  n.allocs.push_back(ask.pod);
  app.allocated += ask.res;
  add_to_queues(app.queue, ask.res, &QueueState::allocated, +1);
  if (app.pods++ == 0)
    for (int q = app.queue; q >= 0; q = config_.queues[q].parent) ++queues_[q].running_apps;
  node_order_dirty_ = true;
  store_.pod_statistics(ask.pod).scheduling_attempts += 1;
  // The shim binds asynchronously (cache/context.go AssumePod + bind task).
  host_.post(now + config_.bind_latency.sample(rng_), Phase::kApi,
             SchedulerEvent{SchedulerEvent::Kind::kBindDone, ask.pod, NodeId(static_cast<std::uint32_t>(node))});
}

void YuniKorn::reserve(int slot, int node) {
  Ask& ask = asks_[slot];
  ask.reserved_node = node;
  nodes_[node].reserved_ask = slot;
  ++apps_[ask.app].reservations;
  ++reservations_;
  for (int q = apps_[ask.app].queue; q >= 0; q = config_.queues[q].parent) ++queues_[q].reservations;
}

void YuniKorn::unreserve(int slot) {
  Ask& ask = asks_[slot];
  if (ask.reserved_node < 0) return;
  nodes_[ask.reserved_node].reserved_ask = -1;
  ask.reserved_node = -1;
  --apps_[ask.app].reservations;
  --reservations_;
  for (int q = apps_[ask.app].queue; q >= 0; q = config_.queues[q].parent) --queues_[q].reservations;
}

bool YuniKorn::try_reserved(int a, const Res& head, SimTime now) {
  // application.go tryReservedAllocate: each reserved ask on its node first, then on any
  // other unreserved node (tryNodesNoReserve).
  App& app = apps_[a];
  scratch_asks_.assign(app.asks.begin(), app.asks.end());
  for (int s : scratch_asks_) {
    const Ask& ask = asks_[s];
    if (ask.reserved_node < 0 || !fit_in_max_undef(head, ask.res)) continue;
    if (try_node(ask.reserved_node, ask)) {
      allocate(s, ask.reserved_node, now);
      return true;
    }
  }
  sort_nodes();
  for (int s : scratch_asks_) {
    const Ask& ask = asks_[s];
    if (ask.reserved_node < 0 || !fit_in_max_undef(head, ask.res)) continue;
    for (int n : node_order_) {
      if (n == ask.reserved_node || nodes_[n].reserved_ask >= 0) continue;
      if (try_node(n, ask)) {
        allocate(s, n, now);
        return true;
      }
    }
  }
  return false;
}

YuniKorn::AppResult YuniKorn::try_allocate(int a, const Res& head, int* preempt_remaining, SimTime now) {
  App& app = apps_[a];
  // sorters.go sortAskByPriority: priority descending, then creation time.
  scratch_asks_.assign(app.asks.begin(), app.asks.end());
  std::stable_sort(scratch_asks_.begin(), scratch_asks_.end(), [&](int l, int r) {
    if (asks_[l].priority != asks_[r].priority) return asks_[l].priority > asks_[r].priority;
    return asks_[l].created < asks_[r].created;
  });
  const std::vector<int> order = scratch_asks_;  // allocate() below may reuse the scratch
  for (int s : order) {
    Ask& ask = asks_[s];
    // An ask outside the queue's headroom is skipped "unless preemption could help": it
    // may still preempt (without reserving a node).
    if (!fit_in_max_undef(head, ask.res)) {
      if (*preempt_remaining > 0 && config_.preemption_enabled) {
        --*preempt_remaining;
        bool reserved = false;
        if (try_preemption(s, head, now, &reserved)) return reserved ? AppResult::kDone : AppResult::kNextApp;
      }
      continue;
    }
    sort_nodes();
    // tryNodes: nodes in sort order, reserved ones skipped; the first that fits wins. After
    // reservationDelay an ask of an app without a reservation reserves the node with the
    // lowest FitInScore among those that passed the predicates (preReserveConditions).
    const bool allow_reserve = now - ask.created > kReservationDelay && app.reservations == 0;
    int best = -1;
    double best_score = 0;
    for (int n : node_order_) {
      if (nodes_[n].reserved_ask >= 0) continue;
      if (try_node(n, ask)) {
        allocate(s, n, now);
        return AppResult::kDone;
      }
      if (allow_reserve && predicates(ask.pod, n)) {
        const double score = fit_in_score(ask.res, nodes_[n].available());
        if (best < 0 || score < best_score) {
          best = n;
          best_score = score;
        }
      }
    }
    if (best >= 0 && nodes_[best].reserved_ask < 0) {
      reserve(s, best);
      return AppResult::kDone;
    }
    // No node: preemption, at most maxPreemptionsPerQueue asks per queue per cycle.
    if (*preempt_remaining > 0 && config_.preemption_enabled) {
      --*preempt_remaining;
      bool reserved = false;
      if (try_preemption(s, head, now, &reserved)) return reserved ? AppResult::kDone : AppResult::kNextApp;
    }
  }
  return AppResult::kNone;
}

bool YuniKorn::walk(int q, const Res& parent_headroom, bool reserved, int depth, SimTime now) {
  const Res head = headroom(q, parent_headroom);
  if (static_cast<std::size_t>(depth) >= scratch_order_.size()) scratch_order_.resize(depth + 1);
  const QueueConf& qc = config_.queues[q];
  if (qc.leaf) {
    sort_apps(q, scratch_order_[depth]);
    const std::vector<int> apps = scratch_order_[depth];
    int preempt_remaining = kMaxPreemptionsPerQueue;
    for (int a : apps) {
      if (reserved) {
        if (apps_[a].reservations > 0 && try_reserved(a, head, now)) return true;
        continue;
      }
      if (!can_run_app(apps_[a])) continue;
      if (try_allocate(a, head, &preempt_remaining, now) == AppResult::kDone) return true;
    }
    return false;
  }
  sort_children(q, reserved, scratch_order_[depth]);
  const std::vector<int> children = scratch_order_[depth];
  for (int ch : children)
    if (walk(ch, head, reserved, depth + 1, now)) return true;
  return false;
}

bool YuniKorn::schedule(SimTime now) {
  // context.go schedule -> partition: TryReservedAllocate, (TryPlaceholderAllocate,) then
  // TryAllocate; the first result ends the call.
  ++cycles_;
  refresh_priorities();
  if (!any_positive(queues_[0].pending)) return false;
  if (reservations_ > 0 && walk(0, Res{}, true, 0, now)) return true;
  return walk(0, Res{}, false, 0, now);
}

// ---------------------------------------------------------------------------------------
// Preemption (preemption.go; queue.go findPreemptionFenceRoot, findEligiblePreemptionVictims)

bool YuniKorn::within_guaranteed(int q, const Res* extra) const {
  // QueuePreemptionSnapshot.IsWithinGuaranteedResource: used - preempting fits in the
  // guaranteed (capped by max) for the queue and every parent; types absent are unlimited
  // (YUNIKORN-1685).
  for (int x = q; x >= 0; x = config_.queues[x].parent) {
    const Res g = effective_guaranteed(x);
    if (g.empty()) continue;
    Res used = queues_[x].allocated - queues_[x].preempting;
    if (extra) used += *extra;
    if (!fit_in_max_undef(g, used)) return false;
  }
  return true;
}

bool YuniKorn::at_or_above_guaranteed(int q) const {
  // QueuePreemptionSnapshot.IsAtOrAboveGuaranteedResource for the victim's queue (and its
  // parents that have a guarantee): used - preempting >= guaranteed.
  for (int x = q; x >= 0; x = config_.queues[x].parent) {
    const Res g = effective_guaranteed(x);
    if (g.empty()) continue;
    const Res used = queues_[x].allocated - queues_[x].preempting;
    for (std::size_t i = 0; i < kSlots; ++i)
      if (g.has(i) && used.v[i] < g.v[i]) return false;
  }
  return true;
}

void YuniKorn::collect_victims(int q, std::int64_t priority, int ask_leaf, std::int64_t ask_priority) {
  const QueueConf& qc = config_.queues[q];
  if (qc.leaf) {
    if (q == ask_leaf) return;  // no preemption inside the ask's own queue
    if (qc.preemption == PreemptionPolicy::kDisabled) return;
    // Skip a queue within its guarantee; a queue with nothing guaranteed is always a victim
    // queue (YUNIKORN-1951).
    const Res g = effective_guaranteed(q);
    if (!g.empty() && fit_in_max_undef(g, queues_[q].allocated)) return;
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      for (PodId v : nodes_[i].allocs) {
        const PodState& ps = pods_[v.value()];
        if (ps.preempted || apps_[ps.app].queue != q) continue;
        if (!store_.spec_of(v).node_name.empty()) continue;  // a required node
        if (ps.priority <= priority) candidates_.push_back(v);
      }
    return;
  }
  for (int ch : qc.children) {
    // On the ask's path the priority is the one computed on the way up; elsewhere the
    // child's offset is removed (fence: the child is skipped when its offset is above the
    // ask's priority, else all its tasks are eligible).
    std::int64_t p;
    if (path_priority_[ch] != kNotOnPath) {
      p = path_priority_[ch];
    } else if (config_.queues[ch].priority_fence) {
      if (config_.queues[ch].priority_offset > ask_priority) continue;
      p = std::numeric_limits<std::int64_t>::max();
    } else {
      p = priority - config_.queues[ch].priority_offset;
    }
    collect_victims(ch, p, ask_leaf, ask_priority);
  }
}

bool YuniKorn::try_preemption(int slot, const Res& head, SimTime now, bool* reserved) {
  Ask& ask = asks_[slot];
  const int leaf = apps_[ask.app].queue;
  // Preemptor.CheckPreconditions.
  if (!ask.allow_preempt_other || ask.triggered) return false;
  if (!store_.spec_of(ask.pod).node_name.empty()) return false;
  if (now - ask.created < config_.queues[leaf].preemption_delay) return false;
  if (!ask.last_check.is_never() && now - ask.last_check < kPreemptAttemptFrequency) return false;
  ask.last_check = now;
  ask.checked_version = version_;

  // findPreemptionFenceRoot: up from the leaf adding offsets (fence: the offset) until root
  // or a queue with preemption.policy fence.
  path_priority_.assign(queues_.size(), kNotOnPath);
  std::int64_t p = ask.priority;
  int fence = leaf;
  while (true) {
    const QueueConf& qc = config_.queues[fence];
    p = qc.priority_fence ? qc.priority_offset : p + qc.priority_offset;
    path_priority_[fence] = p;
    if (qc.parent < 0 || qc.preemption == PreemptionPolicy::kFence) break;
    fence = qc.parent;
  }
  candidates_.clear();
  collect_victims(fence, p, leaf, ask.priority);
  if (candidates_.empty()) return false;
  for (QueueState& q : queues_) q.preempting = Res{};
  auto preempt = [&](PodId v, int sign) {
    const PodState& ps = pods_[v.value()];
    add_to_queues(apps_[ps.app].queue, ps.res, &QueueState::preempting, sign);
  };

  // checkPreemptionQueueGuarantees: with the ask added, remove candidates (keeping each
  // victim queue at or above its guarantee) until the ask's queue is within guaranteed.
  bool ok = within_guaranteed(leaf, &ask.res);
  for (std::size_t i = 0; i < candidates_.size() && !ok; ++i) {
    preempt(candidates_[i], +1);
    if (!at_or_above_guaranteed(apps_[pods_[candidates_[i].value()].app].queue)) preempt(candidates_[i], -1);
    ok = within_guaranteed(leaf, &ask.res);
  }
  for (QueueState& q : queues_) q.preempting = Res{};
  if (!ok) return false;

  // calculateVictimsByNode on every schedulable node (full iterator, reserved included);
  // victims ordered by sortVictimsForPreemption: non-originators first, then newest first.
  auto newer = [&](PodId l, PodId r) {
    const PodState& L = pods_[l.value()];
    const PodState& R = pods_[r.value()];
    if (L.originator != R.originator) return !L.originator;
    if (L.created != R.created) return L.created > R.created;
    return l > r;
  };
  sort_nodes();
  int best_node = -1;
  std::uint64_t best_score = 0;
  for (int n : node_order_) {
    if (!predicates(ask.pod, n)) continue;  // PreemptionPredicates (approximated by the predicates)
    const NodeState& ns = nodes_[n];
    Res avail = ns.available();
    std::uint64_t score;
    node_victims_.clear();
    if (fit_in(avail, ask.res)) {
      score = 0;
    } else {
      head_.clear();
      tail_.clear();
      std::vector<PodId>& on_node = tail_;
      for (PodId v : candidates_)
        if (pods_[v.value()].node == n) on_node.push_back(v);
      std::sort(on_node.begin(), on_node.end(), newer);
      // Pass 1: keep victims whose queue stays at or above guaranteed; those that reduce the
      // node's shortfall first.
      Res shortfall = ask.res - avail;
      std::vector<PodId> list = on_node;
      tail_.clear();
      for (PodId v : list) {
        preempt(v, +1);
        if (!at_or_above_guaranteed(apps_[pods_[v.value()].app].queue)) {
          preempt(v, -1);
          continue;
        }
        const Res& vr = pods_[v.value()].res;
        bool reduces = false;
        for (std::size_t i = 0; i < kSlots; ++i)
          if (shortfall.has(i) && shortfall.v[i] > 0 && vr.v[i] > 0) reduces = true;
        if (reduces) {
          head_.push_back(v);
          shortfall -= vr;
        } else {
          tail_.push_back(v);
        }
      }
      for (QueueState& q : queues_) q.preempting = Res{};
      // Pass 2: re-check the guarantees; the index is the first victim after which the ask fits.
      head_.insert(head_.end(), tail_.begin(), tail_.end());
      int index = -1;
      for (PodId v : head_) {
        preempt(v, +1);
        if (!at_or_above_guaranteed(apps_[pods_[v.value()].app].queue)) {
          preempt(v, -1);
          continue;
        }
        node_victims_.push_back(v);
        avail += pods_[v.value()].res;
        if (fit_in(avail, ask.res)) {
          index = static_cast<int>(node_victims_.size()) - 1;
          break;
        }
      }
      for (QueueState& q : queues_) q.preempting = Res{};
      if (index < 0) continue;
      // getSolutionScore: index + 1, plus penalties for originators (2^33) and victims that
      // do not allow preemption (2^34; every pod allows it here: no annotations modelled).
      score = static_cast<std::uint64_t>(index) + 1;
      for (PodId v : node_victims_)
        if (pods_[v.value()].originator) score |= std::uint64_t{1} << 33;
    }
    if (best_node < 0 || score < best_score) {
      best_node = n;
      best_score = score;
      best_victims_ = node_victims_;
    }
  }
  if (best_node < 0) return false;

  // calculateAdditionalVictims: other nodes' victims until the ask's queue is within its
  // guarantee (compareAllocationLess: lower priority, then newest first).
  for (PodId v : best_victims_) preempt(v, +1);
  if (!within_guaranteed(leaf, &ask.res)) {
    std::vector<PodId> rest;
    for (PodId v : candidates_)
      if (std::find(best_victims_.begin(), best_victims_.end(), v) == best_victims_.end()) rest.push_back(v);
    std::sort(rest.begin(), rest.end(), [&](PodId l, PodId r) {
      if (pods_[l.value()].priority != pods_[r.value()].priority) return pods_[l.value()].priority < pods_[r.value()].priority;
      return newer(l, r);
    });
    for (PodId v : rest) {
      if (within_guaranteed(leaf, &ask.res)) break;
      preempt(v, +1);
      if (!at_or_above_guaranteed(apps_[pods_[v.value()].app].queue)) {
        preempt(v, -1);
        continue;
      }
      best_victims_.push_back(v);
    }
    if (!within_guaranteed(leaf, &ask.res)) {
      for (QueueState& q : queues_) q.preempting = Res{};
      return false;
    }
  }
  for (QueueState& q : queues_) q.preempting = Res{};

  // Victims are marked preempted and the shim deletes their pods (with their grace period);
  // their resources stay allocated until the pods are gone.
  last_victims_ = best_victims_;
  for (PodId v : best_victims_) {
    pods_[v.value()].preempted = true;
    const Duration grace = Duration::seconds(store_.spec_of(v).termination_grace_period_seconds);
    store_.delete_pod(v, now, grace, DisruptionReason::kPreemptionByScheduler);
  }
  ask.triggered = true;
  ++preemptions_;
  victims_ += best_victims_.size();
  // The ask reserves the node when it fits the headroom and the node is free of reservations.
  *reserved = false;
  if (fit_in_max_undef(head, ask.res) && nodes_[best_node].reserved_ask < 0) {
    if (ask.reserved_node >= 0) unreserve(slot);
    reserve(slot, best_node);
    *reserved = true;
  }
  return true;
}

}  // namespace kubesim::yunikorn
