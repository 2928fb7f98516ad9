// The Volcano model's actions and the session's allocation events.
//
// Upstream (volcano-sh/volcano v1.7.0):
//   pkg/scheduler/actions/enqueue/enqueue.go    Execute
//   pkg/scheduler/actions/allocate/allocate.go  Execute
//   pkg/scheduler/actions/backfill/backfill.go  Execute
//   pkg/scheduler/framework/statement.go        Allocate, Pipeline, unallocate
//   pkg/scheduler/api/node_info.go              AddTask (Idle, Used, Pipelined), FutureIdle
//   pkg/scheduler/api/unschedule_info.go        FitErrors.Error
//   pkg/scheduler/plugins/predicates/predicates.go  the node filters and the pod-count limit
//   pkg/scheduler/util/scheduler_helper.go      PrioritizeNodes, SelectBestNode
#include <algorithm>
#include <map>

#include "cluster/predicates.hpp"
#include "sched/volcano/volcano.hpp"

namespace kubesim::volcano {

Volcano::TaskQueue Volcano::pending_tasks(std::int32_t job, bool with_request_only) const {
  std::vector<PodId> tasks;
  for (const PodId p : jobs_[static_cast<std::size_t>(job)].tasks)
    if (tasks_[p.value()].status == Status::kPending &&
        (!with_request_only || !VRes::of(store_.spec_of(p).requests).is_empty()))
      tasks.push_back(p);
  return TaskQueue(TaskLess{this}, std::move(tasks));
}

void Volcano::enqueue() {
  // enqueue.go: the queues of the session's jobs in QueueOrderFn order; each time the first
  // queue gives its best Pending job a chance (no minResources, or JobEnqueueable) and goes
  // back in, until every queue has no Pending job left.
  std::vector<std::int32_t> queue_list;
  std::vector<std::vector<std::int32_t>> pending(config_.queues.size());
  std::vector<bool> seen(config_.queues.size(), false);
  for (const std::int32_t j : active_jobs_) {
    const Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.queue < 0) continue;
    const auto q = static_cast<std::size_t>(job.queue);
    if (!seen[q]) {
      seen[q] = true;
      queue_list.push_back(job.queue);
    }
    // A closed queue takes no new jobs (the admission webhook refuses them upstream).
    if (job.phase == GroupPhase::kPending && config_.queues[q].open) pending[q].push_back(j);
  }
  QueueQueue queues(QueueLess{this}, std::move(queue_list));
  std::vector<JobQueue> jobs_of;
  for (auto& list : pending) jobs_of.emplace_back(JobLess{this}, std::move(list));
  while (!queues.empty()) {
    const std::int32_t q = queues.pop();
    JobQueue& jobs = jobs_of[static_cast<std::size_t>(q)];
    if (jobs.empty()) continue;
    const std::int32_t j = jobs.pop();
    Job& job = jobs_[static_cast<std::size_t>(j)];
    if (!job.has_min_resources || job_enqueueable(j)) {
      job_enqueued(j);
      job.phase = GroupPhase::kInqueue;
    }
    queues.push(q);
  }
}

void Volcano::allocate(SimTime now) {
  // allocate.go: namespaces (NamespaceOrderFn: by name here, drf's namespace order being off
  // by default) -> the QueueOrderFn-least queue of the namespace that is not Overused (an
  // overused queue leaves the action) -> its JobOrderFn-best job -> the job's pending tasks.
  struct QueueJobs {
    std::int32_t queue = -1;
    JobQueue jobs;
    bool removed = false;
  };
  std::map<std::string, std::vector<QueueJobs>> by_ns;  // namespace name -> its queues
  const bool enqueue_on = config_.conf.has(Action::kEnqueue);
  for (const std::int32_t j : active_jobs_) {
    Job& job = jobs_[static_cast<std::size_t>(j)];
    if (!enqueue_on && job.phase == GroupPhase::kPending) job.phase = GroupPhase::kInqueue;
    if (job.phase == GroupPhase::kPending || !job_valid(j) || job.queue < 0) continue;
    auto& queues = by_ns[store_.namespace_(job.ns).name];
    auto it = std::find_if(queues.begin(), queues.end(), [&](const QueueJobs& q) { return q.queue == job.queue; });
    if (it == queues.end()) it = queues.insert(queues.end(), QueueJobs{job.queue, JobQueue(JobLess{this}), false});
    it->jobs.push(j);
  }
  std::vector<std::string> names;
  for (const auto& [name, queues] : by_ns) names.push_back(name);
  PriorityQueue namespaces(std::less<std::string>(), std::move(names));
  std::map<std::int32_t, TaskQueue> pending;
  while (!namespaces.empty()) {
    const std::string ns = namespaces.pop();
    QueueJobs* best = nullptr;
    for (QueueJobs& q : by_ns[ns]) {
      if (q.removed) continue;
      if (overused(q.queue)) {
        q.removed = true;
        continue;
      }
      if (q.jobs.empty()) continue;
      if (!best || queue_less(q.queue, best->queue)) best = &q;
    }
    if (!best) continue;
    const std::int32_t j = best->jobs.pop();
    // Best-effort tasks (no request) are left to backfill.
    auto it = pending.find(j);
    if (it == pending.end()) it = pending.emplace(j, pending_tasks(j, true)).first;
    bool push_back = false;
    allocate_job(j, best->queue, it->second, now, push_back);
    if (push_back) best->jobs.push(j);
    namespaces.push(ns);
  }
}

