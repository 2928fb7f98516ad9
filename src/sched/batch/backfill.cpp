#include "sched/batch/backfill.hpp"

#include <algorithm>

namespace kubesim {

BackfillSchedule::Alloc& BackfillSchedule::alloc(std::uint32_t key) {
  if (key >= allocs_.size()) allocs_.resize(key + 1);
  return allocs_[key];
}

void BackfillSchedule::set_node(NodeId node, const Resources& allocatable, std::int64_t allowed_pods,
                                bool schedulable) {
  if (node.value() >= nodes_.size()) nodes_.resize(node.value() + 1);
  NodeState& n = nodes_[node.value()];
  if (!n.known) n.slices.push_back(Slice{SimTime::zero(), Resources{}, 0});
  n.known = true;
  n.allocatable = allocatable;
  n.allowed_pods = allowed_pods;
  n.schedulable = schedulable;
  ended_ = true;  // capacity changed: traverse the whole queue at the next decision
}

BackfillSchedule::Rejection BackfillSchedule::submit(std::uint32_t key, SimTime release, const Demand& demand,
                                                    Duration walltime) {
  // conservative_bf.cpp make_decisions: "else if (!new_job->has_walltime) ... Rejecting job
  // '%s' as it has no walltime" (add_reject_job). Tested before the size, as kubesim always
  // has (upstream tests the size first; both reject the job).
  if (reject_without_walltime_ && !(walltime > Duration())) return Rejection::kNoWalltime;
  // easy_bf.cpp / conservative_bf.cpp make_decisions: "if (new_job->nb_requested_resources >
  // _nb_machines) _decision->add_reject_job(...)" -- here: larger than every node.
  bool possible = false;
  for (const NodeState& n : nodes_) {
    if (!n.known) continue;
    bool ok = n.allowed_pods >= 1;
    for (std::size_t s = 0; s < kMaxResources && ok; ++s)
      if ((demand.slots >> s) & 1u) ok = demand.requests[s] <= n.allocatable[s];
    if (ok) {
      possible = true;
      break;
    }
  }
  if (!possible) return Rejection::kTooLarge;
  Alloc& a = alloc(key);
  a = Alloc{};
  a.state = State::kQueued;
  a.fresh = true;
  a.release = release;
  a.walltime = walltime;
  a.demand = demand;
  // Queue::append_job + sort_queue with the default FCFS order (release time, then arrival).
  auto pos = std::upper_bound(queue_.begin(), queue_.end(), key, [&](std::uint32_t k, std::uint32_t q) {
    const SimTime rq = allocs_[q].release;
    return release < rq || (release == rq && k < q);
  });
  queue_.insert(pos, key);
  return Rejection::kNone;
}

void BackfillSchedule::withdraw(std::uint32_t key) {
  if (!queued(key)) return;
  Alloc& a = allocs_[key];
  if (a.placed) unplace(a);
  a.state = State::kNone;
  queue_.erase(std::find(queue_.begin(), queue_.end(), key));
  ended_ = true;
}

void BackfillSchedule::occupy(std::uint32_t key, NodeId node, SimTime now, SimTime end, const Demand& demand) {
  if (node.value() >= nodes_.size() || !nodes_[node.value()].known) return;
  Alloc& a = alloc(key);
  if (a.state == State::kRunning) return;  // already accounted (decided here)
  if (a.state == State::kQueued) withdraw(key);
  a = Alloc{};
  a.state = State::kRunning;
  a.demand = demand;
  update_first_slice(nodes_[node.value()], now);
  place(a, node, now, std::max(end, now + Duration::micros(1)));
  running_.push_back(key);
}

void BackfillSchedule::release(std::uint32_t key) {
  if (key >= allocs_.size()) return;
  Alloc& a = allocs_[key];
  if (a.state == State::kQueued) return withdraw(key);
  if (a.state != State::kRunning) return;
  if (a.placed) unplace(a);
  a.state = State::kNone;
  running_.erase(std::find(running_.begin(), running_.end(), key));
  ended_ = true;  // batsched: _jobs_ended_recently is not empty
}

std::size_t BackfillSchedule::split(NodeState& n, SimTime t) {
  auto it = std::lower_bound(n.slices.begin(), n.slices.end(), t,
                             [](const Slice& s, SimTime x) { return s.begin < x; });
  if (it != n.slices.end() && it->begin == t) return static_cast<std::size_t>(it - n.slices.begin());
  // t falls inside the previous slice: cut it in two.
  const std::size_t i = static_cast<std::size_t>(it - n.slices.begin());
  Slice copy = n.slices[i - 1];
  copy.begin = t;
  n.slices.insert(n.slices.begin() + static_cast<std::ptrdiff_t>(i), copy);
  return i;
}

void BackfillSchedule::apply(Alloc& a, int sign) {
  NodeState& n = nodes_[a.node.value()];
  const SimTime begin = std::max(a.begin, n.slices.front().begin);
  if (!(begin < a.end)) return;
  const std::size_t first = split(n, begin);
  const std::size_t last = a.end.is_never() ? n.slices.size() : split(n, a.end);
  for (std::size_t i = first; i < last; ++i) {
    Slice& s = n.slices[i];
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if ((a.demand.slots >> r) & 1u) s.used[r] += sign * a.demand.requests[r];
    s.pods += sign;
  }
  // Schedule::remove_job merges slices that became identical; keep the profile short.
  if (sign < 0) {
    std::size_t out = 0;
    for (std::size_t i = 1; i < n.slices.size(); ++i) {
      if (n.slices[i].used == n.slices[out].used && n.slices[i].pods == n.slices[out].pods) continue;
      n.slices[++out] = n.slices[i];
    }
    n.slices.resize(out + 1);
  }
}

void BackfillSchedule::place(Alloc& a, NodeId node, SimTime begin, SimTime end) {
  a.node = node;
  a.begin = begin;
  a.end = end;
  a.placed = true;
  apply(a, +1);
}

void BackfillSchedule::unplace(Alloc& a) {
  apply(a, -1);
  a.placed = false;
}

void BackfillSchedule::update_first_slice(NodeState& n, SimTime now) {
  // Schedule::update_first_slice: the past is forgotten; the first slice begins now.
  std::size_t keep = 0;
  while (keep + 1 < n.slices.size() && n.slices[keep + 1].begin <= now) ++keep;
  if (keep > 0) n.slices.erase(n.slices.begin(), n.slices.begin() + static_cast<std::ptrdiff_t>(keep));
  if (n.slices.front().begin < now) n.slices.front().begin = now;
}

bool BackfillSchedule::fits(const NodeState& n, const Slice& s, const Demand& d) const {
  if (s.pods + 1 > n.allowed_pods) return false;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (((d.slots >> r) & 1u) && s.used[r] + d.requests[r] > n.allocatable[r]) return false;
  return true;
}

SimTime BackfillSchedule::earliest_fit(const NodeState& n, SimTime now, const Demand& d, Duration walltime) const {
  // Schedule::add_job_first_fit: the earliest slice start t such that the job fits in every
  // slice overlapping [t, t + walltime).
  SimTime candidate = now;
  for (std::size_t i = 0; i < n.slices.size(); ++i) {
    const SimTime slice_end = i + 1 < n.slices.size() ? n.slices[i + 1].begin : SimTime::never();
    if (slice_end <= candidate) continue;
    if (!fits(n, n.slices[i], d)) {
      candidate = slice_end;
      if (candidate.is_never()) return candidate;
      continue;
    }
    if (slice_end.is_never() || (walltime > Duration() && slice_end >= candidate + walltime)) return candidate;
  }
  return SimTime::never();
}

void BackfillSchedule::decide(SimTime now, std::vector<Start>& out) {
  for (NodeState& n : nodes_)
    if (n.known) update_first_slice(n, now);
  // A running job past its walltime estimate (kubesim's kill and status report come after the
  // deadline) still holds its node: it ends "just after now". Batsim kills exactly at the
  // walltime, so batsched never sees this.
  for (const std::uint32_t key : running_) {
    Alloc& a = allocs_[key];
    if (a.end <= now) {
      unplace(a);
      place(a, a.node, now, now + Duration::micros(1));
      ended_ = true;
    }
  }
  // A reservation that is due but did not start (its blocker overran): traverse everything.
  bool full = ended_;
  for (const std::uint32_t key : queue_)
    if (allocs_[key].placed && allocs_[key].begin <= now) full = true;
  ended_ = false;

  std::uint32_t reserved = 0;
  std::size_t kept = 0;
  for (std::size_t qi = 0; qi < queue_.size(); ++qi) {
    const std::uint32_t key = queue_[qi];
    Alloc& a = allocs_[key];
    const bool try_it = full || a.fresh;
    a.fresh = false;
    if (!try_it) {
      // easy_bf.cpp: "If no resources have been released, we can just try to backfill the
      // newly-released jobs"; conservative_bf.cpp keeps the reservations as they are.
      if (depth_ == 0) {  // fcfs_fast: the blocked head still blocks
        for (; qi < queue_.size(); ++qi) {
          allocs_[queue_[qi]].fresh = false;
          queue_[kept++] = queue_[qi];
        }
        break;
      }
      if (a.placed) ++reserved;
      queue_[kept++] = key;
      continue;
    }
    // conservative_bf.cpp compression: remove_job_if_exists, then add_job_first_fit; easy_bf.cpp
    // likewise removes the priority job before re-inserting it.
    if (a.placed) unplace(a);
    ++attempts_;
    SimTime best = SimTime::never();
    NodeId best_node;
    for (std::size_t ni = 0; ni < nodes_.size(); ++ni) {
      const NodeState& n = nodes_[ni];
      if (!n.known || !n.schedulable) continue;
      if (eligible_ && !eligible_(key, NodeId(static_cast<std::uint32_t>(ni)))) continue;
      const SimTime t = earliest_fit(n, now, a.demand, a.walltime);
      if (t < best) {
        best = t;
        best_node = NodeId(static_cast<std::uint32_t>(ni));
        if (t == now) break;  // lowest node that starts now
      }
    }
    if (best == now) {
      // alloc.started_in_first_slice: _decision->add_execute_job, _queue->remove_job.
      a.state = State::kRunning;
      place(a, best_node, now, end_of(now, a.walltime));
      running_.push_back(key);
      out.push_back(Start{key, best_node});
      continue;
    }
    queue_[kept++] = key;
    if (depth_ == 0) {
      // fcfs_fast: stop at the first job that does not fit now.
      for (++qi; qi < queue_.size(); ++qi) {
        allocs_[queue_[qi]].fresh = false;
        queue_[kept++] = queue_[qi];
      }
      break;
    }
    if (reserved < depth_ && !best.is_never()) {
      // The priority job (EASY) / every job (conservative) keeps its reservation.
      place(a, best_node, best, end_of(best, a.walltime));
      ++reserved;
    }
    // Otherwise easy_bf.cpp: "_schedule.remove_job(job)" -- no reservation.
  }
  queue_.resize(kept);
}

SimTime BackfillSchedule::reservation_of(std::uint32_t key) const {
  if (!queued(key) || !allocs_[key].placed) return SimTime::never();
  return allocs_[key].begin;
}

NodeId BackfillSchedule::node_of(std::uint32_t key) const {
  if (key >= allocs_.size() || !allocs_[key].placed) return NodeId();
  return allocs_[key].node;
}

}  // namespace kubesim
