// The Volcano model's cache, controller and session loop.
//
// Upstream (volcano-sh/volcano v1.7.0):
//   pkg/scheduler/scheduler.go                  runOnce every schedulePeriod
//   pkg/scheduler/framework/framework.go        OpenSession, CloseSession
//   pkg/scheduler/framework/session.go          jobStatus (the PodGroup phase at close)
//   pkg/scheduler/framework/statement.go        Allocate, Pipeline, Commit, Discard
//   pkg/scheduler/cache/cache.go                Bind (asynchronous), the task status of a pod
//   pkg/scheduler/cache/event_handlers.go       addPod/updatePod/deletePod, nodes
//   pkg/scheduler/api/helpers.go getTaskStatus  a pod's TaskStatus
//   pkg/controllers/podgroup/pg_controller_handler.go createNormalPodPGIfNotExist
#include "sched/volcano/volcano.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "sched/cluster_client.hpp"
#include "sched/volcano/vc_queues.hpp"

namespace kubesim::volcano {

namespace {
constexpr double kMinResource = 0.1;  // api/resource_info.go minResource
}  // namespace

// ---- VRes (api/resource_info.go) ----

VRes VRes::of(const Resources& r) {
  VRes out;
  for (std::size_t i = 0; i < kMaxResources; ++i)
    if (i != kEphemeralStorage) out.v[i] = static_cast<double>(r[i]);
  return out;
}

VRes& VRes::operator+=(const VRes& o) {
  for (std::size_t i = 0; i < kMaxResources; ++i) v[i] += o.v[i];
  return *this;
}

VRes& VRes::operator-=(const VRes& o) {
  for (std::size_t i = 0; i < kMaxResources; ++i) v[i] -= o.v[i];
  return *this;
}

VRes VRes::operator*(double f) const {
  VRes out;
  for (std::size_t i = 0; i < kMaxResources; ++i) out.v[i] = v[i] * f;
  return out;
}

bool VRes::less_equal(const VRes& r, bool infinite_default) const {
  auto le = [](double a, double b) { return a < b || std::abs(a - b) < kMinResource; };
  if (!le(v[kCpu], r.v[kCpu]) || !le(v[kMemory], r.v[kMemory])) return false;
  for (std::size_t i = kEphemeralStorage + 1; i < kMaxResources; ++i) {
    if (v[i] == 0) continue;                       // absent on the left
    if (r.v[i] == 0 && infinite_default) continue;  // absent on the right: unbounded
    if (!le(v[i], r.v[i])) return false;
  }
  return true;
}

bool VRes::is_empty() const {
  for (std::size_t i = 0; i < kMaxResources; ++i)
    if (v[i] >= kMinResource) return false;
  return true;
}

const char* to_string(GroupPhase p) {
  switch (p) {
    case GroupPhase::kPending: return "Pending";
    case GroupPhase::kInqueue: return "Inqueue";
    case GroupPhase::kRunning: return "Running";
    case GroupPhase::kUnknown: return "Unknown";
  }
  return "?";
}

// ---- Construction and introspection ----

Volcano::Volcano(Config config, ObjectStore& store, SchedulerHost& host, std::uint64_t seed, Distribution bind_latency,
                 std::string scheduler_name)
    : config_(std::move(config)),
      store_(store),
      host_(host),
      scheduler_name_(std::move(scheduler_name)),
      bind_latency_(bind_latency),
      rng_(seed, "volcano/bind"),
      tie_rng_(seed, "volcano/ties"),
      uid_rng_(seed, "volcano/uid"),
      cache_(store) {
  for (const Tier& t : config_.conf.tiers)
    for (const PluginOption& o : t.plugins) plugin_mask_ |= 1u << static_cast<unsigned>(o.plugin);
  read_score_weights();
  gpu_slot_ = store_.resource_names().find("nvidia.com/gpu");
  // The queues are the store's from here on (vc_queues.hpp); they are ordered by
  // creationTimestamp then UID after the plugins: the file's order, then creation's.
  queue_kind_ = install_queues(store_, std::exchange(config_.queues, {}));
  group_kind_ = install_pod_groups(store_);
  sync_queues();
  for (const PodGroupSpec& g : config_.pod_groups) {
    const std::int32_t j = new_job(g.name, store_.ensure_namespace(g.ns), g.queue, g.created);
    set_group_spec(j, g);
    taskless_jobs_.push_back(j);
  }
  std::stable_sort(taskless_jobs_.begin(), taskless_jobs_.end(),
                   [&](std::int32_t a, std::int32_t b) { return jobs_[static_cast<std::size_t>(a)].created < jobs_[static_cast<std::size_t>(b)].created; });
}

void Volcano::set_group_spec(std::int32_t j, const PodGroupSpec& g) {
  Job& job = jobs_[static_cast<std::size_t>(j)];
  job.min_member = g.min_member;
  job.has_min_resources = g.has_min_resources;
  job.min_resources = VRes::of(g.min_resources);
  job.priority_class = g.priority_class;
  job.task_min = g.min_task_member;
  job.task_min_total = 0;
  for (const auto& [task, min] : g.min_task_member) job.task_min_total += min;
}

bool Volcano::add_pod_group(const PodGroupSpec& g, SimTime now) {
  const NamespaceId ns = store_.ensure_namespace(g.ns);
  if (job_index_.contains({ns.value(), g.name})) return false;
  const std::int32_t j = new_job(g.name, ns, g.queue, now);
  set_group_spec(j, g);
  taskless_jobs_.push_back(j);  // created now: no later than those already waiting
  return true;
}

Volcano::Task& Volcano::task(PodId pod) {
  if (tasks_.size() <= pod.value()) tasks_.resize(pod.value() + 1);
  return tasks_[pod.value()];
}

std::string Volcano::group_of(PodId pod) const {
  if (pod.value() >= tasks_.size() || tasks_[pod.value()].job < 0) return {};
  return jobs_[static_cast<std::size_t>(tasks_[pod.value()].job)].name;
}

GroupPhase Volcano::group_phase(const std::string& ns, const std::string& name) const {
  const auto n = store_.find_namespace(ns);
  if (!n) return GroupPhase::kPending;
  auto it = job_index_.find({n->value(), name});
  return it == job_index_.end() ? GroupPhase::kPending : jobs_[static_cast<std::size_t>(it->second)].phase;
}

NodeId Volcano::committed_node(PodId pod) const {
  if (pod.value() >= tasks_.size()) return NodeId();
  const Task& t = tasks_[pod.value()];
  return t.status == Status::kBinding || t.status == Status::kBound ? t.node : NodeId();
}

// ---- The podgroup controller ----

std::int32_t Volcano::new_job(std::string name, NamespaceId ns, const std::string& queue, SimTime now) {
  const auto j = static_cast<std::int32_t>(jobs_.size());
  Job job;
  job.name = std::move(name);
  job.ns = ns;
  job.queue = config_.find_queue(queue);
  job.queue_name = queue;
  job.created_second = now.micros() / 1'000'000;
  job.created = now;
  job.uid = uid_rng_.next_u64();
  job_index_.emplace(std::make_tuple(ns.value(), job.name), j);
  jobs_.push_back(std::move(job));
  return j;
}

std::int32_t Volcano::controller_group(PodId pod, SimTime now) {
  // pg_controller_handler.go createNormalPodPGIfNotExist: the group of the pod's controlling
  // owner (a batch Job: all its pods share it), else of the pod itself; the first pod's
  // requests are its minResources (util.GetPodQuotaUsage), its queue annotation the queue.
  const Pod& p = store_.pod(pod);
  if (p.job.valid())
    if (auto it = owner_groups_.find(p.job.value()); it != owner_groups_.end()) return it->second;
  const PodTemplate& spec = store_.spec(p.spec);
  const std::string* queue = find_label(spec.annotations, kQueueNameAnnotation);
  // helpers.GeneratePodgroupName: "podgroup-" + the owner's UID (kubesim has no UIDs: the
  // owner's name stands for it, which keeps the name unique and readable).
  const std::string owner = p.job.valid() ? "job-" + store_.job(p.job).name : p.name;
  const std::int32_t j = new_job("podgroup-" + owner, p.ns, queue ? *queue : "default", now);
  Job& job = jobs_[static_cast<std::size_t>(j)];
  job.has_min_resources = true;
  job.min_resources = VRes::of(spec.requests);
  job.priority = spec.priority;
  if (p.job.valid()) owner_groups_.emplace(p.job.value(), j);
  return j;
}

void Volcano::on_new_pod(PodId pod, SimTime now) {
  const Pod& p = store_.pod(pod);
  const PodTemplate& spec = store_.spec(p.spec);
  std::int32_t j = -1;
  if (const std::string* group = find_label(spec.annotations, kGroupNameAnnotation)) {
    // A pod naming a PodGroup that does not exist is not a task of any job: the cache keeps it
    // out of every session (cache.go getOrCreateJob needs the group).
    auto it = job_index_.find({p.ns.value(), *group});
    if (it == job_index_.end()) return;
    j = it->second;
  } else {
    controller_enqueue(pod, now);
    return;
  }
  join_group(pod, j, now);
}

void Volcano::join_group(PodId pod, std::int32_t j, SimTime now) {
  Task& t = task(pod);
  t.job = j;
  t.status = Status::kPending;
  jobs_[static_cast<std::size_t>(j)].tasks.push_back(pod);
  jobs_[static_cast<std::size_t>(j)].had_task = true;
  activate(j);
  arm(now);
}

void Volcano::activate_created(SimTime now) {
  // The PodGroups created by now enter the session, with or without pods.
  std::size_t n = 0;
  while (n < taskless_jobs_.size() && jobs_[static_cast<std::size_t>(taskless_jobs_[n])].created <= now) activate(taskless_jobs_[n++]);
  taskless_jobs_.erase(taskless_jobs_.begin(), taskless_jobs_.begin() + static_cast<std::ptrdiff_t>(n));
}

void Volcano::activate(std::int32_t job) {
  Job& j = jobs_[static_cast<std::size_t>(job)];
  if (j.active) return;
  j.active = true;
  active_jobs_.push_back(job);
}

// ---- Informers (cache/event_handlers.go) ----

void Volcano::account(PodId pod, NodeId node) {
  if (node.value() >= cache_.node_count()) return;  // a node not heard of yet
  cache_.add_pod(pod, node);
}

void Volcano::unaccount(PodId pod) {
  const NodeId n = cache_.remove_pod(pod);
  Task& t = task(pod);
  if (n.valid() && t.releasing) {
    releasing_[n.value()] -= store_.spec_of(pod).requests;
    bump(n);
  }
  t.releasing = false;
}

void Volcano::on_pod_change(const Change& c, SimTime now) {
  const PodId pod(c.id);
  Task& t = task(pod);
  const bool ended = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
  if (ended) {
    if (cache_.node_of(pod).valid()) unaccount(pod);
    if (t.job >= 0) {
      // getTaskStatus: Succeeded and Failed count in the gang (Succeeded is ready); a deleted
      // pod leaves its job.
      t.status = c.phase == PodPhase::kSucceeded ? Status::kSucceeded : Status::kFailed;
      if (c.type == ChangeType::kDeleted) {
        std::erase(jobs_[static_cast<std::size_t>(t.job)].tasks, pod);
        t.job = -1;
      }
    }
    t.status = t.job >= 0 ? t.status : Status::kNone;
    arm(now);
    return;
  }
  if (c.node.valid()) {
    // Bound (ours confirmed, or another scheduler's pod taking node resources).
    if (!cache_.node_of(pod).valid()) account(pod, c.node);
    if (t.job < 0) t.foreign = true;
    else t.status = Status::kBound;
    t.node = c.node;
    if (c.became_terminating && cache_.node_of(pod).valid() && !t.releasing) {
      // getTaskStatus: a pod being deleted is Releasing; its node counts it as releasing.
      if (t.job >= 0) t.status = Status::kReleasing;
      t.releasing = true;
      releasing_[c.node.value()] += store_.spec_of(pod).requests;
      bump(c.node);
      arm(now);
    }
    return;
  }
  if (c.type == ChangeType::kAdded && t.job < 0 && !t.foreign && serves(store_.spec_of(pod).scheduler_name))
    on_new_pod(pod, now);
}

void Volcano::on_node_change(const Change& c, SimTime now) {
  const NodeId id(c.id);
  cache_.set_node(id, store_.node(id));
  // The cache points at the store's nodes: after the store's node table grew (and moved),
  // the other entries are pointed at their nodes again.
  for (NodeInfo& n : cache_.infos())
    if (n.node && n.node != &store_.node(n.id)) n.node = &store_.node(n.id);
  if (releasing_.size() < cache_.node_count()) {
    releasing_.resize(cache_.node_count());
    pipelined_.resize(cache_.node_count());
    node_version_.resize(cache_.node_count());
  }
  total_ = VRes{};
  for (const NodeInfo& n : cache_.infos())
    if (n.node && n.node->ready) total_ += VRes::of(n.allocatable);
  arm(now);
}

// ---- The loop ----

bool Volcano::has_work() const {
  if (!taskless_jobs_.empty()) return true;
  for (const std::int32_t j : active_jobs_) {
    const Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.phase == GroupPhase::kPending) return true;
    for (const PodId p : job.tasks)
      if (tasks_[p.value()].status == Status::kPending) return true;
  }
  return false;
}