void Volcano::allocate_job(std::int32_t j, std::int32_t queue, TaskQueue& pending, SimTime now, bool& push_back) {
  Job& job = jobs_[static_cast<std::size_t>(j)];
  std::vector<Op> stmt;
  std::vector<NodeId> best;
  while (!pending.empty()) {
    const PodId pod = pending.pop();
    const PodTemplate& spec = store_.spec_of(pod);
    if (!allocatable(queue, VRes::of(spec.requests))) continue;
    const NodeId node = choose_node(pod, best, job.fit_message);
    if (!node.valid()) break;  // the job stops for this session
    const bool fits_idle = fits(spec.requests, cache_.info(node), true);
    session_allocate(pod, node, !fits_idle);
    stmt.push_back(session_ops_.back());
    if (observer_) {
      best_of_.resize(session_ops_.size());
      best_of_.back() = best;
    }
    if (job_ready(j) && !pending.empty()) {
      push_back = true;
      break;
    }
  }
  if (job_ready(j)) {
    commit(stmt, now);
  } else if (!job_pipelined(j)) {
    discard(stmt);
  }
}

NodeId Volcano::choose_node(PodId pod, std::vector<NodeId>& best, std::string& fit_message) {
  // predicateFn (InitResreq <= FutureIdle, then the predicates plugin) over every node, then
  // PrioritizeNodes over the feasible ones when there are several, and SelectBestNode:
  // uniformly among the best scores (rand.Intn).
  const Pod& p = store_.pod(pod);
  const PodTemplate& spec = store_.spec(p.spec);
  std::vector<NodeMemo>& memo = memo_for(p.spec);
  std::string reason;
  std::size_t feasible = 0;
  NodeId first;
  best.clear();
  double top = 0;
  for (const NodeInfo& n : cache_.infos()) {
    const std::size_t i = n.id.value();
    NodeMemo& m = memo[i];
    if (!m.valid || m.generation != n.generation || m.version != node_version_[i]) {
      m = NodeMemo{n.generation, node_version_[i], true, false, 0};
      m.feasible = n.node && n.node->ready && fits(spec.requests, n, false) && predicate(spec, n, &reason);
      if (m.feasible) m.score = node_score(spec, n);
    }
    if (!m.feasible) continue;
    if (feasible++ == 0) first = n.id;
    if (best.empty() || m.score > top) {
      top = m.score;
      best.assign(1, n.id);
    } else if (m.score == top) {
      best.push_back(n.id);
    }
  }
  if (feasible == 0) {
    fit_message = fit_errors(spec);
    return NodeId();
  }
  if (feasible == 1) {
    best.clear();
    return first;
  }
  return best.size() == 1 ? best[0] : best[tie_rng_.uniform_below(best.size())];
}

std::vector<Volcano::NodeMemo>& Volcano::memo_for(PodTemplateId spec) {
  for (auto& [id, memo] : memos_)
    if (id == spec) {
      memo.resize(cache_.node_count());
      return memo;
    }
  if (memos_.size() < kMemoTemplates) {
    memos_.emplace_back(spec, std::vector<NodeMemo>(cache_.node_count()));
    return memos_.back().second;
  }
  auto& [id, memo] = memos_[memo_next_];
  memo_next_ = (memo_next_ + 1) % kMemoTemplates;
  id = spec;
  memo.assign(cache_.node_count(), NodeMemo{});
  return memo;
}

std::string Volcano::fit_errors(const PodTemplate& spec) const {
  // FitErrors.Error: "all nodes are unavailable: " and the sorted "count reason" strings.
  std::map<std::string, int> reasons;
  std::string reason;
  for (const NodeInfo& n : cache_.infos()) {
    if (!n.node || !n.node->ready) continue;
    if (!fits(spec.requests, n, false)) ++reasons["node(s) resource fit failed"];
    else if (!predicate(spec, n, &reason)) ++reasons[reason];
  }
  std::vector<std::string> parts;
  for (const auto& [r, count] : reasons) parts.push_back(std::to_string(count) + " " + r);
  std::sort(parts.begin(), parts.end());
  std::string out = "all nodes are unavailable: ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + ".";
}

