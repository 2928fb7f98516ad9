#include "sched/yunikorn/yunikorn.hpp"

#include <algorithm>
#include <limits>

#include "sched/kube/plugins/node_affinity/node_affinity.hpp"
#include "sched/kube/plugins/taint_toleration/taint_toleration.hpp"

namespace kubesim::yunikorn {

namespace {

// SchedulerEvent::pod tags of the model's timers; a gang timer carries its application's
// index in SchedulerEvent::node.
enum : std::uint32_t { kTagCycle = 1, kTagPlaceholderTimer = 2, kTagStateTimer = 3 };
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
      names_rng_(seed, "yunikorn/placeholder-names"),
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

AppState YuniKorn::app_state(const std::string& app_id) const {
  const auto it = app_index_.find(app_id);
  return it == app_index_.end() ? AppState::kNew : apps_[it->second].state;
}

ShimState YuniKorn::shim_state(const std::string& app_id) const {
  const auto it = app_index_.find(app_id);
  if (it == app_index_.end() || apps_[it->second].gang < 0) return ShimState::kRunning;
  return gangs_[apps_[it->second].gang].shim;
}

std::vector<PodId> YuniKorn::placeholders(const std::string& app_id) const {
  const auto it = app_index_.find(app_id);
  if (it == app_index_.end() || apps_[it->second].gang < 0) return {};
  return gangs_[apps_[it->second].gang].placeholders;
}

SimTime YuniKorn::placeholder_timer(const std::string& app_id) const {
  const auto it = app_index_.find(app_id);
  if (it == app_index_.end() || apps_[it->second].gang < 0) return SimTime::never();
  return gangs_[apps_[it->second].gang].ph_timer;
}

std::string YuniKorn::gang_message(const std::string& app_id) const {
  std::string out;
  for (const auto& [id, message] : gang_messages_)
    if (id == app_id) out += (out.empty() ? "" : "; ") + message;
  return out;
}

// ---------------------------------------------------------------------------------------
// Informer side (the shim's cache -> core events)

void YuniKorn::add_to_queues(int leaf, const Res& r, Res QueueState::*field, int sign) {
  for (int q = leaf; q >= 0; q = config_.queues[q].parent) {
    if (sign > 0) queues_[q].*field += r;
    else queues_[q].*field -= r;
  }
}

void YuniKorn::on_new_pod(PodId pod, SimTime now) {
  const Pod& p = store_.pod(pod);
  const PodTemplate& spec = store_.spec(p.spec);
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
  std::string queue_label = "root.default";
  if (const std::string* v = find_label(spec.labels, "queue")) queue_label = *v;
  else if (const std::string* v2 = find_label(spec.labels, "yunikorn.apache.org/queue")) queue_label = *v2;

  const bool placeholder = is_placeholder(spec);
  // (create_app may create pods and templates: `p` and `spec` are not used after it.)
  auto it = app_index_.find(app_id);
  int a = -1;
  if (it == app_index_.end()) {
    std::string queue = lower(queue_label);
    if (queue.rfind("root.", 0) != 0 && queue != "root") queue = "root." + queue;
    a = create_app(app_id, queue_label, config_.find(queue), pod, now);
    if (a < 0) {
      state(pod).kind = PodState::kRejected;
      return;
    }
  } else {
    a = it->second;
  }
  App& app = apps_[a];
  PodState& ps = state(pod);  // (create_app may have grown pods_)
  ps.app = a;
  // The pod that made the shim create the application is its originator (k8shim context.go
  // addTask: the application's originating task).
  ps.originator = app.originator == pod;
  if (app.gang >= 0) {
    // k8shim application.go Schedule: Reserving submits only placeholders, Running only real
    // pods; Resuming and Failed submit nothing. A real pod stays New until the application
    // runs; a placeholder that was not submitted while Reserving never is.
    const ShimState shim = gangs_[app.gang].shim;
    if (placeholder ? shim != ShimState::kReserving : shim != ShimState::kRunning) {
      ps.kind = PodState::kHeld;
      if (!placeholder) gangs_[app.gang].held.push_back(pod);
      return;
    }
  }
  add_ask(pod, a, placeholder, now);
}

int YuniKorn::create_app(const std::string& app_id, const std::string& queue_label, int q, PodId pod, SimTime now) {
  if (q < 0 || !config_.queues[q].leaf) return -1;
  const Pod& p = store_.pod(pod);
  const PodTemplate& spec = store_.spec(p.spec);
  const std::string* tg = find_label(spec.annotations, kAnnotationTaskGroups);
  // A pod of an application rejected for its task groups from the same queue and annotation
  // is rejected again (its message is there already).
  if (tg && rejected_gangs_.contains(std::forward_as_tuple(app_id, q, *tg))) return -1;
  // k8shim metadata.go getAppMetadata: the task groups of the first pod; an invalid
  // annotation is logged (event TaskGroupsError on the pod) and the application has none.
  std::vector<TaskGroupSpec> groups;
  if (tg) {
    TaskGroupsResult r = parse_task_groups(*tg, store_.resource_names());
    if (!r.error.empty()) gang_messages_.emplace_back(app_id, "unable to get taskGroups for pod, reason: " + r.error);
    groups = std::move(r.groups);
  }
  Res placeholder_ask;
  for (const TaskGroupSpec& g : groups) {
    // k8shim pkg/common/resource.go GetTGResource: pods and every resource times minMember.
    const Res one = pod_resource(g.min_resource);
    for (std::size_t i = 0; i < kSlots; ++i)
      if (one.has(i)) placeholder_ask.set(i, placeholder_ask.v[i] + one.v[i] * g.min_member);
  }
  if (!groups.empty()) {
    // partition.go AddApplication: a task group request needs a leaf queue that supports
    // task groups (queue.go SupportTaskGroup: fifo or stateaware sorting) and must fit the
    // queue's max set (GetMaxQueueSet: ComponentWiseMin of the configured max below root);
    // otherwise the application is rejected.
    std::string why;
    if (config_.queues[q].app_sort != AppSort::kFifo) {
      why = "queue " + config_.queues[q].path + " cannot run application " + app_id +
            " with task group request: unsupported sort type";
    } else {
      Res max_set;
      bool set = false;
      for (int x = q; x > 0; x = config_.queues[x].parent) {
        const Res& m = config_.queues[x].max;
        if (m.empty()) continue;
        if (!set) {
          max_set = m;
          set = true;
          continue;
        }
        // resources.go ComponentWiseMin: a type missing on one side counts 0.
        Res r;
        for (std::size_t i = 0; i < kSlots; ++i)
          if (m.has(i) || max_set.has(i)) r.set(i, std::min(m.has(i) ? m.v[i] : 0, max_set.has(i) ? max_set.v[i] : 0));
        max_set = r;
      }
      if (set && !fit_in_max_undef(max_set, placeholder_ask))
        why = "queue " + config_.queues[q].path + " cannot fit application " + app_id +
              ": task group request larger than max queue allocation";
    }
    if (!why.empty()) {
      // (Every pod of a rejected application is rejected again: one message is enough.)
      if (std::find(gang_messages_.begin(), gang_messages_.end(), std::make_pair(app_id, why)) == gang_messages_.end())
        gang_messages_.emplace_back(app_id, why);
      rejected_gangs_.emplace(app_id, q, *tg);
      return -1;
    }
  }
  const int a = static_cast<int>(apps_.size());
  App app;
  app.id = app_id;
  app.queue = q;
  app.submitted = now;  // the shim submits the application when it sees its first pod
  app.originator = pod;
  apps_.push_back(std::move(app));
  app_index_.emplace(app_id, a);
  if (!groups.empty()) {
    Gang g;
    for (const TaskGroupSpec& s : groups) g.groups.push_back(TaskGroupState{s.name, s.min_member});
    g.placeholder_ask = placeholder_ask;
    std::string params;
    if (const std::string* v = find_label(spec.annotations, kAnnotationSchedulingPolicy)) params = *v;
    const SchedulingPolicy policy = parse_scheduling_policy(params);
    g.hard = policy.hard;
    // application.go NewApplication: ConvertSITimeoutWithAdjustment. The shim always sets the
    // creationTime tag (the first pod's creationTimestamp, whole seconds), so the timeout is
    // shortened by the time from that second to the application's submission; an expired
    // one becomes 1 ms (utils.go adjustTimeout).
    const SimTime created = SimTime::at(Duration::seconds(p.created.micros() / 1'000'000));
    const Duration adjusted = (created + yunikorn::placeholder_timeout(policy.timeout_millis())) - now;
    g.timeout = adjusted <= Duration() ? Duration::millis(1) : adjusted;
    apps_[a].gang = static_cast<int>(gangs_.size());
    gangs_.push_back(std::move(g));
    // The core accepts the application; the shim's postAppAccepted sees task groups and no
    // task scheduled yet (skipReservationStage): Reserving, which creates the placeholders.
    // (A copy: creating the placeholders grows the store's vectors.)
    const std::string tg_def = *tg;
    create_placeholders(a, groups, queue_label, tg_def, params, now);
  }
  return a;
}

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

void YuniKorn::create_placeholders(int a, const std::vector<TaskGroupSpec>& specs, const std::string& queue_label,
                                   const std::string& tg_def, const std::string& params, SimTime now) {
  // k8shim placeholder_manager.go createAppPlaceholders: minMember placeholder pods per task
  // group, created through the API (placeholder.go newPlaceholder). On the first failure the
  // application's placeholders are cleaned up and it runs as a normal application
  // (application.go onReserving: "PlaceholderCreateFailed").
  // (Copies: creating templates and pods grows the store's vectors.)
  const std::string app_id = apps_[a].id;
  const NamespaceId ns = store_.pod(apps_[a].originator).ns;
  const PodTemplate& origin_spec = store_.spec_of(apps_[a].originator);
  const std::string priority_class = origin_spec.priority_class_name;
  const int gi = apps_[a].gang;
  bool failed = false;
  for (std::size_t i = 0; i < specs.size() && !failed; ++i) {
    const TaskGroupSpec& s = specs[i];
    if (!s.invalid.empty()) {  // the API server refuses the pod
      gang_messages_.emplace_back(app_id, "failed to create placeholder pod: " + s.invalid);
      failed = true;
      break;
    }
    PodTemplate t;
    Container c;
    c.name = "pause";  // constants.PlaceholderContainerName, image registry.k8s.io/pause
    c.requests = s.min_resource;
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if (s.min_resource[r] != 0) c.requested_mask |= 1U << r;
    t.containers.push_back(std::move(c));
    // Labels: the group's, then applicationId, queue and placeholder (these win).
    t.labels = s.labels;
    set_label(t.labels, "applicationId", app_id);
    set_label(t.labels, "queue", queue_label);
    set_label(t.labels, kLabelPlaceholder, "true");
    t.annotations = s.annotations;
    set_label(t.annotations, kAnnotationPlaceholder, "true");
    set_label(t.annotations, kAnnotationTaskGroupName, s.name);
    if (!tg_def.empty()) set_label(t.annotations, kAnnotationTaskGroups, tg_def);
    if (!params.empty()) set_label(t.annotations, kAnnotationSchedulingPolicy, params);
    t.scheduler_name = scheduler_name_;  // constants.SchedulerName
    // The originator's PriorityClass (YUNIKORN-1921/1953, 1.4 on).
    t.priority_class_name = priority_class;
    t.node_selector = s.node_selector;
    t.tolerations = s.tolerations;
    t.affinity = s.node_affinity;
    t.has_affinity = s.has_node_affinity;
    // restartPolicy Never; terminationGracePeriodSeconds is the default 30 in 1.5 (0 from 1.6,
    // YUNIKORN-2771), but the pause container exits at SIGTERM.
    t.exits_on_sigterm = true;
    auto added = host_.add_pod_template(std::move(t));
    if (const std::string* refused = std::get_if<std::string>(&added)) {
      gang_messages_.emplace_back(app_id, "failed to create placeholder pod: " + *refused);
      failed = true;
      break;
    }
    const PodTemplateId tmpl = std::get<PodTemplateId>(added);
    for (std::int32_t m = 0; m < s.min_member; ++m) {
      auto created = host_.create_pod(placeholder_name(app_id, s.name, names_rng_), ns, tmpl);
      if (const std::string* refused = std::get_if<std::string>(&created)) {
        gang_messages_.emplace_back(app_id, "failed to create placeholder pod: " + *refused);
        failed = true;
        break;
      }
      const PodId ph = std::get<PodId>(created);
      gangs_[gi].placeholders.push_back(ph);
      ++gangs_[gi].live;
      PodState& phs = state(ph);
      phs.placeholder = true;
      phs.shim_created = true;
      phs.app = a;
    }
  }
  if (failed) {
    // placeholder_manager.go cleanUp, then RunApplication: a normal application.
    for (PodId ph : gangs_[gi].placeholders) release_timeout(ph, now);
    shim_run(a, now);
  }
}

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
      NodeState& n = nodes_[ps.node];
      n.allocated -= ps.res;
      std::erase(n.allocs, pod);
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
          nodes_[ps.node].allocated -= ps.res;
          std::erase(nodes_[ps.node].allocs, pod);
        }
        ph.partner = PodId();
        ph.term = PodState::kTimeout;
      }
      ps.partner = PodId();
      break;
    }
    case PodState::kForeign: nodes_[ps.node].occupied -= ps.res; break;
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