void Volcano::arm(SimTime now) {
  // runOnce runs every period from the scheduler's start (time 0, wait.Until); a session
  // that would find nothing to do is skipped here (it would change nothing), so the timer is
  // armed only while some job or task waits.
  if (!armed_.is_never() || !has_work()) return;
  const std::int64_t period = kSchedulePeriod.micros();
  std::int64_t next = (now.micros() + period - 1) / period * period;
  if (!last_session_.is_never() && next <= last_session_.micros()) next = last_session_.micros() + period;
  armed_ = SimTime::at(Duration::micros(next));
  host_.post(armed_, Phase::kScheduler, SchedulerEvent::timer(std::uint8_t{0}));
}

void Volcano::on_event(const SchedulerEvent& event, SimTime now) {
  if (event.kind == SchedulerEvent::Kind::kBindDone) {
    // cache.go Bind's goroutine: the binding, or a resync of the task when it fails.
    Task& t = task(event.pod);
    if (t.status != Status::kBinding) return;
    if (host_.client().bind(Binding{event.pod, event.node, {}}, now)) {
      ++bindings_;
      return;
    }
    unaccount(event.pod);
    t.status = Status::kPending;
    t.node = NodeId();
    arm(now);
    return;
  }
  if (event.kind != SchedulerEvent::Kind::kTimer) return;
  if (event.payload.as<std::uint8_t>() == controller_timer_tag()) {
    controller_run(now);
    return;
  }
  if (now != armed_) return;
  armed_ = SimTime::never();
  run_session(now);
  arm(now);
}