void Volcano::backfill(SimTime now) {
  // backfill.go: the best-effort tasks (no request) of jobs past Pending and valid, each on
  // the first node of ssn.Nodes (a Go map: a random order) that passes the predicates.
  std::string reason;
  const std::size_t n = cache_.node_count();
  for (const std::int32_t j : active_jobs_) {
    const Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.phase == GroupPhase::kPending || !job_valid(j)) continue;
    for (const PodId p : std::vector<PodId>(job.tasks)) {
      if (tasks_[p.value()].status != Status::kPending || n == 0) continue;
      const PodTemplate& spec = store_.spec_of(p);
      if (!VRes::of(spec.requests).is_empty()) continue;
      const std::size_t start = tie_rng_.uniform_below(n);
      for (std::size_t k = 0; k < n; ++k) {
        const NodeInfo& ni = cache_.infos()[(start + k) % n];
        if (!ni.node || !ni.node->ready || !predicate(spec, ni, &reason)) continue;
        session_allocate(p, ni.id, false);
        std::vector<Op> one{session_ops_.back()};
        if (job_ready(j)) commit(one, now);
        break;
      }
    }
  }
}

bool Volcano::fits(const Resources& req, const NodeInfo& n, bool idle_only) const {
  // InitResreq.LessEqual(Idle or FutureIdle, Zero) over integers (the 0.1 tolerance cannot
  // matter): cpu and memory always, a scalar resource when requested (ephemeral-storage is
  // not a Volcano dimension).
  const std::size_t i = n.id.value();
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (r == kEphemeralStorage || (r > kMemory && req[r] == 0)) continue;
    std::int64_t free = n.allocatable[r] - n.requested[r];
    if (!idle_only) free += releasing_[i][r] - pipelined_[i][r];
    if (req[r] > free) return false;
  }
  return true;
}

bool Volcano::predicate(const PodTemplate& spec, const NodeInfo& n, std::string* reason) const {
  // predicates.go: the pod-count limit, then kube-scheduler's filters (node unschedulable,
  // node name, node affinity/selector, taints). Resource fit is allocate's own check.
  const Node& node = *n.node;
  if (n.allowed_pods <= n.pod_count) {
    *reason = "node(s) pod number exceeded";
    return false;
  }
  if (!passes_unschedulable(spec, node)) {
    *reason = "node(s) were unschedulable";
    return false;
  }
  if (!node_name_matches(spec, node)) {
    *reason = "node(s) didn't match the requested node name";
    return false;
  }
  if (!pod_matches_node_selector_and_affinity(spec, node)) {
    *reason = "node(s) didn't match Pod's node affinity/selector";
    return false;
  }
  if (first_untolerated_schedule_taint(node, spec.tolerations)) {
    *reason = "node(s) had untolerated taint";
    return false;
  }
  return true;
}

void Volcano::session_allocate(PodId pod, NodeId node, bool pipelined) {
  // statement.go Allocate / Pipeline: the task's status, the node's resources (Pipelined only
  // reserves releasing resources), then the plugins' AllocateFunc handlers (proportion's queue
  // allocation, drf's job share; nodeorder's node view is the cache itself).
  Task& t = task(pod);
  t.status = pipelined ? Status::kPipelined : Status::kAllocated;
  t.node = node;
  const PodTemplate& spec = store_.spec_of(pod);
  if (pipelined) {
    pipelined_[node.value()] += spec.requests;
    bump(node);
  } else {
    cache_.add_pod(pod, node);
  }
  account_allocation(t.job, VRes::of(spec.requests), +1);
  session_ops_.push_back(Op{pod, node, pipelined, static_cast<std::uint32_t>(session_ops_.size())});
}

void Volcano::session_deallocate(PodId pod) {
  Task& t = task(pod);
  const PodTemplate& spec = store_.spec_of(pod);
  if (t.status == Status::kPipelined) {
    pipelined_[t.node.value()] -= spec.requests;
    bump(t.node);
  } else {
    cache_.remove_pod(pod);
  }
  t.status = Status::kPending;
  t.node = NodeId();
  account_allocation(t.job, VRes::of(spec.requests), -1);
}

void Volcano::account_allocation(std::int32_t j, const VRes& req, int sign) {
  Job& job = jobs_[static_cast<std::size_t>(j)];
  const VRes delta = req * static_cast<double>(sign);
  if (job.queue >= 0) {
    QueueAttr& a = queue_attrs_[static_cast<std::size_t>(job.queue)];
    a.allocated += delta;
    update_share(a);
  }
  job.drf_allocated += delta;
  update_drf(j);
}

}  // namespace kubesim::volcano
