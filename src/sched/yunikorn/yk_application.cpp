// YuniKorn core's applications: asks, allocations and their removal, reservations, and the
// allocation of one application's asks (tryAllocate, tryReservedAllocate).
//
// Upstream: yunikorn-core pkg/scheduler/objects/application.go (AddAllocationAsk,
// updateAskMaxPriority, removeAsksInternal, addAllocationInternal, removeAllocationInternal,
// tryAllocate, tryNodes, tryNode, tryReservedAllocate, tryNodesNoReserve), sorters.go
// (sortAskByPriority), node.go (AddAllocation, preAllocateCheck), partition.go (reserve,
// unReserve); the shim's predicates (yunikorn-k8shim pkg/plugin/predicates) and asynchronous
// Bind (pkg/cache/context.go).
#include <algorithm>

#include "cluster/predicates.hpp"
#include "sched/yunikorn/yunikorn.hpp"

namespace kubesim::yunikorn {

void YuniKorn::add_ask(PodId pod, int a, bool placeholder, SimTime now) {
  const Pod& p = store_.pod(pod);
  const PodTemplate& spec = store_.spec(p.spec);
  PodState& ps = state(pod);
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
  ask.placeholder = placeholder && app.gang >= 0;  // a placeholder of an application without task groups is an ask as any
  ask.group = static_cast<std::int16_t>(group_of(a, spec));
  ps.kind = PodState::kAsk;
  ps.ask = slot;
  ps.app = a;
  ps.priority = ask.priority;
  ps.created = ask.created;
  ps.res = ask.res;
  ps.placeholder = ask.placeholder;
  ps.group = ask.group;
  if (app.asks.empty()) {
    auto& list = queues_[app.queue].apps;
    list.insert(std::upper_bound(list.begin(), list.end(), a), a);  // submission order = index order
  }
  app.asks.push_back(slot);
  app.pending += ask.res;
  add_to_queues(app.queue, ask.res, &QueueState::pending, +1);
  update_app_priority(app);
  // application.go AddAllocationAsk: the first ask (New) or a new one (Completing) runs the
  // application; a placeholder ask is counted in its task group's PlaceholderData.
  if (app.state == AppState::kNew || app.state == AppState::kCompleting) run_app(a, now);
  if (placeholder && app.gang >= 0 && ask.group >= 0) ++gangs_[app.gang].groups[ask.group].count;
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

void YuniKorn::release(PodId pod, SimTime now) {
  PodState& ps = state(pod);
  switch (ps.kind) {
    case PodState::kAllocated: {
      cache_.remove_pod(pod);
      App& app = apps_[ps.app];
      add_to_queues(app.queue, ps.res, &QueueState::allocated, -1);
      if (--app.pods == 0)
        for (int q = app.queue; q >= 0; q = config_.queues[q].parent) --queues_[q].running_apps;
      ps.kind = PodState::kNone;
      node_order_dirty_ = true;
      if (ps.placeholder && app.gang >= 0) {
        remove_placeholder(pod, now);
      } else {
        // application.go removeAllocationInternal: no pending and no real allocation left
        // completes the application.
        app.allocated -= ps.res;
        if (!any_positive(app.pending) && !any_positive(app.allocated)) complete_app(ps.app, now);
      }
      return;
    }
    case PodState::kReplacing: {
      // The real pod ended before its placeholder was released: the link is dropped and the
      // placeholder's end is a plain removal (upstream would still confirm the replacement of
      // a task that is gone).
      if (ps.partner.valid()) {
        PodState& ph = state(ps.partner);
        if (ph.node != ps.node) {
          cache_.remove_pod(pod);
        }
        ph.partner = PodId();
        ph.term = PodState::kTimeout;
      }
      ps.partner = PodId();
      break;
    }
    case PodState::kForeign: cache_.remove_pod(pod); break;
    case PodState::kAsk: {
      const int a = ps.app;
      remove_ask(ps.ask);
      // removeAsksInternal: nothing pending, nothing allocated, no placeholder: completing.
      const App& app = apps_[a];
      const bool has_ph = app.gang >= 0 && any_positive(gangs_[app.gang].allocated_ph);
      if (!any_positive(app.pending) && !any_positive(app.allocated) && app.state != AppState::kFailing &&
          app.state != AppState::kCompleting && !has_ph)
        complete_app(a, now);
      break;
    }
    case PodState::kHeld: std::erase(gangs_[apps_[ps.app].gang].held, pod); break;
    default: break;
  }
  ps.kind = PodState::kNone;
  node_order_dirty_ = true;
}

void YuniKorn::allocate(int slot, int node, SimTime now) {
  const Ask ask = asks_[slot];
  App& app = apps_[ask.app];
  remove_ask(slot);  // also drops its reservation (AllocatedReserved -> unreserve)
  PodState& ps = state(ask.pod);
  ps.kind = PodState::kAllocated;
  ps.node = node;
  add_to_node(node, ask.pod);
  count_allocation(ask.app, ask.pod, ask.res);
  // application.go addAllocationInternal.
  if (ask.placeholder) {
    // Placeholders do not progress the state until all are allocated; the first one starts
    // the placeholder timer (initPlaceholderTimer: Accepted only, execTimeout > 0).
    Gang& g = gangs_[app.gang];
    if (!any_positive(g.allocated_ph) && app.state == AppState::kAccepted && g.ph_timer.is_never())
      set_timer(ask.app, &Gang::ph_timer, now + g.timeout, TimerKind::kPlaceholder);
    g.allocated_ph += ask.res;
    ++placeholder_allocs_;
    // resources.Equals(allocatedPlaceholder, placeholderAsk): compared by value.
    bool all = true;
    for (std::size_t i = 0; i < kSlots; ++i) all = all && g.allocated_ph.v[i] == g.placeholder_ask.v[i];
    if (all) run_app(ask.app, now);
  } else {
    run_app(ask.app, now);
    app.allocated += ask.res;
  }
  // The shim binds asynchronously (cache/context.go AssumePod + bind task).
  post_bind(ask.pod, node, now);
}

void YuniKorn::add_to_node(int node, PodId pod) {
  // node.go AddAllocation: the cache accounts the pod's requests.
  cache_.add_pod(pod, NodeId(static_cast<std::uint32_t>(node)));
  state(pod).node_seq = node_seq_++;
}

void YuniKorn::count_allocation(int a, PodId pod, const Res& res) {
  App& app = apps_[a];
  add_to_queues(app.queue, res, &QueueState::allocated, +1);
  if (app.pods++ == 0)
    for (int q = app.queue; q >= 0; q = config_.queues[q].parent) ++queues_[q].running_apps;
  node_order_dirty_ = true;
  store_.pod_statistics(pod).scheduling_attempts += 1;
}

void YuniKorn::post_bind(PodId pod, int node, SimTime now) {
  host_.post(now + config_.bind_latency.sample(rng_), Phase::kApi,
             SchedulerEvent{SchedulerEvent::Kind::kBindDone, pod, NodeId(static_cast<std::uint32_t>(node))});
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

void YuniKorn::sort_asks(const App& app) {
  // sorters.go sortAskByPriority: priority descending, then creation time.
  scratch_asks_.assign(app.asks.begin(), app.asks.end());
  std::stable_sort(scratch_asks_.begin(), scratch_asks_.end(), [&](int l, int r) {
    if (asks_[l].priority != asks_[r].priority) return asks_[l].priority > asks_[r].priority;
    return asks_[l].created < asks_[r].created;
  });
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
  // Preemption for an ask, at most maxPreemptionsPerQueue asks per queue per cycle.
  auto preempt = [&](int s) {
    if (*preempt_remaining <= 0 || !config_.preemption_enabled) return AppResult::kNone;
    --*preempt_remaining;
    bool reserved = false;
    if (!try_preemption(s, head, now, &reserved)) return AppResult::kNone;
    return reserved ? AppResult::kDone : AppResult::kNextApp;
  };
  sort_asks(app);
  const std::vector<int> order = scratch_asks_;  // allocate() below may reuse the scratch
  for (int s : order) {
    const Ask& ask = asks_[s];
    // canReplace: a real ask of a task group with placeholders left to replace is handled by
    // tryPlaceholderAllocate only.
    if (!ask.placeholder && ask.group >= 0) {
      const TaskGroupState& tg = gangs_[app.gang].groups[ask.group];
      if (tg.count > tg.replaced + tg.timed_out) continue;
    }
    // An ask outside the queue's headroom is skipped "unless preemption could help": it
    // may still preempt (without reserving a node).
    if (!fit_in_max_undef(head, ask.res)) {
      if (const AppResult r = preempt(s); r != AppResult::kNone) return r;
      continue;
    }
    if (try_nodes(s, now)) return AppResult::kDone;
    // No node: preemption.
    if (const AppResult r = preempt(s); r != AppResult::kNone) return r;
  }
  return AppResult::kNone;
}

bool YuniKorn::try_nodes(int s, SimTime now) {
  const Ask& ask = asks_[s];
  sort_nodes();
  // tryNodes: nodes in sort order, reserved ones skipped; the first that fits wins. After
  // reservationDelay an ask without a reservation reserves the node with the lowest
  // FitInScore among those that passed the predicates (preReserveConditions). The limit is
  // per ask, not per application (v1.4-v1.6 application.go tryNodes: allowReserve :=
  // len(reservedAsks) < ask.GetPendingAskRepeat(), a pod's ask repeats once; partition.go
  // reserve refuses only a node the application has reserved already, and a reserved node
  // is skipped here): an application with many pending pods reserves one node per ask.
  const bool allow_reserve = now - ask.created > kReservationDelay && ask.reserved_node < 0;
  int best = -1;
  double best_score = 0;
  for (int n : node_order_) {
    if (nodes_[n].reserved_ask >= 0) continue;
    if (try_node(n, ask)) {
      allocate(s, n, now);
      return true;
    }
    if (allow_reserve && predicates(ask.pod, n)) {
      const double score = fit_in_score(ask.res, available(n));
      if (best < 0 || score < best_score) {
        best = n;
        best_score = score;
      }
    }
  }
  if (best >= 0 && nodes_[best].reserved_ask < 0) {
    reserve(s, best);
    return true;
  }
  return false;
}

bool YuniKorn::try_node(int node, const Ask& ask) const {
  // application.go tryNode: node.FitInNode, preAllocateCheck (ask <= available, pods
  // included), then the shim's predicates. Against kube's NodeResourcesFit over the same
  // cache sums (cluster/predicates.hpp insufficient_resources): FitInNode compares with the
  // node's capacity by resources.FitInMaxUndef, which ignores a type the node lacks
  // (yunikorn-core pkg/scheduler/objects/node.go FitInNode); preAllocateCheck's FitIn then
  // counts it as 0 available, so such an ask fails here too, as in kube. The pod count is the
  // shim's "pods" type, 1 per ask (k8shim pkg/common/resource.go GetPodResource), checked
  // like any other type.
  const NodeState& n = nodes_[node];
  if (!n.schedulable) return false;
  if (!fit_in_max_undef(n.total, ask.res)) return false;
  if (!fit_in(available(node), ask.res)) return false;
  return predicates(ask.pod, node);
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

}  // namespace kubesim::yunikorn