void Volcano::run_session(SimTime now) {
  ++sessions_;
  last_session_ = now;
  activate_created(now);
  // Drop the jobs whose tasks have all ended (see the header); a group no pod has joined yet
  // stays.
  std::erase_if(active_jobs_, [&](std::int32_t j) {
    Job& job = jobs_[static_cast<std::size_t>(j)];
    const bool live = !job.had_task || std::any_of(job.tasks.begin(), job.tasks.end(), [&](PodId p) {
      const Status s = tasks_[p.value()].status;
      return s != Status::kSucceeded && s != Status::kFailed;
    });
    if (!live) job.active = false;
    return !live;
  });
  open_session();
  for (const Action a : config_.conf.actions) {
    switch (a) {
      case Action::kEnqueue: enqueue(); break;
      case Action::kAllocate: allocate(now); break;
      case Action::kBackfill: backfill(now); break;
      case Action::kReclaim: reclaim(now); break;
      case Action::kPreempt: preempt(now); break;
    }
  }
  close_session(now);
}

void Volcano::open_session() {
  // cache.go: a job's priority is its PodGroup's PriorityClass value, as the cache finds it
  // when the session opens (the class may be created after the group).
  for (const std::int32_t j : active_jobs_) {
    Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.priority_class.empty()) continue;
    const PriorityClass* pc = store_.find_priority_class(job.priority_class);
    job.priority = pc ? pc->value : 0;
  }
  sync_queues();
  for (QueueAttr& a : queue_attrs_) a = QueueAttr{};
  if (plugin_on(Plugin::kProportion)) open_proportion();
  if (plugin_on(Plugin::kDrf)) open_drf();
  if (plugin_on(Plugin::kOvercommit)) open_overcommit();
}

