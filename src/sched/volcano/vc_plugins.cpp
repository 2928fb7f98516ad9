// The Volcano model's plugin callbacks, combined as the session combines them.
//
// Upstream (volcano-sh/volcano v1.7.0):
//   pkg/scheduler/framework/session_plugins.go  JobOrderFn, QueueOrderFn, TaskOrderFn (tiers,
//                                               first non-zero answer; fallbacks), JobValid,
//                                               JobReady, JobPipelined, JobEnqueueable (votes),
//                                               Overused, Allocatable
//   pkg/controllers/job/helpers/helpers.go      CompareTask (the task fallback)
//   pkg/scheduler/plugins/priority/priority.go  task and job order by priority
//   pkg/scheduler/plugins/gang/gang.go          JobValid, JobReady, JobPipelined, job order
//   pkg/scheduler/plugins/drf/drf.go            job order by dominant share
//   pkg/scheduler/plugins/proportion/proportion.go  deserved, queue order, Overused,
//                                               Allocatable, JobEnqueueable
//   pkg/scheduler/plugins/overcommit/overcommit.go  JobEnqueueable, JobEnqueued
//   pkg/scheduler/plugins/nodeorder/nodeorder.go    kube-scheduler v1.25's scores, weighted
//   pkg/scheduler/plugins/binpack/binpack.go    BinPackingScore
//   pkg/scheduler/api/job_info.go               ReadyTaskNum, ValidTaskNum, WaitingTaskNum
//   pkg/scheduler/api/helpers/helpers.go        Share, Min, Max
#include <algorithm>
#include <cstdlib>

#include "sched/kube/plugins/balanced_allocation/balanced_allocation.hpp"
#include "sched/kube/plugins/node_resources_fit/node_resources_fit.hpp"
#include "sched/volcano/volcano.hpp"

