#include "sched/kube/scheduling_queue.hpp"

#include "core/error.hpp"
#include "sched/kube/framework.hpp"

namespace kubesim {

bool SchedulingQueue::active_less(const SchedulingQueue& q, PodId a, PodId b) {
  // PrioritySort (queuesort/priority_sort.go): higher priority, then earlier Timestamp.
  const Info& x = q.info_[a.value()];
  const Info& y = q.info_[b.value()];
  if (q.sort_) return q.sort_->less(a, x.initial_attempt, b, y.initial_attempt);
  if (x.priority != y.priority) return x.priority > y.priority;
  if (x.timestamp != y.timestamp) return x.timestamp < y.timestamp;
  if (x.initial_attempt != y.initial_attempt) return x.initial_attempt < y.initial_attempt;
  return a < b;
}

bool SchedulingQueue::backoff_less(const SchedulingQueue& q, PodId a, PodId b) {
  const Info& x = q.info_[a.value()];
  const Info& y = q.info_[b.value()];
  const SimTime ex = q.backoff_expiry(x);
  const SimTime ey = q.backoff_expiry(y);
  if (ex != ey) return ex < ey;
  if (x.initial_attempt != y.initial_attempt) return x.initial_attempt < y.initial_attempt;
  return a < b;
}

void SchedulingQueue::Heap::push(PodId p) {
  items_.push_back(p);
  place(items_.size() - 1, p);
  up(items_.size() - 1);
}

void SchedulingQueue::Heap::erase(PodId p) {
  const std::size_t i = q_.info_[p.value()].heap_pos;
  KUBESIM_ASSERT(i < items_.size() && items_[i] == p);
  const PodId last = items_.back();
  items_.pop_back();
  if (i == items_.size()) return;
  place(i, last);
  up(i);
  down(q_.info_[last.value()].heap_pos);
}

void SchedulingQueue::Heap::up(std::size_t i) {
  const PodId p = items_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!less_(q_, p, items_[parent])) break;
    place(i, items_[parent]);
    i = parent;
  }
  place(i, p);
}

void SchedulingQueue::Heap::down(std::size_t i) {
  const PodId p = items_[i];
  const std::size_t n = items_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && less_(q_, items_[child + 1], items_[child])) ++child;
    if (!less_(q_, items_[child], p)) break;
    place(i, items_[child]);
    i = child;
  }
  place(i, p);
}

SchedulingQueue::Info& SchedulingQueue::info(PodId pod) {
  if (pod.value() >= info_.size()) info_.resize(pod.value() + 1);
  return info_[pod.value()];
}

Duration SchedulingQueue::backoff_duration(std::uint32_t attempts) const {
  // calculateBackoffDuration: doubles per attempt after the first, capped at max.
  Duration d = config_.initial_backoff;
  for (std::uint32_t i = 1; i < attempts; ++i) {
    if (d > config_.max_backoff - d) return config_.max_backoff;
    d = d + d;
  }
  return d;
}

void SchedulingQueue::to_active(PodId pod) {
  info_[pod.value()].where = Where::kActive;
  active_.push(pod);
}

void SchedulingQueue::to_backoff(PodId pod) {
  info_[pod.value()].where = Where::kBackoff;
  backoff_.push(pod);
}

void SchedulingQueue::to_unschedulable(PodId pod) {
  Info& i = info_[pod.value()];
  i.where = Where::kUnschedulable;
  i.prev = unschedulable_tail_;
  i.next = PodId();
  if (unschedulable_tail_.valid()) {
    info_[unschedulable_tail_.value()].next = pod;
  } else {
    unschedulable_head_ = pod;
  }
  unschedulable_tail_ = pod;
  ++unschedulable_count_;
}

void SchedulingQueue::take_out(PodId pod) {
  Info& i = info_[pod.value()];
  switch (i.where) {
    case Where::kNone: return;
    case Where::kActive: active_.erase(pod); break;
    case Where::kBackoff: backoff_.erase(pod); break;
    case Where::kUnschedulable:
      if (i.prev.valid()) {
        info_[i.prev.value()].next = i.next;
      } else {
        unschedulable_head_ = i.next;
      }
      if (i.next.valid()) {
        info_[i.next.value()].prev = i.prev;
      } else {
        unschedulable_tail_ = i.prev;
      }
      --unschedulable_count_;
      break;
  }
  i.where = Where::kNone;
}

void SchedulingQueue::add(PodId pod, std::int32_t priority, SimTime now) {
  Info& i = info(pod);
  if (i.where != Where::kNone) return;  // already queued
  i.timestamp = now;
  i.initial_attempt = now;
  i.priority = priority;
  to_active(pod);
}

std::optional<PodId> SchedulingQueue::pop() {
  if (active_.empty()) return std::nullopt;
  const PodId pod = active_.top();
  take_out(pod);
  info_[pod.value()].attempts++;
  scheduling_cycle_++;
  return pod;
}

void SchedulingQueue::add_unschedulable_if_not_present(PodId pod, std::uint32_t interested_events,
                                                       std::uint64_t pod_cycle, SimTime now) {
  Info& i = info(pod);
  if (i.where != Where::kNone) return;  // "if not present"
  i.timestamp = now;
  i.interested_events = interested_events;
  if (move_request_cycle_ >= static_cast<std::int64_t>(pod_cycle)) {
    to_backoff(pod);
  } else {
    to_unschedulable(pod);
  }
}