void Volcano::close_session(SimTime now) {
  // Allocations no statement committed exist only in the session's snapshot.
  for (std::size_t i = session_ops_.size(); i-- > 0;) {
    const Op& op = session_ops_[i];
    const Status s = task(op.pod).status;
    if (s == Status::kAllocated || s == Status::kPipelined) session_deallocate(op.pod);
  }
  session_ops_.clear();
  best_of_.clear();
  for (Resources& r : pipelined_) r = Resources{};
  memos_.clear();  // (the pipelined sums were reset)
  memo_next_ = 0;
  // session.go jobStatus (the phase written back), gang's OnSessionClose (the unschedulable
  // condition of the pods of a job that is not ready).
  for (const std::int32_t j : active_jobs_) {
    Job& job = jobs_[static_cast<std::size_t>(j)];
    // Allocated (bound, binding) and Succeeded tasks; a group below its minMember that is not
    // Inqueue goes back to Pending (a Running group that lost tasks must be enqueued again).
    const std::int32_t placed = count_tasks(j, [](Status s) { return allocated_status(s) || s == Status::kSucceeded; });
    if (placed >= job.min_member) {
      job.phase = GroupPhase::kRunning;
      continue;
    }
    // A gang that is not ready (plugins/gang/gang.go OnSessionClose: ReadyTaskNum +
    // PendingBestEffortTaskNum below minAvailable) is marked Unschedulable in this session;
    // with a task whose pod runs, jobStatus then writes Unknown ("running tasks &&
    // unschedulable").
    // Unknown is neither Pending (enqueue passes it by, allocate keeps placing its tasks)
    // nor Inqueue / Running (overcommit and proportion reserve nothing for it).
    if (plugin_on(Plugin::kGang) && ready_tasks(j) < job.min_member && running_tasks(j) > 0) job.phase = GroupPhase::kUnknown;
    else if (job.phase != GroupPhase::kInqueue) job.phase = GroupPhase::kPending;
    if (job.phase == GroupPhase::kPending || job.fit_message.empty()) continue;
    for (const PodId p : job.tasks) {
      if (tasks_[p.value()].status != Status::kPending) continue;
      if (store_.pod(p).unschedulable_message == job.fit_message) continue;
      host_.client().set_unschedulable(p, job.fit_message, now);
    }
  }
  for (const std::int32_t j : active_jobs_) publish_group(j);
}

void Volcano::commit(std::vector<Op>& ops, SimTime now) {
  // statement.go Commit: each allocation is bound (cache.Bind: the API call in a goroutine);
  // pipelined tasks wait for the resources being released and are not bound.
  for (const Op& op : ops) {
    if (op.evict) {
      delete_victim(op.pod, now);
      continue;
    }
    if (op.pipelined) continue;
    Task& t = task(op.pod);
    t.status = Status::kBinding;
    ++attempts_;
    if (observer_) observer_(op.pod, op.node, op.index < best_of_.size() ? best_of_[op.index] : std::vector<NodeId>{});
    host_.post(now + bind_latency_.sample(rng_), Phase::kApi,
               SchedulerEvent{SchedulerEvent::Kind::kBindDone, op.pod, op.node});
  }
  ops.clear();
}

void Volcano::discard(std::vector<Op>& ops) {
  // statement.go Discard: the operations undone in reverse order.
  for (std::size_t i = ops.size(); i-- > 0;) {
    if (ops[i].evict) session_unevict(ops[i].pod);
    else session_deallocate(ops[i].pod);
  }
  ops.clear();
}

}  // namespace kubesim::volcano
