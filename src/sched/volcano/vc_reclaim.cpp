// The reclaim action: a queue below its deserved share takes resources back from the tasks
// of other (reclaimable) queues, node by node.
//
// Upstream (volcano-sh/volcano v1.7.0):
//   pkg/scheduler/actions/reclaim/reclaim.go    Execute
//   pkg/scheduler/framework/session_plugins.go  Reclaimable (tier by tier, intersections)
//   pkg/scheduler/plugins/gang/gang.go          preemptableFn (only tasks beyond minAvailable)
//   pkg/scheduler/plugins/conformance/conformance.go evictableFn (never critical pods, kube-system)
//   pkg/scheduler/plugins/proportion/proportion.go   the ReclaimableFn (only from overused queues)
//   pkg/scheduler/util/scheduler_helper.go      ValidateVictims
//   pkg/scheduler/api/pod_info.go               GetPodPreemptable (volcano.sh/preemptable, default true)
//   pkg/scheduler/cache/cache.go                Evict (the pod deleted with its grace period)
// drf's ReclaimableFn exists only with enableHierarchy (not modelled).
#include <algorithm>
#include <map>

#include "sched/volcano/volcano.hpp"

namespace kubesim::volcano {

bool preemptable_pod(const PodTemplate& spec) {
  // GetPodPreemptable: the annotation, else the label, volcano.sh/preemptable (strconv.ParseBool);
  // default true.
  for (const Labels* l : {&spec.annotations, &spec.labels})
    if (const std::string* v = find_label(*l, "volcano.sh/preemptable"))
      return *v == "true" || *v == "1" || *v == "t" || *v == "T" || *v == "TRUE" || *v == "True";
  return true;
}

std::vector<PodId> Volcano::victims(PodId reclaimer, const std::vector<PodId>& reclaimees, bool reclaim) const {
  // session_plugins.go Reclaimable / Preemptable: tier by tier, the intersection of the
  // candidates of every plugin that votes; the first tier with victims decides; a plugin
  // with no candidate leaves none.
  std::vector<PodId> victims;
  bool init = false;
  for (const Tier& tier : config_.conf.tiers) {
    bool none = false;
    for (const PluginOption& o : tier.plugins) {
      if (!(reclaim ? o.reclaimable : o.preemptable)) continue;
      std::vector<PodId> candidates;
      if (o.plugin == Plugin::kPriority) {
        if (reclaim) continue;  // priority has no ReclaimableFn
        // priority.go preemptableFn: another job's tasks when its job has a lower priority;
        // the same job's when the task has a lower priority.
        const std::int32_t job = tasks_[reclaimer.value()].job;
        for (const PodId p : reclaimees) {
          const std::int32_t j = tasks_[p.value()].job;
          const bool lower = j != job ? jobs_[static_cast<std::size_t>(j)].priority < jobs_[static_cast<std::size_t>(job)].priority
                                      : store_.spec_of(p).priority < store_.spec_of(reclaimer).priority;
          if (lower) candidates.push_back(p);
        }
      } else if (o.plugin == Plugin::kGang) {
        std::map<std::int32_t, std::int32_t> occupied;
        for (const PodId p : reclaimees) {
          const std::int32_t j = tasks_[p.value()].job;
          auto [it, fresh] = occupied.try_emplace(j, 0);
          if (fresh) it->second = count_tasks(j, [](Status s) { return allocated_status(s) || s == Status::kSucceeded; });
          if (it->second > jobs_[static_cast<std::size_t>(j)].min_member) {
            --it->second;
            candidates.push_back(p);
          }
        }
      } else if (o.plugin == Plugin::kConformance) {
        for (const PodId p : reclaimees) {
          const PodTemplate& spec = store_.spec_of(p);
          if (spec.priority_class_name == "system-cluster-critical" || spec.priority_class_name == "system-node-critical" ||
              store_.namespace_(store_.pod(p).ns).name == "kube-system")
            continue;
          candidates.push_back(p);
        }
      } else if (o.plugin == Plugin::kProportion && reclaim) {
        const VRes req = VRes::of(store_.spec_of(reclaimer).requests);
        std::map<std::int32_t, VRes> allocations;
        for (const PodId p : reclaimees) {
          const std::int32_t q = jobs_[static_cast<std::size_t>(tasks_[p.value()].job)].queue;
          const QueueAttr& a = queue_attrs_[static_cast<std::size_t>(q)];
          auto [it, fresh] = allocations.try_emplace(q, a.allocated);
          // allocated.LessPartly(reclaimer.Resreq): some dimension below the request.
          bool less_partly = false;
          for (std::size_t i = 0; i < kMaxResources; ++i) less_partly = less_partly || it->second.v[i] < req.v[i];
          if (less_partly) continue;
          if (!it->second.less_equal(a.deserved, false)) {
            it->second -= VRes::of(store_.spec_of(p).requests);
            candidates.push_back(p);
          }
        }
      } else {
        continue;  // no ReclaimableFn
      }
      if (candidates.empty()) {
        victims.clear();
        none = true;
        break;
      }
      if (!init) {
        victims = std::move(candidates);
        init = true;
      } else {
        std::erase_if(victims, [&](PodId v) { return std::find(candidates.begin(), candidates.end(), v) == candidates.end(); });
      }
    }
    if (!victims.empty()) return victims;
    if (none) return {};
  }
  return victims;
}

void Volcano::reclaim(SimTime now) {
  std::vector<std::int32_t> queue_list;
  std::vector<std::vector<std::int32_t>> preemptors(config_.queues.size());
  std::map<std::int32_t, TaskQueue> pending;
  std::vector<bool> seen(config_.queues.size(), false);
  for (const std::int32_t j : active_jobs_) {
    const Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.phase == GroupPhase::kPending || !job_valid(j) || job.queue < 0) continue;
    const auto q = static_cast<std::size_t>(job.queue);
    if (!seen[q]) {
      seen[q] = true;
      queue_list.push_back(job.queue);
    }
    TaskQueue tasks = pending_tasks(j, false);
    if (tasks.empty()) continue;
    pending.emplace(j, std::move(tasks));
    preemptors[q].push_back(j);
  }
  QueueQueue queues(QueueLess{this}, std::move(queue_list));
  std::vector<JobQueue> jobs_of;
  for (auto& list : preemptors) jobs_of.emplace_back(JobLess{this}, std::move(list));
  while (!queues.empty()) {
    const std::int32_t q = queues.pop();
    // (Every `continue` below leaves the queue out for the rest of the action, as upstream.)
    if (overused(q)) continue;
    JobQueue& jobs = jobs_of[static_cast<std::size_t>(q)];
    if (jobs.empty()) continue;
    const std::int32_t j = jobs.pop();
    TaskQueue& tasks = pending.at(j);
    if (tasks.empty()) continue;
    const PodId task = tasks.pop();
    if (!allocatable(q, VRes::of(store_.spec_of(task).requests))) continue;
    if (reclaim_on_some_node(task, j, now)) jobs.push(j);
    queues.push(q);
  }
}