namespace kubesim::volcano {

namespace {

// helpers.Share.
double share(double l, double r) { return r == 0 ? (l == 0 ? 0 : 1) : l / r; }

// The resources `r` lists (ResourceNames: every dimension at or above the tolerance).
template <class F>
void for_names(const VRes& r, F f) {
  for (std::size_t i = 0; i < kMaxResources; ++i)
    if (r.v[i] >= 0.1) f(i);
}

// The index after a pod name's last "-" when the name has three or more parts
// (GetPodIndexUnderTask), else -1.
long pod_index(const std::string& name) {
  if (std::count(name.begin(), name.end(), '-') < 2) return -1;
  const std::string tail = name.substr(name.rfind('-') + 1);
  if (tail.empty() || tail.find_first_not_of("0123456789") != std::string::npos || tail.size() > 9) return -1;
  return std::strtol(tail.c_str(), nullptr, 10);
}

}  // namespace

// ---- Task counts (api/job_info.go) ----

std::int32_t Volcano::count_tasks(std::int32_t job, bool (*pred)(Status)) const {
  std::int32_t n = 0;
  for (const PodId p : jobs_[static_cast<std::size_t>(job)].tasks) n += pred(tasks_[p.value()].status) ? 1 : 0;
  return n;
}

std::int32_t Volcano::running_tasks(std::int32_t job) const {
  // api/helpers.go getTaskStatus: a bound pod in phase Running, not being deleted.
  std::int32_t n = 0;
  for (const PodId p : jobs_[static_cast<std::size_t>(job)].tasks)
    n += tasks_[p.value()].status == Status::kBound && store_.pod(p).phase == PodPhase::kRunning ? 1 : 0;
  return n;
}

std::int32_t Volcano::ready_tasks(std::int32_t job) const {
  // ReadyTaskNum (allocated statuses and Succeeded) + PendingBestEffortTaskNum.
  std::int32_t n = 0;
  for (const PodId p : jobs_[static_cast<std::size_t>(job)].tasks) {
    const Status s = tasks_[p.value()].status;
    if (allocated_status(s) || s == Status::kSucceeded) ++n;
    else if (s == Status::kPending && VRes::of(store_.spec_of(p).requests).is_empty()) ++n;
  }
  return n;
}

VRes Volcano::allocated_of(std::int32_t job) const {
  VRes r;
  for (const PodId p : jobs_[static_cast<std::size_t>(job)].tasks)
    if (allocated_status(tasks_[p.value()].status)) r += VRes::of(store_.spec_of(p).requests);
  return r;
}

// ---- gang ----

bool Volcano::job_valid(std::int32_t job) const {
  // gang.go validJobFn: ValidTaskNum (allocated, Succeeded, Pipelined, Pending) >= minAvailable.
  if (!plugin_on(Plugin::kGang)) return true;
  constexpr auto counted = [](Status s) {
    return allocated_status(s) || s == Status::kSucceeded || s == Status::kPipelined || s == Status::kPending;
  };
  if (!task_minimums_met(job, counted, false)) return false;  // CheckTaskValid first
  return count_tasks(job, counted) >= jobs_[static_cast<std::size_t>(job)].min_member;
}

bool Volcano::task_minimums_met(std::int32_t j, bool (*counted)(Status), bool best_effort_pending) const {
  const Job& job = jobs_[static_cast<std::size_t>(j)];
  if (job.task_min.empty() || job.min_member < job.task_min_total) return true;
  for (const auto& [name, min] : job.task_min) {
    if (min == 0) continue;
    std::int32_t n = 0;
    for (const PodId p : job.tasks) {
      const Status s = tasks_[p.value()].status;
      const PodTemplate& spec = store_.spec_of(p);
      if (!counted(s) && !(best_effort_pending && s == Status::kPending && VRes::of(spec.requests).is_empty())) continue;
      const std::string* task = find_label(spec.annotations, kTaskSpecAnnotation);
      if (task && *task == name) ++n;
    }
    if (n < min) return false;
  }
  return true;
}

bool Volcano::job_ready(std::int32_t job) const {
  const PluginOption* g = config_.conf.find(Plugin::kGang);
  if (!g || !g->job_ready) return true;  // no JobReadyFn: every job is ready
  const bool tasks_ready = task_minimums_met(job, [](Status s) { return allocated_status(s) || s == Status::kSucceeded; }, true);
  return tasks_ready && ready_tasks(job) >= jobs_[static_cast<std::size_t>(job)].min_member;
}

bool Volcano::job_pipelined(std::int32_t job) const {
  // JobPipelined votes: gang's WaitingTaskNum + ReadyTaskNum >= minAvailable; no vote: yes.
  const PluginOption* g = config_.conf.find(Plugin::kGang);
  if (!g || !g->job_pipelined) return true;
  const std::int32_t waiting = count_tasks(job, [](Status s) { return s == Status::kPipelined; });
  const bool tasks_pipelined = task_minimums_met(
      job, [](Status s) { return allocated_status(s) || s == Status::kSucceeded || s == Status::kPipelined; }, true);
  return tasks_pipelined && waiting + ready_tasks(job) >= jobs_[static_cast<std::size_t>(job)].min_member;
}

// ---- Orders ----

bool Volcano::job_less(std::int32_t l, std::int32_t r) const {
  const Job& a = jobs_[static_cast<std::size_t>(l)];
  const Job& b = jobs_[static_cast<std::size_t>(r)];
  for (const Tier& tier : config_.conf.tiers) {
    for (const PluginOption& o : tier.plugins) {
      if (!o.job_order) continue;
      int c = 0;
      switch (o.plugin) {
        case Plugin::kPriority: c = a.priority > b.priority ? -1 : a.priority < b.priority ? 1 : 0; break;
        case Plugin::kGang: {
          // Jobs that are not ready yet first.
          const bool ra = ready_tasks(l) >= a.min_member;
          const bool rb = ready_tasks(r) >= b.min_member;
          c = ra == rb ? 0 : ra ? 1 : -1;
          break;
        }
        case Plugin::kDrf: c = a.drf_share < b.drf_share ? -1 : a.drf_share > b.drf_share ? 1 : 0; break;
        default: break;
      }
      if (c != 0) return c < 0;
    }
  }
  if (a.created_second != b.created_second) return a.created_second < b.created_second;
  return a.uid < b.uid;
}

bool Volcano::queue_less(std::int32_t l, std::int32_t r) const {
  const PluginOption* p = config_.conf.find(Plugin::kProportion);
  if (p && p->queue_order) {
    const double sl = queue_attrs_[static_cast<std::size_t>(l)].share;
    const double sr = queue_attrs_[static_cast<std::size_t>(r)].share;
    if (sl != sr) return sl < sr;
  }
  return queue_created_[static_cast<std::size_t>(l)] < queue_created_[static_cast<std::size_t>(r)];
}

bool Volcano::task_less(PodId l, PodId r) const {
  const PluginOption* p = config_.conf.find(Plugin::kPriority);
  if (p && p->task_order) {
    const std::int32_t pl = store_.spec_of(l).priority;
    const std::int32_t pr = store_.spec_of(r).priority;
    if (pl != pr) return pl > pr;
  }
  // CompareTask: by the pods' indices, else the older pod first (creationTimestamp whole
  // seconds; kubesim's creation order decides what upstream leaves to the heap).
  const Pod& a = store_.pod(l);
  const Pod& b = store_.pod(r);
  const long il = pod_index(a.name);
  const long ir = pod_index(b.name);
  if (il >= 0 && ir >= 0 && il != ir) return il < ir;
  const std::int64_t cl = a.created.micros() / 1'000'000;
  const std::int64_t cr = b.created.micros() / 1'000'000;
  if (cl != cr) return cl < cr;
  return l.value() < r.value();
}

// ---- proportion ----

void Volcano::update_share(QueueAttr& a) const {
  double s = 0;
  for_names(a.deserved, [&](std::size_t i) { s = std::max(s, share(a.allocated.v[i], a.deserved.v[i])); });
  a.share = s;
}

void Volcano::open_proportion() {
  VRes total_guarantee;
  for (const QueueSpec& q : config_.queues) total_guarantee += VRes::of(q.guarantee);
  for (const std::int32_t j : active_jobs_) {
    const Job& job = jobs_[static_cast<std::size_t>(j)];
    if (job.queue < 0) continue;
    const QueueSpec& q = config_.queues[static_cast<std::size_t>(job.queue)];
    QueueAttr& a = queue_attrs_[static_cast<std::size_t>(job.queue)];
    if (!a.in_session) {
      a.in_session = true;
      a.guarantee = VRes::of(q.guarantee);
      // realCapability = min(total - Σ guarantees + own guarantee, capability); a capability
      // without cpu or memory leaves that dimension unbounded.
      a.real_capability = total_;
      a.real_capability -= total_guarantee;
      a.real_capability += a.guarantee;
      if (q.capability_slots != 0) {
        for (std::size_t i = 0; i < kMaxResources; ++i) {
          const bool set = q.capability_slots & (1u << i);
          if (!set) continue;
          a.real_capability.v[i] = std::min(a.real_capability.v[i], static_cast<double>(q.capability[i]));
        }
      }
    }
    VRes allocated;
    for (const PodId p : job.tasks) {
      const Status s = tasks_[p.value()].status;
      const VRes req = VRes::of(store_.spec_of(p).requests);
      if (allocated_status(s)) {
        a.allocated += req;
        a.request += req;
        allocated += req;
      } else if (s == Status::kPending) {
        a.request += req;
      }
    }
    if (job.phase == GroupPhase::kInqueue) a.inqueue += job.min_resources;
    const std::int32_t n_alloc = count_tasks(j, [](Status s) { return allocated_status(s); });
    if (job.phase == GroupPhase::kRunning && job.has_min_resources && n_alloc >= job.min_member) {
      for (std::size_t i = 0; i < kMaxResources; ++i)  // GetInqueueResource
        a.inqueue.v[i] += std::max(0.0, job.min_resources.v[i] - allocated.v[i]);
    }
    if (job.has_min_resources)  // GetElasticResources: what runs beyond the minimum
      for (std::size_t i = 0; i < kMaxResources; ++i)
        a.elastic.v[i] += std::max(0.0, allocated.v[i] - job.min_resources.v[i]);
  }
  // Water-filling of the cluster among the queues by weight (see the derivation).
  VRes remaining = total_;
  std::vector<bool> met(queue_attrs_.size(), false);
  for (;;) {
    double total_weight = 0;
    for (std::size_t q = 0; q < queue_attrs_.size(); ++q)
      if (queue_attrs_[q].in_session && !met[q]) total_weight += config_.queues[q].weight;
    if (total_weight == 0) break;
    const VRes old_remaining = remaining;
    VRes increased, decreased;
    for (std::size_t q = 0; q < queue_attrs_.size(); ++q) {
      QueueAttr& a = queue_attrs_[q];
      if (!a.in_session || met[q]) continue;
      const VRes old = a.deserved;
      a.deserved += remaining * (config_.queues[q].weight / total_weight);
      for (std::size_t i = 0; i < kMaxResources; ++i) {
        // MinDimensionResource(realCapability, Infinity), then (request, Zero); Max(guarantee).
        if (a.real_capability.v[i] != 0 || i <= kMemory) a.deserved.v[i] = std::min(a.deserved.v[i], a.real_capability.v[i]);
        a.deserved.v[i] = std::min(a.deserved.v[i], a.request.v[i]);
        a.deserved.v[i] = std::max(a.deserved.v[i], a.guarantee.v[i]);
      }
      update_share(a);
      bool same = true;
      for (std::size_t i = 0; i < kMaxResources; ++i) same = same && a.deserved.v[i] == old.v[i];
      if (a.request.less_equal(a.deserved, false) || same) met[q] = true;
      for (std::size_t i = 0; i < kMaxResources; ++i) {
        const double d = a.deserved.v[i] - old.v[i];
        if (d > 0) increased.v[i] += d;
        else decreased.v[i] -= d;
      }
    }
    remaining -= increased;
    remaining += decreased;
    bool same = true;
    for (std::size_t i = 0; i < kMaxResources; ++i) same = same && remaining.v[i] == old_remaining.v[i];
    if (remaining.is_empty() || same) break;
  }
}

bool Volcano::overused(std::int32_t queue) const {
  if (!plugin_on(Plugin::kProportion)) return false;
  const QueueAttr& a = queue_attrs_[static_cast<std::size_t>(queue)];
  return a.deserved.less_equal(a.allocated, false);
}

bool Volcano::allocatable(std::int32_t queue, const VRes& request) const {
  if (!plugin_on(Plugin::kProportion)) return true;
  const QueueAttr& a = queue_attrs_[static_cast<std::size_t>(queue)];
  VRes free;
  for (std::size_t i = 0; i < kMaxResources; ++i) free.v[i] = std::max(0.0, a.deserved.v[i] - a.allocated.v[i]);
  return request.less_equal(free, false);
}

// ---- drf ----

void Volcano::update_drf(std::int32_t job) {
  Job& j = jobs_[static_cast<std::size_t>(job)];
  double s = 0;
  for_names(total_, [&](std::size_t i) { s = std::max(s, share(j.drf_allocated.v[i], total_.v[i])); });
  j.drf_share = s;
}

void Volcano::open_drf() {
  for (const std::int32_t j : active_jobs_) {
    jobs_[static_cast<std::size_t>(j)].drf_allocated = allocated_of(j);
    update_drf(j);
  }
}

// ---- overcommit, and the JobEnqueueable votes ----

void Volcano::open_overcommit() {
  const double factor = std::max(1.0, config_.conf.find(Plugin::kOvercommit)->number("overcommit-factor", 1.2));
  VRes used;
  oc_idle_ = VRes{};
  for (const NodeInfo& n : cache_.infos()) {
    if (!n.node || !n.node->ready) continue;
    oc_idle_ += VRes::of(n.allocatable);
    used += VRes::of(n.requested);
  }
  oc_idle_ = oc_idle_ * factor;
  oc_idle_ -= used;
  oc_inqueue_ = VRes{};
  for (const std::int32_t j : active_jobs_) {
    const Job& job = jobs_[static_cast<std::size_t>(j)];
    if (!job.has_min_resources) continue;
    if (job.phase == GroupPhase::kInqueue) {
      oc_inqueue_ += job.min_resources;
      continue;
    }
    if (job.phase == GroupPhase::kRunning && count_tasks(j, [](Status s) { return allocated_status(s); }) >= job.min_member) {
      const VRes allocated = allocated_of(j);
      for (std::size_t i = 0; i < kMaxResources; ++i)
        oc_inqueue_.v[i] += std::max(0.0, job.min_resources.v[i] - allocated.v[i]);
    }
  }
}

bool Volcano::job_enqueueable(std::int32_t j) {
  // session_plugins.go JobEnqueueable: tier by tier; a Reject refuses; a Permit in a tier
  // decides; no vote: yes. Voters: overcommit, proportion (in their configured places).
  const Job& job = jobs_[static_cast<std::size_t>(j)];
  for (const Tier& tier : config_.conf.tiers) {
    bool permit = false;
    for (const PluginOption& o : tier.plugins) {
      if (!o.job_enqueued) continue;
      if (o.plugin == Plugin::kOvercommit) {
        VRes need = oc_inqueue_;
        need += job.min_resources;
        if (!need.less_equal(oc_idle_, false)) return false;  // "resource in cluster is overused"
        permit = true;
      } else if (o.plugin == Plugin::kProportion && job.queue >= 0) {
        QueueAttr& a = queue_attrs_[static_cast<std::size_t>(job.queue)];
        VRes need = job.min_resources;
        need += a.allocated;
        need += a.inqueue;
        need -= a.elastic;
        if (!need.less_equal(a.real_capability, true)) return false;  // "queue resource quota insufficient"
        a.inqueue += job.min_resources;
        permit = true;
      }
    }
    if (permit) return true;
  }
  return true;
}

void Volcano::job_enqueued(std::int32_t j) {
  const Job& job = jobs_[static_cast<std::size_t>(j)];
  const PluginOption* o = config_.conf.find(Plugin::kOvercommit);
  if (o && o->job_enqueued && job.has_min_resources) oc_inqueue_ += job.min_resources;
}

// ---- Node scores ----

void Volcano::read_score_weights() {
  if (const PluginOption* o = config_.conf.find(Plugin::kNodeorder); o && o->node_order) {
    weights_.nodeorder = true;
    weights_.least = o->number("leastrequested.weight", 1);
    weights_.most = o->number("mostrequested.weight", 0);
    weights_.balanced = o->number("balancedresource.weight", 1);
  }
  if (const PluginOption* o = config_.conf.find(Plugin::kBinpack); o && o->node_order) {
    weights_.binpack = true;
    weights_.binpack_weight = o->number("binpack.weight", 1);
    weights_.binpack_slot[kCpu] = o->number("binpack.cpu", 1);
    weights_.binpack_slot[kMemory] = o->number("binpack.memory", 1);
    const ResourceNames& names = store_.resource_names();
    for (std::size_t i = kEphemeralStorage + 1; i < names.size() && i < kMaxResources; ++i)
      weights_.binpack_slot[i] = o->number("binpack.resources." + names.name(i), 0);
  }
}

double Volcano::node_score(const PodTemplate& spec, const NodeInfo& node) const {
  double score = 0;
  const ScoreWeights& w = weights_;
  if (w.nodeorder) {
    // nodeorder.go: LeastAllocated (cpu 50, memory 50: non-zero requests), MostAllocated
    // (cpu 1, memory 1), BalancedAllocation (cpu, memory, nvidia.com/gpu: real requests).
    const std::int64_t cpu_req = node.nonzero_cpu + spec.nonzero_requests[kCpu];
    const std::int64_t mem_req = node.nonzero_memory + spec.nonzero_requests[kMemory];
    const bool both = node.allocatable[kCpu] > 0 && node.allocatable[kMemory] > 0;
    if (w.least != 0 && both)
      score += w.least * static_cast<double>((least_requested_score(cpu_req, node.allocatable[kCpu]) * 50 +
                                              least_requested_score(mem_req, node.allocatable[kMemory]) * 50) /
                                             100);
    if (w.most != 0 && both)
      score += w.most * static_cast<double>((most_requested_score(cpu_req, node.allocatable[kCpu]) +
                                             most_requested_score(mem_req, node.allocatable[kMemory])) /
                                            2);
    if (w.balanced != 0) {
      std::int64_t req[3], alloc[3];
      std::size_t n = 0;
      for (const int slot : {static_cast<int>(kCpu), static_cast<int>(kMemory), gpu_slot_})
        if (slot >= 0 && allocatable_and_requested(node, spec, static_cast<std::size_t>(slot), true, &alloc[n], &req[n])) ++n;
      score += w.balanced * static_cast<double>(balanced_resource_score(std::span<const std::int64_t>(req, n),
                                                                         std::span<const std::int64_t>(alloc, n)));
    }
  }
  if (w.binpack) {
    // binpack.go BinPackingScore: over the requested resources that have a weight,
    // (request + used) x weight / allocatable (0 past allocatable), / the weights' sum,
    // x 100 (MaxNodeScore) x binpack.weight.
    double s = 0, weights = 0;
    for (std::size_t i = 0; i < kMaxResources; ++i) {
      if (i == kEphemeralStorage || spec.requests[i] == 0 || w.binpack_slot[i] == 0) continue;
      const double cap = static_cast<double>(node.allocatable[i]);
      const double used = static_cast<double>(spec.requests[i] + node.requested[i]);
      if (cap != 0 && used <= cap) s += used * w.binpack_slot[i] / cap;
      weights += w.binpack_slot[i];
    }
    if (weights > 0) s /= weights;
    score += s * 100.0 * w.binpack_weight;
  }
  return score;
}

}  // namespace kubesim::volcano
