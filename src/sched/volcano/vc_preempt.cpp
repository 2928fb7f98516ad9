// The preempt action: a starving job takes room from lower-priority jobs of its own queue,
// then a starving job's tasks from lower-priority tasks of the same job.
//
// Upstream (volcano-sh/volcano v1.7.0):
//   pkg/scheduler/actions/preempt/preempt.go   Execute, preempt
//   pkg/scheduler/framework/session_plugins.go JobStarving (tier by tier: every voter must
//                                               agree), Preemptable
//   pkg/scheduler/plugins/priority/priority.go jobStarvingFn (not every task placed),
//                                               preemptableFn
//   pkg/scheduler/plugins/gang/gang.go         jobStarvingFn (placed + waiting < minAvailable)
//   pkg/scheduler/util/scheduler_helper.go     SortNodes (best score first), ValidateVictims
//   pkg/scheduler/framework/statement.go       Evict (undone by Discard), Pipeline, Commit
// The queues are visited in their configuration order (upstream: a Go map's order). drf's
// PreemptableFn is not modelled (the configuration reader refuses it under preempt).
#include <algorithm>

#include "sched/volcano/volcano.hpp"

namespace kubesim::volcano {

bool Volcano::job_starving(std::int32_t j) const {
  const Job& job = jobs_[static_cast<std::size_t>(j)];
  const std::int32_t placed = count_tasks(j, [](Status s) {
    return allocated_status(s) || s == Status::kSucceeded || s == Status::kPipelined;
  });
  for (const Tier& tier : config_.conf.tiers) {
    bool found = false;
    for (const PluginOption& o : tier.plugins) {
      if (!o.job_starving) continue;
      if (o.plugin == Plugin::kPriority) {
        found = true;
        if (placed >= static_cast<std::int32_t>(job.tasks.size())) return false;
      } else if (o.plugin == Plugin::kGang) {
        found = true;
        if (placed >= job.min_member) return false;
      }
    }
    if (found) return true;
  }
  return false;
}

void Volcano::preempt(SimTime now) {
  std::vector<std::vector<std::int32_t>> preemptors(config_.queues.size());
  std::vector<bool> queue_seen(config_.queues.size(), false);
  std::vector<std::int32_t> under_request;
  std::map<std::int32_t, TaskQueue> tasks;
  for (const std::int32_t j : active_jobs_) {
    const Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.phase == GroupPhase::kPending || !job_valid(j) || job.queue < 0) continue;
    queue_seen[static_cast<std::size_t>(job.queue)] = true;
    if (!job_starving(j)) continue;
    preemptors[static_cast<std::size_t>(job.queue)].push_back(j);
    under_request.push_back(j);
    tasks.emplace(j, pending_tasks(j, false));
  }
  for (std::size_t q = 0; q < preemptors.size(); ++q) {
    if (!queue_seen[q]) continue;
    JobQueue jobs(JobLess{this}, std::move(preemptors[q]));
    // Preemption between the jobs of the queue.
    while (!jobs.empty()) {
      const std::int32_t j = jobs.pop();
      std::vector<Op> stmt;
      bool assigned = false;
      TaskQueue& mine = tasks.at(j);
      while (job_starving(j) && !mine.empty()) assigned = preempt_task(mine.pop(), stmt, false) || assigned;
      if (!job_pipelined(j)) {
        discard(stmt);
        continue;
      }
      commit(stmt, now);
      if (assigned) jobs.push(j);
    }
    // Preemption between the tasks of each starving job (upstream runs it for every queue).
    for (const std::int32_t j : under_request) {
      TaskQueue own = pending_tasks(j, false);
      while (!own.empty()) {
        std::vector<Op> stmt;
        const bool assigned = preempt_task(own.pop(), stmt, true);
        commit(stmt, now);
        if (!assigned) break;
      }
    }
  }
  // preempt.go's last pass, victimTasks, evicts what the plugins' VictimTasksFns name: only
  // tdm and rescheduling register one (v1.7.0), and the model refuses both, so it evicts
  // nothing here.
}

bool Volcano::preempt_task(PodId preemptor, std::vector<Op>& stmt, bool same_job) {
  const PodTemplate& spec = store_.spec_of(preemptor);
  const std::int32_t job = tasks_[preemptor.value()].job;
  const std::int32_t queue = jobs_[static_cast<std::size_t>(job)].queue;
  // The nodes passing the predicates (no resource check), best score first (SortNodes).
  std::vector<std::pair<double, NodeId>> nodes;
  std::string reason;
  for (const NodeInfo& n : cache_.infos())
    if (n.node && n.node->ready && predicate(spec, n, &reason)) nodes.emplace_back(-node_score(spec, n), n.id);
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Victims leave in reverse order: the job ordered last first, then its task ordered last.
  auto victim_first = [this](PodId l, PodId r) {
    const std::int32_t jl = tasks_[l.value()].job, jr = tasks_[r.value()].job;
    return jl != jr ? !job_less(jl, jr) : !task_less(l, r);
  };
  for (const auto& [score, node] : nodes) {
    const NodeInfo& ni = cache_.info(node);
    std::vector<PodId> pool;
    for (const PodId p : cache_.pods_on(node)) {
      const Task& t = tasks_[p.value()];
      if (t.job < 0 || t.status != Status::kBound || store_.pod(p).phase != PodPhase::kRunning) continue;
      if (VRes::of(store_.spec_of(p).requests).is_empty()) continue;
      if (same_job ? t.job != job
                   : (!preemptable_pod(store_.spec_of(p)) || t.job == job ||
                      jobs_[static_cast<std::size_t>(t.job)].queue != queue))
        continue;
      pool.push_back(p);
    }
    std::vector<PodId> chosen = victims(preemptor, pool, false);
    if (!victims_make_room(spec, ni, chosen)) continue;
    PriorityQueue order(victim_first, std::move(chosen));
    while (!order.empty()) {
      if (!overused(queue) && fits(spec.requests, ni, false)) break;
      const PodId v = order.pop();
      session_evict(v);
      stmt.push_back(Op{v, node, false, 0, true});
    }
    if (!overused(queue) && fits(spec.requests, ni, false)) {
      session_allocate(preemptor, node, true);  // stmt.Pipeline
      stmt.push_back(session_ops_.back());
      return true;
    }
  }
  return false;
}

}  // namespace kubesim::volcano