void SchedulingQueue::move_pods(const std::vector<PodId>& pods, std::uint32_t event, SimTime now) {
  for (PodId pod : pods) {
    const Info& i = info_[pod.value()];
    // podMatchesEvent: a pod without UnschedulablePlugins matches every event.
    if (i.interested_events != 0 && (i.interested_events & event) == 0) continue;
    take_out(pod);
    if (backoff_expiry(i) > now) {  // isPodBackingoff
      to_backoff(pod);
    } else {
      to_active(pod);
    }
  }
  move_request_cycle_ = static_cast<std::int64_t>(scheduling_cycle_);
}

void SchedulingQueue::move_all(std::uint32_t event, SimTime now, const std::function<bool(PodId)>* pre_check) {
  scratch_.clear();
  for (PodId p = unschedulable_head_; p.valid(); p = info_[p.value()].next)
    if (!pre_check || (*pre_check)(p)) scratch_.push_back(p);
  std::vector<PodId> pods;
  pods.swap(scratch_);
  move_pods(pods, event, now);
  pods.swap(scratch_);
}

void SchedulingQueue::flush_backoff_completed(SimTime now) {
  while (!backoff_.empty()) {
    const PodId pod = backoff_.top();
    if (backoff_expiry(info_[pod.value()]) > now) break;
    take_out(pod);
    to_active(pod);
  }
}

void SchedulingQueue::flush_unschedulable_leftover(SimTime now) {
  scratch_.clear();
  for (PodId p = unschedulable_head_; p.valid(); p = info_[p.value()].next) {
    if (now - info_[p.value()].timestamp > config_.max_in_unschedulable) {
      scratch_.push_back(p);
    } else {
      break;  // the list is in Timestamp order
    }
  }
  if (scratch_.empty()) return;
  std::vector<PodId> pods;
  pods.swap(scratch_);
  move_pods(pods, kEventAll, now);
  pods.swap(scratch_);
}

// scheduling_queue.go activate: only pods in unschedulablePods or backoffQ move.
bool SchedulingQueue::activate(PodId pod) {
  if (pod.value() >= info_.size()) return false;
  const Where w = info_[pod.value()].where;
  if (w != Where::kUnschedulable && w != Where::kBackoff) return false;
  take_out(pod);
  to_active(pod);
  return true;
}

void SchedulingQueue::remove(PodId pod) {
  if (pod.value() < info_.size()) take_out(pod);
}

SimTime SchedulingQueue::next_backoff_expiry() const {
  return backoff_.empty() ? SimTime::never() : backoff_expiry(info_[backoff_.top().value()]);
}

SimTime SchedulingQueue::oldest_unschedulable() const {
  return unschedulable_head_.valid() ? info_[unschedulable_head_.value()].timestamp : SimTime::never();
}

void QueueFlushTicks::arm(const SchedulingQueue& queue, const QueueConfig& config, SimTime now, SchedulerHost& host) {
  auto arm_one = [&](SimTime earliest, Duration period, Duration phase, SimTime last_tick, SimTime& armed,
                     bool strictly_after, bool backoff) {
    if (earliest.is_never()) return;
    const std::int64_t p = period.micros(), o = phase.micros();
    // The first tick at or after `from` (phase o < p, so from - o + p > 0).
    auto tick_from = [&](std::int64_t from) { return (from - o + p - 1 + p) / p * p - p + o; };
    std::int64_t t = tick_from(earliest.micros());
    if (strictly_after && t == earliest.micros()) t += p;
    if (!last_tick.is_never() && t <= last_tick.micros()) t = last_tick.micros() + p;
    if (t < now.micros()) t = tick_from(now.micros());
    const SimTime at = SimTime::at(Duration::micros(t));
    if (!armed.is_never() && armed <= at) return;
    armed = at;
    host.post(at, Phase::kQueueTimer,
              SchedulerEvent{backoff ? SchedulerEvent::Kind::kBackoffTick : SchedulerEvent::Kind::kLeftoverTick, PodId(),
                             NodeId()});
  };
  arm_one(queue.next_backoff_expiry(), config.backoff_flush_period, config.backoff_flush_phase, last_backoff_,
          armed_backoff_, false, true);
  const SimTime oldest = queue.oldest_unschedulable();
  arm_one(oldest.is_never() ? oldest : oldest + config.max_in_unschedulable, config.leftover_flush_period,
          config.leftover_flush_phase, last_leftover_, armed_leftover_, true, false);
}

void QueueFlushTicks::on_tick(SchedulingQueue& queue, bool backoff, SimTime now) {
  SimTime& last = backoff ? last_backoff_ : last_leftover_;
  SimTime& armed = backoff ? armed_backoff_ : armed_leftover_;
  last = now;
  if (armed == now) armed = SimTime::never();
  if (backoff) {
    queue.flush_backoff_completed(now);
  } else {
    queue.flush_unschedulable_leftover(now);
  }
}

}  // namespace kubesim