void YuniKorn::on_pod_change(const Change& c, SimTime now) {
  const PodId pod(c.id);
  const bool terminal = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
  PodState& ps = state(pod);
  if (terminal) {
    const int app = ps.app;
    const bool placeholder_gone = ps.placeholder && !ps.gone && app >= 0 && apps_[app].gang >= 0;
    if (placeholder_gone) {
      ps.gone = true;
      if (ps.bound && ps.shim_created && ps.group >= 0) --gangs_[apps_[app].gang].groups[ps.group].bound;
      ps.bound = false;
      --gangs_[apps_[app].gang].live;
    }
    if (ps.kind != PodState::kNone && ps.kind != PodState::kRejected) {
      release(pod, now);
      activity(now);
    }
    // k8shim application.go handleAppTaskCompletedEvent: a Resuming application runs once all
    // its placeholders are completed.
    if (placeholder_gone) {
      const Gang& g = gangs_[apps_[app].gang];
      if (g.shim == ShimState::kResuming && g.live == 0) shim_run(app, now);
    }
    return;
  }
  if (c.node.valid()) {
    // Assigned: our own allocation confirmed, or a pod of another scheduler that now
    // occupies the node (node.go occupiedResource).
    if (ps.kind == PodState::kAllocated || ps.kind == PodState::kForeign) return;
    if (ps.kind == PodState::kAsk) remove_ask(ps.ask);
    if (ps.kind == PodState::kHeld) std::erase(gangs_[apps_[ps.app].gang].held, pod);
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
    on_new_pod(pod, now);
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
    if (apply_binding(store_, event.pod, event.node, now)) {
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
  if (event.kind != SchedulerEvent::Kind::kTimer) return;
  if (event.pod.value() == kTagPlaceholderTimer || event.pod.value() == kTagStateTimer) {
    const int a = static_cast<int>(event.node.value());
    Gang& g = gangs_[apps_[a].gang];
    if (event.pod.value() == kTagPlaceholderTimer && g.ph_timer == now) placeholder_timeout(a, now);
    if (event.pod.value() == kTagStateTimer && g.state_timer == now) completing_timeout(a, now);
    activity(now);
    return;
  }
  if (event.pod.value() != kTagCycle) return;
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

void YuniKorn::add_to_node(int node, PodId pod, const Res& res) {
  NodeState& n = nodes_[node];
  n.allocated += res;
  n.allocs.push_back(pod);
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

void YuniKorn::allocate(int slot, int node, SimTime now) {
  const Ask ask = asks_[slot];
  App& app = apps_[ask.app];
  remove_ask(slot);  // also drops its reservation (AllocatedReserved -> unreserve)
  PodState& ps = state(ask.pod);
  ps.kind = PodState::kAllocated;
  ps.node = node;
  add_to_node(node, ask.pod, ask.res);
  count_allocation(ask.app, ask.pod, ask.res);
  // application.go addAllocationInternal.
  if (ask.placeholder) {
    // Placeholders do not progress the state until all are allocated; the first one starts
    // the placeholder timer (initPlaceholderTimer: Accepted only, execTimeout > 0).
    Gang& g = gangs_[app.gang];
    if (!any_positive(g.allocated_ph) && app.state == AppState::kAccepted && g.ph_timer.is_never())
      set_timer(ask.app, &Gang::ph_timer, now + g.timeout, kTagPlaceholderTimer);
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

// ---------------------------------------------------------------------------------------
// Gang scheduling: the application states, the placeholder timer, replacement

const char* to_string(AppState s) {
  switch (s) {
    case AppState::kNew: return "New";
    case AppState::kAccepted: return "Accepted";
    case AppState::kStarting: return "Starting";
    case AppState::kRunning: return "Running";
    case AppState::kCompleting: return "Completing";
    case AppState::kResuming: return "Resuming";
    case AppState::kFailing: return "Failing";
    case AppState::kFailed: return "Failed";
  }
  return "";
}

const char* to_string(ShimState s) {
  switch (s) {
    case ShimState::kRunning: return "Running";
    case ShimState::kReserving: return "Reserving";
    case ShimState::kResuming: return "Resuming";
    case ShimState::kFailed: return "Failed";
  }
  return "";
}

void YuniKorn::set_timer(int a, SimTime Gang::*timer, SimTime at, std::uint32_t tag) {
  Gang& g = gangs_[apps_[a].gang];
  if ((g.*timer).is_never()) ++timers_;
  g.*timer = at;
  host_.post(at, Phase::kScheduler,
             SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(tag), NodeId(static_cast<std::uint32_t>(a))});
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
    set_timer(a, &Gang::state_timer, now + kCompletingTimeout, kTagStateTimer);
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

void YuniKorn::release_to_shim(PodId ph, SimTime now) {
  // notifyRMAllocationReleased: the shim deletes the placeholder's pod (application.go
  // handleReleaseAppAllocationEvent -> DeleteTaskPod), with the shim's 3 s (kShimDeleteGrace).
  store_.delete_pod(ph, now, kShimDeleteGrace, DisruptionReason::kDeletionByUser);
}

void YuniKorn::release_timeout(PodId ph, SimTime now) {
  state(ph).term = PodState::kTimeout;
  release_to_shim(ph, now);
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
  if (rs.node == ps.node) add_to_node(rs.node, real, rs.res);
  count_allocation(a, real, rs.res);
  if (any_positive(app.allocated) || app.state == AppState::kCompleting) run_app(a, now);
  app.allocated += rs.res;
  if (ps.group >= 0) ++g.groups[ps.group].replaced;
  // The confirmed allocation goes to the shim, which binds the real pod.
  post_bind(real, rs.node, now);
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

void YuniKorn::shim_reservation_check(int a, SimTime now) {
  // k8shim application.go onReservationStateChange (UpdateReservation, Reserving only): the
  // application runs once every task group has minMember placeholders Bound.
  Gang& g = gangs_[apps_[a].gang];
  if (g.shim != ShimState::kReserving) return;
  for (const TaskGroupState& tg : g.groups)
    if (tg.bound < tg.min_member) return;
  shim_run(a, now);
}

void YuniKorn::shim_run(int a, SimTime now) {
  // The shim's RunApplication: Running schedules the real pods (scheduleTasks, in creation
  // order), which become asks of the core.
  Gang& g = gangs_[apps_[a].gang];
  if (g.shim == ShimState::kRunning || g.shim == ShimState::kFailed) return;
  g.shim = ShimState::kRunning;
  std::vector<PodId> held = std::move(g.held);
  g.held.clear();
  for (PodId pod : held) add_ask(pod, a, false, now);
  activity(now);
}

void YuniKorn::shim_fail(int a, SimTime now) {
  // k8shim application.go handleFailApplicationEvent: the placeholders are cleaned up and the
  // pods not yet allocated fail with ResourceReservationTimeout (the core's message).
  Gang& g = gangs_[apps_[a].gang];
  if (g.shim == ShimState::kFailed) return;
  g.shim = ShimState::kFailed;
  for (PodId ph : g.placeholders)
    if (!state(ph).gone && !store_.pod(ph).terminating() && !store_.pod(ph).deleted) release_to_shim(ph, now);
  std::vector<PodId> held = std::move(g.held);
  g.held.clear();
  for (PodId pod : held) {
    state(pod).kind = PodState::kNone;
    const Pod& p = store_.pod(pod);
    if (p.deleted || is_terminal(p.phase)) continue;
    store_.update_pod(pod, [](Pod& x) {
      x.phase = PodPhase::kFailed;
      x.reason = "ResourceReservationTimeout";  // constants.ApplicationInsufficientResourcesFailure
      x.message = "Scheduling has timed out due to insufficient resources";
    });
  }
  // Pods of the application that come later stay pending: a Failed application schedules
  // nothing (application.go Schedule).
}

bool YuniKorn::walk_placeholders(int q, int depth, SimTime now) {
  // queue.go TryPlaceholderAllocate: depth first, sorted queues and applications with
  // pending asks; no headroom check.
  if (static_cast<std::size_t>(depth) >= scratch_order_.size()) scratch_order_.resize(depth + 1);
  if (config_.queues[q].leaf) {
    sort_apps(q, scratch_order_[depth]);
    const std::vector<int> apps = scratch_order_[depth];
    for (int a : apps)
      if (apps_[a].gang >= 0 && try_placeholder_allocate(a, now)) return true;
    return false;
  }
  sort_children(q, false, scratch_order_[depth]);
  const std::vector<int> children = scratch_order_[depth];
  for (int ch : children)
    if (walk_placeholders(ch, depth + 1, now)) return true;
  return false;
}

bool YuniKorn::try_placeholder_allocate(int a, SimTime now) {
  // application.go tryPlaceholderAllocate: a real ask of task group g takes an allocated
  // placeholder of g on the placeholder's node when the predicates pass there; otherwise the
  // first ask that had a placeholder goes to the first node it fits (node-sort order).
  App& app = apps_[a];
  Gang& g = gangs_[app.gang];
  if (!any_positive(g.allocated_ph)) return false;
  scratch_asks_.assign(app.asks.begin(), app.asks.end());
  std::stable_sort(scratch_asks_.begin(), scratch_asks_.end(), [&](int l, int r) {
    if (asks_[l].priority != asks_[r].priority) return asks_[l].priority > asks_[r].priority;
    return asks_[l].created < asks_[r].created;
  });
  const std::vector<int> order = scratch_asks_;
  int ph_fit = -1;  // index into g.placeholders
  int req_fit = -1;
  auto replace = [&](int slot, PodId ph, int node) {
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
  };
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
        replace(slot, ph, phs.node);
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
    if (!fit_in(nodes_[n].available(), req.res) || !predicates(req.pod, n)) continue;
    // node.AddAllocation on the new node now; the queue is only updated at the swap.
    add_to_node(n, req.pod, req.res);
    replace(req_fit, g.placeholders[static_cast<std::size_t>(ph_fit)], n);
    return true;
  }
  return false;
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
    // canReplace: a real ask of a task group with placeholders left to replace is handled by
    // tryPlaceholderAllocate only.
    if (!ask.placeholder && ask.group >= 0) {
      const TaskGroupState& tg = gangs_[app.gang].groups[ask.group];
      if (tg.count > tg.replaced + tg.timed_out) continue;
    }
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
        // (A real pod waiting for its placeholder is on the node but not yet the app's.)
        if (ps.kind != PodState::kAllocated || ps.preempted || apps_[ps.app].queue != q) continue;
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

  // Victims are marked preempted and the shim deletes their pods (handleReleaseAppAllocationEvent,
  // with its 3 s grace period: kShimDeleteGrace); their resources stay allocated until the
  // pods are gone.
  last_victims_ = best_victims_;
  for (PodId v : best_victims_) {
    pods_[v.value()].preempted = true;
    store_.delete_pod(v, now, kShimDeleteGrace, DisruptionReason::kPreemptionByScheduler);
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
