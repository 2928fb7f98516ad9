// YuniKorn core's queues: usage, priorities, sorting, headroom, the depth-first walk of one
// allocation attempt, and the victims a preemption may take.
//
// Upstream: yunikorn-core pkg/scheduler/objects/queue.go (TryAllocate, TryReservedAllocate,
// TryPlaceholderAllocate, getHeadRoom/internalHeadRoom, canRunApp, recalculatePriority,
// GetActualGuaranteedResources, FindEligiblePreemptionVictims) and sorters.go (sortQueue,
// sortApplications).
#include <algorithm>
#include <cstddef>
#include <limits>

#include "sched/yunikorn/yunikorn.hpp"

namespace kubesim::yunikorn {

namespace {

std::int32_t clamp32(std::int64_t v) {
  return static_cast<std::int32_t>(
      std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

}  // namespace

void YuniKorn::add_to_queues(int leaf, const Res& r, Res QueueState::*field, int sign) {
  for (int q = leaf; q >= 0; q = config_.queues[q].parent) {
    if (sign > 0) queues_[q].*field += r;
    else queues_[q].*field -= r;
  }
}

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

void YuniKorn::collect_victims(int q, std::int64_t priority, int ask_leaf, std::int64_t ask_priority) {
  const QueueConf& qc = config_.queues[q];
  if (qc.leaf) {
    if (q == ask_leaf) return;  // no preemption inside the ask's own queue
    if (qc.preemption == PreemptionPolicy::kDisabled) return;
    // Skip a queue within its guarantee; a queue with nothing guaranteed is always a victim
    // queue (YUNIKORN-1951).
    const Res g = effective_guaranteed(q);
    if (!g.empty() && fit_in_max_undef(g, queues_[q].allocated)) return;
    // The queue's allocations node by node, each node's oldest first (the cache's lists are
    // in no order: node_seq gives it). Upstream walks maps here; the order is the model's.
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const std::size_t first = candidates_.size();
      for (PodId v : cache_.pods_on(NodeId(static_cast<std::uint32_t>(i)))) {
        const PodState& ps = pods_[v.value()];
        // (Other schedulers' pods, and a real pod waiting for its placeholder: not the queue's.)
        if (ps.kind != PodState::kAllocated || ps.preempted || apps_[ps.app].queue != q) continue;
        if (!store_.spec_of(v).node_name.empty()) continue;  // a required node
        if (ps.priority <= priority) candidates_.push_back(v);
      }
      if (candidates_.size() - first > 1)
        std::sort(candidates_.begin() + static_cast<std::ptrdiff_t>(first), candidates_.end(),
                  [&](PodId l, PodId r) { return pods_[l.value()].node_seq < pods_[r.value()].node_seq; });
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

std::vector<std::string> YuniKorn::queue_order(const std::string& parent_path) {
  refresh_priorities();
  std::vector<int> out;
  sort_children(config_.find(parent_path), false, out);
  std::vector<std::string> names;
  for (int q : out) names.push_back(config_.queues[q].path);
  return names;
}

std::int32_t YuniKorn::queue_priority(const std::string& path) {
  refresh_priorities();
  return queues_[config_.find(path)].priority;
}

}  // namespace kubesim::yunikorn
