// YuniKorn core's scheduling loop over its one partition, the model's events, and node
// sorting.
//
// Upstream: yunikorn-core pkg/scheduler/scheduler.go (internalSchedule), context.go (schedule), partition.go (tryReservedAllocate,
// tryPlaceholderAllocate, tryAllocate: the first result ends the cycle),
// objects/nodesorting.go and node_collection.go (fair / binpacking node order).
//
// The loop: a schedule() call right after any activity or a successful one, otherwise after
// 100 ms. Idle 100 ms ticks only matter when a time-based condition (reservation delay,
// preemption delay or re-check) becomes true; they are not simulated one by one: arm_timed
// jumps to the first tick on the 100 ms grid after it.
#include <algorithm>

#include "sched/cluster_client.hpp"
#include "sched/yunikorn/yunikorn.hpp"

namespace kubesim::yunikorn {

void YuniKorn::arm(SimTime t) {
  if (t < busy_until_) t = busy_until_;
  if (t >= armed_) return;
  armed_ = t;
  host_.post(t, Phase::kScheduler, SchedulerEvent::timer(Timer{TimerKind::kCycle, -1}));
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
        if (ask.reserved_node < 0 && now - ask.created <= kReservationDelay) t = std::min(t, ask.created + kReservationDelay + Duration::micros(1));
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
    if (host_.client().bind(Binding{event.pod, event.node, {}}, now)) {
      ++bindings_;
      // A placeholder's task is Bound: the shim checks its application's reservation.
      PodState& ps = state(event.pod);
      if (ps.placeholder && ps.app >= 0 && apps_[ps.app].gang >= 0 && !ps.gone) {
        if (!ps.bound && ps.shim_created && ps.group >= 0) ++gangs_[apps_[ps.app].gang].groups[ps.group].bound;
        ps.bound = true;
        shim_reservation_check(ps.app, now);
      }
    }
    return;
  }
  if (event.kind == SchedulerEvent::Kind::kTimer) on_timer(event.payload.as<Timer>(), now);
}

void YuniKorn::on_timer(const Timer& timer, SimTime now) {
  if (timer.kind != TimerKind::kCycle) {
    // A gang timer fires only if it was not cleared or set again meanwhile.
    Gang& g = gangs_[apps_[timer.app].gang];
    if (timer.kind == TimerKind::kPlaceholder && g.ph_timer == now) placeholder_timeout(timer.app, now);
    if (timer.kind == TimerKind::kCompleting && g.state_timer == now) completing_timeout(timer.app, now);
    activity(now);
    return;
  }
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

bool YuniKorn::schedule(SimTime now) {
  // context.go schedule -> partition: TryReservedAllocate, TryPlaceholderAllocate, then
  // TryAllocate; the first result ends the call.
  ++cycles_;
  refresh_priorities();
  if (!any_positive(queues_[0].pending)) return false;
  if (reservations_ > 0 && walk(0, Res{}, true, 0, now)) return true;
  // partition.go tryPlaceholderAllocate (nothing to replace without allocated placeholders).
  if (placeholder_allocs_ > 0 && walk_placeholders(0, 0, now)) return true;
  return walk(0, Res{}, false, 0, now);
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
    const Res avail = available(static_cast<int>(i));
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

std::vector<std::string> YuniKorn::node_order() {
  sort_nodes();
  std::vector<std::string> names;
  for (int n : node_order_) names.push_back(store_.node(NodeId(static_cast<std::uint32_t>(n))).name);
  return names;
}

}  // namespace kubesim::yunikorn