bool Volcano::reclaim_on_some_node(PodId task, std::int32_t job, SimTime now) {
  const PodTemplate& spec = store_.spec_of(task);
  const std::int32_t queue = jobs_[static_cast<std::size_t>(job)].queue;
  const std::size_t n = cache_.node_count();
  std::string reason;
  // ssn.Nodes is a Go map: a random order (a random start, then in turn).
  const std::size_t start = n == 0 ? 0 : tie_rng_.uniform_below(n);
  for (std::size_t k = 0; k < n; ++k) {
    const NodeInfo& ni = cache_.infos()[(start + k) % n];
    if (!ni.node || !ni.node->ready || !predicate(spec, ni, &reason)) continue;
    std::vector<PodId> reclaimees;
    for (const PodId p : cache_.pods_on(ni.id)) {
      const Task& t = tasks_[p.value()];
      if (t.job < 0 || t.status != Status::kBound || store_.pod(p).phase != PodPhase::kRunning) continue;
      if (!preemptable_pod(store_.spec_of(p))) continue;
      const std::int32_t vq = jobs_[static_cast<std::size_t>(t.job)].queue;
      if (vq == queue || vq < 0 || !config_.queues[static_cast<std::size_t>(vq)].reclaimable) continue;
      reclaimees.push_back(p);
    }
    const std::vector<PodId> chosen = victims(task, reclaimees, true);
    if (!victims_make_room(spec, ni, chosen)) continue;
    // Evict until the reclaimed requests cover the task's.
    Resources reclaimed;
    for (const PodId v : chosen) {
      evict(v, now);
      reclaimed += store_.spec_of(v).requests;
      bool covered = true;
      for (std::size_t r = 0; r < kMaxResources; ++r)
        if (r != kEphemeralStorage && (r <= kMemory || spec.requests[r] != 0) && spec.requests[r] > reclaimed[r]) covered = false;
      if (covered) {
        session_allocate(task, ni.id, true);  // ssn.Pipeline: waits for the victims to go
        return true;
      }
    }
  }
  return false;
}

bool Volcano::victims_make_room(const PodTemplate& spec, const NodeInfo& ni, const std::vector<PodId>& chosen) const {
  // util.ValidateVictims: some victims, and their requests with the node's FutureIdle fit
  // the task.
  if (chosen.empty()) return false;
  Resources future = ni.allocatable;
  future -= ni.requested;
  future += releasing_[ni.id.value()];
  future -= pipelined_[ni.id.value()];
  for (const PodId v : chosen) future += store_.spec_of(v).requests;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (r != kEphemeralStorage && (r <= kMemory || spec.requests[r] != 0) && spec.requests[r] > future[r]) return false;
  return true;
}

void Volcano::session_evict(PodId victim) {
  // session.go / statement.go Evict in the session: the task becomes Releasing (its node
  // counts it as releasing) and the plugins' DeallocateFunc handlers run.
  Task& t = task(victim);
  const PodTemplate& spec = store_.spec_of(victim);
  t.status = Status::kReleasing;
  if (!t.releasing && t.node.valid()) {
    t.releasing = true;
    releasing_[t.node.value()] += spec.requests;
    bump(t.node);
  }
  account_allocation(t.job, VRes::of(spec.requests), -1);
}

void Volcano::session_unevict(PodId victim) {
  // statement.go unevict (a discarded statement): Running again, AllocateFunc handlers.
  Task& t = task(victim);
  const PodTemplate& spec = store_.spec_of(victim);
  t.status = Status::kBound;
  if (t.releasing && t.node.valid()) {
    t.releasing = false;
    releasing_[t.node.value()] -= spec.requests;
    bump(t.node);
  }
  account_allocation(t.job, VRes::of(spec.requests), +1);
}

void Volcano::delete_victim(PodId victim, SimTime now) {
  // cache.go Evict: the pod deleted with its own grace period.
  ++evictions_;
  host_.client().delete_pod(victim, Duration::seconds(store_.spec_of(victim).termination_grace_period_seconds),
                            DisruptionReason::kPreemptionByScheduler, now);
}

void Volcano::evict(PodId victim, SimTime now) {
  session_evict(victim);
  delete_victim(victim, now);
}

}  // namespace kubesim::volcano
