// YuniKorn core's gang scheduling: the application state machine, the placeholder and
// Completing timers, placeholder allocation and replacement.
//
// Upstream: yunikorn-core pkg/scheduler/objects/application_state.go (the states, the
// Completing timer), application.go (initPlaceholderTimer, timeoutPlaceholderProcessing,
// tryPlaceholderAllocate, ReplaceAllocation, removeAllocationInternal for placeholders),
// partition.go (removeAllocation: PLACEHOLDER_REPLACED), context.go (schedule: a replacement
// releases the placeholder first).
#include <algorithm>

#include "sched/yunikorn/yunikorn.hpp"

namespace kubesim::yunikorn {

int YuniKorn::group_of(int a, const PodTemplate& spec) const {
  // The ask's task group: annotation yunikorn.apache.org/task-group-name (GetTaskGroupFromPodSpec).
  const App& app = apps_[a];
  if (app.gang < 0) return -1;
  const std::string* name = find_label(spec.annotations, kAnnotationTaskGroupName);
  if (!name || name->empty()) return -1;
  const auto& groups = gangs_[app.gang].groups;
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (groups[i].name == *name) return static_cast<int>(i);
  return -1;
}

void YuniKorn::set_timer(int a, SimTime Gang::*timer, SimTime at, TimerKind kind) {
  Gang& g = gangs_[apps_[a].gang];
  if ((g.*timer).is_never()) ++timers_;
  g.*timer = at;
  host_.post(at, Phase::kScheduler, SchedulerEvent::timer(Timer{kind, a}));
}

void YuniKorn::clear_timer(int a, SimTime Gang::*timer) {
  Gang& g = gangs_[apps_[a].gang];
  if (!(g.*timer).is_never()) --timers_;
  g.*timer = SimTime::never();
}

void YuniKorn::set_state(int a, AppState next, SimTime now) {
  // application_state.go: leaving a state clears the state timer; entering Completing sets
  // it (completingTimeout). Only its effect on placeholders left is modelled.
  App& app = apps_[a];
  if (app.state == next) return;
  if (app.gang >= 0) clear_timer(a, &Gang::state_timer);
  app.state = next;
  if (next == AppState::kCompleting && app.gang >= 0 && any_positive(gangs_[app.gang].allocated_ph))
    set_timer(a, &Gang::state_timer, now + kCompletingTimeout, TimerKind::kCompleting);
}

void YuniKorn::run_app(int a, SimTime now) {
  // RunApplication: New, Resuming -> Accepted; Accepted -> Starting; Running, Starting,
  // Completing -> Running. (Starting's own 5 min timer to Running is not modelled: both act
  // alike here.)
  switch (apps_[a].state) {
    case AppState::kNew:
    case AppState::kResuming: set_state(a, AppState::kAccepted, now); break;
    case AppState::kAccepted: set_state(a, AppState::kStarting, now); break;
    case AppState::kStarting:
    case AppState::kRunning:
    case AppState::kCompleting: set_state(a, AppState::kRunning, now); break;
    default: break;
  }
}

void YuniKorn::complete_app(int a, SimTime now) {
  // CompleteApplication: Accepted, Running, Starting -> Completing.
  const AppState s = apps_[a].state;
  if (s == AppState::kAccepted || s == AppState::kRunning || s == AppState::kStarting)
    set_state(a, AppState::kCompleting, now);
}

void YuniKorn::remove_placeholder(PodId ph, SimTime now) {
  // The placeholder's allocation is removed (its pod is gone). partition.go removeAllocation:
  // released for a replacement (PLACEHOLDER_REPLACED) it is swapped for the real allocation
  // (ReplaceAllocation), otherwise removed (removeAllocationInternal).
  PodState& ps = state(ph);
  const int a = ps.app;
  App& app = apps_[a];
  Gang& g = gangs_[app.gang];
  g.allocated_ph -= ps.res;
  --placeholder_allocs_;
  const PodId real = ps.partner;
  const bool replaced = real.valid() && state(real).kind == PodState::kReplacing;
  // removeAllocationInternal: a placeholder the shim stopped (or that was preempted) counts as
  // timed out; one the core released itself (TIMEOUT) or replaced does not.
  if (!replaced && ps.term == PodState::kStoppedByRM && ps.group >= 0) ++g.groups[ps.group].timed_out;
  ps.partner = PodId();
  if (!any_positive(g.allocated_ph)) {
    clear_timer(a, &Gang::ph_timer);
    const bool zero_allocs = !any_positive(app.pending) && !any_positive(app.allocated);
    if ((app.state == AppState::kCompleting && g.state_timer.is_never()) || app.state == AppState::kFailing ||
        app.state == AppState::kResuming || zero_allocs) {
      if (app.state == AppState::kFailing) set_state(a, AppState::kFailed, now);  // FailApplication
      else if (app.state == AppState::kResuming) run_app(a, now);
      else complete_app(a, now);
      if (app.state == AppState::kFailed) shim_fail(a, now);  // the shim hears Failed
    }
  }
  if (!replaced) return;
  // ReplaceAllocation: the real allocation joins the application (result Replaced: it runs
  // the application only if it has real allocations already, or is Completing), then the
  // node swaps the placeholder for it and the queue's usage follows.
  PodState& rs = state(real);
  rs.partner = PodId();
  rs.kind = PodState::kAllocated;
  // node.ReplaceAllocation; on another node it was added already.
  if (rs.node == ps.node) add_to_node(rs.node, real);
  count_allocation(a, real, rs.res);
  if (any_positive(app.allocated) || app.state == AppState::kCompleting) run_app(a, now);
  app.allocated += rs.res;
  if (ps.group >= 0) ++g.groups[ps.group].replaced;
  // The confirmed allocation goes to the shim, which binds the real pod.
  post_bind(real, rs.node, now);
}

void YuniKorn::release_unused_placeholders(int a, bool count_timed_out, SimTime now) {
  Gang& g = gangs_[apps_[a].gang];
  for (PodId ph : g.placeholders) {
    PodState& ps = state(ph);
    if (ps.kind != PodState::kAllocated || ps.released) continue;
    ps.released = true;
    if (count_timed_out && ps.group >= 0) ++g.groups[ps.group].timed_out;
    release_timeout(ph, now);
  }
}

void YuniKorn::placeholder_timeout(int a, SimTime now) {
  // application.go timeoutPlaceholderProcessing.
  App& app = apps_[a];
  Gang& g = gangs_[app.gang];
  clear_timer(a, &Gang::ph_timer);
  const AppState s = app.state;
  if ((s == AppState::kRunning || s == AppState::kStarting || s == AppState::kCompleting) &&
      any_positive(g.allocated_ph)) {
    // Case 1: the application runs; the placeholders not replaced are released.
    release_unused_placeholders(a, true, now);
    return;
  }
  // Case 2: not all placeholders were allocated. Soft resumes the application (Resuming),
  // Hard fails it (Failing), with the message ResourceReservationTimeout.
  if (g.hard) {
    if (s == AppState::kNew || s == AppState::kAccepted || s == AppState::kStarting || s == AppState::kRunning)
      set_state(a, AppState::kFailing, now);
  } else if (s == AppState::kNew || s == AppState::kAccepted) {
    set_state(a, AppState::kResuming, now);
  }
  // Every ask is released to the shim and removed (removeAsksInternal("")): the shim deletes
  // the pending placeholders' pods (handleReleaseAppAllocationAskEvent; its 1.5 body is not in
  // the sources read: taken to delete a placeholder's pod, as the later versions do). Real
  // asks are not expected here (the shim holds real pods back while Reserving).
  std::vector<PodId> pending;
  for (int slot : app.asks) pending.push_back(asks_[slot].pod);
  for (PodId pod : pending) {
    PodState& ps = state(pod);
    remove_ask(ps.ask);
    ps.kind = PodState::kNone;
    if (ps.placeholder) {
      release_timeout(pod, now);
    } else {
      // Unexpected (see above): kept back by the shim again, so Hard fails it and Soft
      // submits it again (upstream would leave its task Pending without an ask).
      ps.kind = PodState::kHeld;
      g.held.push_back(pod);
    }
  }
  // All allocated placeholders are released (TIMEOUT) and every group counts as timed out.
  for (PodId ph : g.placeholders)
    if (state(ph).kind == PodState::kAllocated) release_timeout(ph, now);
  for (TaskGroupState& tg : g.groups) tg.timed_out = tg.count;
  node_order_dirty_ = true;
  // The shim hears the new state (scheduler_callback.go UpdateApplication).
  if (app.state == AppState::kResuming && g.shim == ShimState::kReserving) {
    g.shim = ShimState::kResuming;  // ResumingApplication
    if (g.live == 0) shim_run(a, now);
  } else if (app.state == AppState::kFailing) {
    shim_fail(a, now);
  }
}

void YuniKorn::completing_timeout(int a, SimTime now) {
  // application.go timeoutStateTimer: a Completing application with placeholders left
  // releases them.
  App& app = apps_[a];
  Gang& g = gangs_[app.gang];
  clear_timer(a, &Gang::state_timer);
  if (app.state != AppState::kCompleting || !any_positive(g.allocated_ph)) return;
  release_unused_placeholders(a, false, now);
}

bool YuniKorn::try_placeholder_allocate(int a, SimTime now) {
  // application.go tryPlaceholderAllocate: a real ask of task group g takes an allocated
  // placeholder of g on the placeholder's node when the predicates pass there; otherwise the
  // first ask that had a placeholder goes to the first node it fits (node-sort order).
  App& app = apps_[a];
  Gang& g = gangs_[app.gang];
  if (!any_positive(g.allocated_ph)) return false;
  sort_asks(app);
  const std::vector<int> order = scratch_asks_;
  int ph_fit = -1;  // index into g.placeholders
  int req_fit = -1;
  for (int slot : order) {
    const Ask& req = asks_[slot];
    if (req.placeholder || req.group < 0) continue;
    // Placeholders in allocation order (upstream iterates a map: the order is ours).
    for (std::size_t i = 0; i < g.placeholders.size(); ++i) {
      const PodId ph = g.placeholders[i];
      PodState& phs = state(ph);
      if (phs.kind != PodState::kAllocated || phs.released || phs.preempted || phs.group != req.group) continue;
      // A real ask larger than the placeholder (any type) cancels the placeholder.
      if (!greater_or_equal(phs.res, req.res)) {
        phs.released = true;
        release_timeout(ph, now);  // "cancel placeholder: resource incompatible"
        continue;
      }
      if (ph_fit < 0) {
        ph_fit = static_cast<int>(i);
        req_fit = slot;
      }
      // node.preReserveConditions: the predicates only (the placeholder holds the resources).
      if (predicates(req.pod, phs.node)) {
        replace_placeholder(slot, ph, phs.node, now);
        return true;
      }
    }
  }
  if (ph_fit < 0) return false;
  sort_nodes();
  const Ask& req = asks_[req_fit];
  for (int n : node_order_) {
    // The node iterator skips reserved nodes; preAllocateCheck, then the predicates.
    if (nodes_[n].reserved_ask >= 0) continue;
    if (!fit_in(available(n), req.res) || !predicates(req.pod, n)) continue;
    // node.AddAllocation on the new node now; the queue is only updated at the swap.
    add_to_node(n, req.pod);
    replace_placeholder(req_fit, g.placeholders[static_cast<std::size_t>(ph_fit)], n, now);
    return true;
  }
  return false;
}

void YuniKorn::replace_placeholder(int slot, PodId ph, int node, SimTime now) {
  const Ask ask = asks_[slot];
  remove_ask(slot);  // updateAskRepeatInternal(-1)
  PodState& rs = state(ask.pod);
  rs.kind = PodState::kReplacing;
  rs.node = node;
  rs.partner = ph;
  PodState& phs = state(ph);
  phs.partner = ask.pod;
  phs.released = true;
  // context.go schedule: a Replaced result releases the placeholder to the shim
  // (PLACEHOLDER_REPLACED); the real pod is allocated once the placeholder is gone.
  release_to_shim(ph, now);
  node_order_dirty_ = true;
}

}  // namespace kubesim::yunikorn
