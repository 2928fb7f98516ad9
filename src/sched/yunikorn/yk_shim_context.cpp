// YuniKorn's shim cache: the informer handlers that turn pods into applications and asks
// of the core, and nodes into the core's nodes.
//
// Upstream: yunikorn-k8shim pkg/cache/context.go (addPod/updatePod/deletePod and the
// application's tasks; addNode/updateNode), pkg/common/utils/utils.go (GetApplicationIDFromPod,
// GetQueueNameFromPod), pkg/cache/metadata.go (getAppMetadata), pkg/common/resource.go
// (GetTGResource); yunikorn-core pkg/scheduler/partition.go AddApplication (the task group
// checks) and pkg/scheduler/objects/application.go NewApplication (the placeholder timeout).
#include <algorithm>
#include <cctype>

#include "sched/yunikorn/yunikorn.hpp"

namespace kubesim::yunikorn {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

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
  const Res placeholder_ask = task_group_resource(groups);
  if (!groups.empty()) {
    if (std::string why = task_group_refusal(q, app_id, placeholder_ask); !why.empty()) {
      // (Every pod of a rejected application is rejected again: one message is enough.)
      if (std::find(gang_messages_.begin(), gang_messages_.end(), std::make_pair(app_id, why)) == gang_messages_.end())
        gang_messages_.emplace_back(app_id, std::move(why));
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
    std::string params;
    if (const std::string* v = find_label(spec.annotations, kAnnotationSchedulingPolicy)) params = *v;
    // (A copy: creating the placeholders grows the store's vectors.)
    const std::string tg_def = *tg;
    apps_[a].gang = static_cast<int>(gangs_.size());
    gangs_.push_back(new_gang(groups, placeholder_ask, params, p.created, now));
    // The core accepts the application; the shim's postAppAccepted sees task groups and no
    // task scheduled yet (skipReservationStage): Reserving, which creates the placeholders.
    create_placeholders(a, groups, queue_label, tg_def, params, now);
  }
  return a;
}

Res YuniKorn::task_group_resource(const std::vector<TaskGroupSpec>& groups) {
  // k8shim pkg/common/resource.go GetTGResource: pods and every resource times minMember.
  Res out;
  for (const TaskGroupSpec& g : groups) {
    const Res one = pod_resource(g.min_resource);
    for (std::size_t i = 0; i < kSlots; ++i)
      if (one.has(i)) out.set(i, out.v[i] + one.v[i] * g.min_member);
  }
  return out;
}

std::string YuniKorn::task_group_refusal(int q, const std::string& app_id, const Res& placeholder_ask) const {
  // partition.go AddApplication: a task group request needs a leaf queue that supports task
  // groups (queue.go SupportTaskGroup: fifo or stateaware sorting) and must fit the queue's
  // max set (GetMaxQueueSet: ComponentWiseMin of the configured max below root); otherwise the
  // application is rejected.
  if (config_.queues[q].app_sort != AppSort::kFifo)
    return "queue " + config_.queues[q].path + " cannot run application " + app_id +
           " with task group request: unsupported sort type";
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
    return "queue " + config_.queues[q].path + " cannot fit application " + app_id +
           ": task group request larger than max queue allocation";
  return {};
}

YuniKorn::Gang YuniKorn::new_gang(const std::vector<TaskGroupSpec>& groups, const Res& placeholder_ask,
                                  const std::string& params, SimTime first_pod_created, SimTime now) const {
  Gang g;
  for (const TaskGroupSpec& s : groups) g.groups.push_back(TaskGroupState{s.name, s.min_member});
  g.placeholder_ask = placeholder_ask;
  const SchedulingPolicy policy = parse_scheduling_policy(params);
  g.hard = policy.hard;
  // application.go NewApplication: ConvertSITimeoutWithAdjustment. The shim always sets the
  // creationTime tag (the first pod's creationTimestamp, whole seconds), so the timeout is
  // shortened by the time from that second to the application's submission; an expired
  // one becomes 1 ms (utils.go adjustTimeout).
  const SimTime created = SimTime::at(Duration::seconds(first_pod_created.micros() / 1'000'000));
  const Duration adjusted = (created + yunikorn::placeholder_timeout(policy.timeout_millis())) - now;
  g.timeout = adjusted <= Duration() ? Duration::millis(1) : adjusted;
  return g;
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
    cache_.add_pod(pod, c.node);
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
  cache_.set_node(id, n);
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

}  // namespace kubesim::yunikorn
