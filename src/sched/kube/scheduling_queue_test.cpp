// SchedulingQueue against pkg/scheduler/internal/queue/scheduling_queue.go (v1.26):
// Pop, AddUnschedulableIfNotPresent, MoveAllToActiveOrBackoffQueue (podMatchesEvent,
// isPodBackingoff: backoff expiry strictly after now), calculateBackoffDuration,
// flushBackoffQCompleted (expiry not after now) and flushUnschedulablePodsLeftover
// (now - Timestamp > podMaxInUnschedulablePodsDuration, strictly).
#include "sched/kube/scheduling_queue.hpp"

#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "sched/kube/framework.hpp"
#include "testing/fake_scheduler_host.hpp"

namespace kubesim {
namespace {

using Where = SchedulingQueue::Where;

SimTime sec(double s) { return SimTime::from_seconds(s); }
PodId pod(std::uint32_t i) { return PodId(i); }

std::vector<std::uint32_t> drain(SchedulingQueue& q) {
  std::vector<std::uint32_t> out;
  while (auto p = q.pop()) out.push_back(p->value());
  return out;
}

// Pops `p` (which must be the head) and returns the scheduling cycle it was popped in.
std::uint64_t pop_expect(SchedulingQueue& q, PodId p) {
  auto got = q.pop();
  EXPECT_TRUE(got.has_value());
  if (got) {
    EXPECT_EQ(*got, p);
  }
  return q.scheduling_cycle();
}

TEST(SchedulingQueue, PrioritySortOrder) {
  // queuesort/priority_sort.go Less: higher priority first, then earlier Timestamp.
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  q.add(pod(1), 10, sec(1));
  q.add(pod(2), 10, sec(0));
  q.add(pod(3), 0, sec(0));   // ties with pod 0: creation order
  q.add(pod(4), -5, sec(0));
  q.add(pod(5), 0, sec(2));
  q.add(pod(6), 1000, sec(3));
  EXPECT_EQ(q.active_size(), 7u);
  EXPECT_EQ(drain(q), (std::vector<std::uint32_t>{6, 2, 1, 0, 3, 5, 4}));
}

TEST(SchedulingQueue, AddTwiceIsNoOp) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  q.add(pod(0), 5, sec(1));
  EXPECT_EQ(q.active_size(), 1u);
  EXPECT_EQ(q.where(pod(0)), Where::kActive);
}

TEST(SchedulingQueue, PopIncrementsAttemptsAndCycle) {
  SchedulingQueue q{QueueConfig{}};
  EXPECT_FALSE(q.pop().has_value());
  EXPECT_EQ(q.scheduling_cycle(), 0u);  // an empty Pop does not start a cycle
  q.add(pod(0), 0, sec(0));
  q.add(pod(1), 0, sec(1));
  EXPECT_EQ(q.attempts(pod(0)), 0u);
  EXPECT_EQ(pop_expect(q, pod(0)), 1u);
  EXPECT_EQ(q.attempts(pod(0)), 1u);
  EXPECT_EQ(q.where(pod(0)), Where::kNone);
  EXPECT_EQ(pop_expect(q, pod(1)), 2u);
  EXPECT_EQ(q.attempts(pod(1)), 1u);
  // Re-queued and popped again: attempts 2.
  q.add_unschedulable_if_not_present(pod(0), 0, 1, sec(5));
  q.move_all(kEventPodDelete, sec(100));
  EXPECT_EQ(pop_expect(q, pod(0)), 3u);
  EXPECT_EQ(q.attempts(pod(0)), 2u);
  EXPECT_EQ(q.attempts(pod(99)), 0u);
  EXPECT_EQ(q.where(pod(99)), Where::kNone);
}

TEST(SchedulingQueue, UnschedulableWithoutMoveRequest) {
  SchedulingQueue q{QueueConfig{}};
  q.record_move_request();  // before the pod's cycle: moveRequestCycle 0 < cycle 1
  q.add(pod(0), 0, sec(0));
  const auto cycle = pop_expect(q, pod(0));
  q.add_unschedulable_if_not_present(pod(0), kEventNodeAdd, cycle, sec(0.5));
  EXPECT_EQ(q.where(pod(0)), Where::kUnschedulable);
  EXPECT_EQ(q.unschedulable_size(), 1u);
  EXPECT_EQ(q.oldest_unschedulable(), sec(0.5));  // Timestamp = now
  EXPECT_TRUE(q.backoff_empty());
  EXPECT_TRUE(q.next_backoff_expiry().is_never());
}

TEST(SchedulingQueue, BackoffWhenMoveRequestDuringCycle) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  const auto cycle = pop_expect(q, pod(0));
  q.record_move_request();  // e.g. AssignedPodAdded while pod 0 was being scheduled
  q.add_unschedulable_if_not_present(pod(0), kEventNodeAdd, cycle, sec(2));
  EXPECT_EQ(q.where(pod(0)), Where::kBackoff);
  EXPECT_EQ(q.backoff_size(), 1u);
  EXPECT_EQ(q.next_backoff_expiry(), sec(3));  // Timestamp 2 s + backoff(1 attempt) 1 s
}

TEST(SchedulingQueue, MoveRequestForAnEarlierCycleDoesNotCount) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  q.add(pod(1), 0, sec(0));
  const auto c0 = pop_expect(q, pod(0));
  q.record_move_request();  // moveRequestCycle = 1
  const auto c1 = pop_expect(q, pod(1));  // cycle 2
  q.add_unschedulable_if_not_present(pod(1), 0, c1, sec(0));
  EXPECT_EQ(q.where(pod(1)), Where::kUnschedulable);
  q.add_unschedulable_if_not_present(pod(0), 0, c0, sec(0));
  EXPECT_EQ(q.where(pod(0)), Where::kBackoff);  // 1 >= 1
}

TEST(SchedulingQueue, EveryMoveAllRecordsAMoveRequest) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  const auto cycle = pop_expect(q, pod(0));
  q.move_all(kEventNodeAdd, sec(0));  // moves nothing, still sets moveRequestCycle
  q.add_unschedulable_if_not_present(pod(0), kEventNodeAdd, cycle, sec(0));
  EXPECT_EQ(q.where(pod(0)), Where::kBackoff);
}

TEST(SchedulingQueue, AddUnschedulableIfNotPresentIgnoresQueuedPod) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  q.add_unschedulable_if_not_present(pod(0), 0, 0, sec(1));
  EXPECT_EQ(q.where(pod(0)), Where::kActive);
  EXPECT_EQ(q.unschedulable_size(), 0u);
}

TEST(SchedulingQueue, BackoffDurationsDefaults) {
  // calculateBackoffDuration with podInitialBackoffSeconds=1, podMaxBackoffSeconds=10.
  SchedulingQueue q{QueueConfig{}};
  const std::int64_t want[] = {1, 2, 4, 8, 10, 10, 10};
  for (std::uint32_t a = 1; a <= 7; ++a) EXPECT_EQ(q.backoff_duration(a), Duration::seconds(want[a - 1])) << a;
  EXPECT_EQ(q.backoff_duration(0), Duration::seconds(1));  // loop does not run
  EXPECT_EQ(q.backoff_duration(1000), Duration::seconds(10));
}

TEST(SchedulingQueue, BackoffDurationsCustom) {
  QueueConfig c;
  c.initial_backoff = Duration::seconds(2);
  c.max_backoff = Duration::seconds(5);
  SchedulingQueue q{c};
  EXPECT_EQ(q.backoff_duration(1), Duration::seconds(2));
  EXPECT_EQ(q.backoff_duration(2), Duration::seconds(4));
  EXPECT_EQ(q.backoff_duration(3), Duration::seconds(5));
  EXPECT_EQ(q.backoff_duration(4), Duration::seconds(5));
}

// Puts pods 0..n-1 into unschedulablePods, failing at `failed_at`, each with attempts 1.
void make_unschedulable(SchedulingQueue& q, const std::vector<std::uint32_t>& events, SimTime failed_at) {
  for (std::uint32_t i = 0; i < events.size(); ++i) q.add(pod(i), 0, SimTime::zero());
  for (std::uint32_t i = 0; i < events.size(); ++i) {
    auto p = q.pop();
    ASSERT_TRUE(p);
    q.add_unschedulable_if_not_present(*p, events[p->value()], q.scheduling_cycle(), failed_at);
  }
  ASSERT_EQ(q.unschedulable_size(), events.size());
}

TEST(SchedulingQueue, MoveAllMovesOnlyInterestedPods) {
  SchedulingQueue q{QueueConfig{}};
  // pod 0: NodeResourcesFit-like interest; pod 1: NodeAffinity-like; pod 2: no plugin known.
  make_unschedulable(q, {kEventPodDelete | kEventNodeAdd, kEventNodeAdd | kEventNodeLabel, 0}, sec(10));
  q.move_all(kEventPodDelete, sec(20));  // long after back-off: to activeQ
  EXPECT_EQ(q.where(pod(0)), Where::kActive);
  EXPECT_EQ(q.where(pod(1)), Where::kUnschedulable);
  EXPECT_EQ(q.where(pod(2)), Where::kActive);
  EXPECT_EQ(q.unschedulable_size(), 1u);
  q.move_all(kEventNodeLabel, sec(20));
  EXPECT_EQ(q.where(pod(1)), Where::kActive);
  EXPECT_EQ(q.unschedulable_size(), 0u);
  EXPECT_TRUE(q.oldest_unschedulable().is_never());
}

TEST(SchedulingQueue, MoveAllToBackoffWhileBackingOff) {
  // isPodBackingoff: backoffTime (Timestamp + backoff(attempts)) .After(now).
  struct Case {
    double now;
    Where where;
  };
  const Case cases[] = {{10.0, Where::kBackoff}, {10.999999, Where::kBackoff}, {11.0, Where::kActive},
                        {11.5, Where::kActive}};
  for (const auto& c : cases) {
    SchedulingQueue q{QueueConfig{}};
    make_unschedulable(q, {kEventNodeAdd}, sec(10));  // attempts 1 -> 1 s
    q.move_all(kEventNodeAdd, sec(c.now));
    EXPECT_EQ(q.where(pod(0)), c.where) << c.now;
  }
}

TEST(SchedulingQueue, MoveAllBackoffGrowsWithAttempts) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  // Three failed attempts: back-off 4 s from the last Timestamp.
  for (int i = 0; i < 3; ++i) {
    auto p = q.pop();
    ASSERT_TRUE(p);
    q.add_unschedulable_if_not_present(pod(0), 0, q.scheduling_cycle(), sec(100));
    if (i < 2) q.move_all(kEventAll, sec(1000));
  }
  EXPECT_EQ(q.attempts(pod(0)), 3u);
  q.move_all(kEventNodeAdd, sec(103.5));
  EXPECT_EQ(q.where(pod(0)), Where::kBackoff);
  EXPECT_EQ(q.next_backoff_expiry(), sec(104));
}

TEST(SchedulingQueue, MoveAllPreCheck) {
  SchedulingQueue q{QueueConfig{}};
  make_unschedulable(q, {0, 0, 0}, sec(0));
  const std::function<bool(PodId)> only_odd = [](PodId p) { return p.value() % 2 == 1; };
  q.move_all(kEventNodeAdd, sec(100), &only_odd);
  EXPECT_EQ(q.where(pod(0)), Where::kUnschedulable);
  EXPECT_EQ(q.where(pod(1)), Where::kActive);
  EXPECT_EQ(q.where(pod(2)), Where::kUnschedulable);
}

TEST(SchedulingQueue, FlushBackoffCompleted) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  q.add(pod(1), 0, sec(0));
  const auto c0 = pop_expect(q, pod(0));
  const auto c1 = pop_expect(q, pod(1));
  q.record_move_request();
  q.add_unschedulable_if_not_present(pod(1), 0, c1, sec(5));  // expires at 6
  q.add_unschedulable_if_not_present(pod(0), 0, c0, sec(4));  // expires at 5
  ASSERT_EQ(q.backoff_size(), 2u);
  EXPECT_EQ(q.next_backoff_expiry(), sec(5));
  q.flush_backoff_completed(sec(4.999999));
  EXPECT_EQ(q.backoff_size(), 2u);
  q.flush_backoff_completed(sec(5));  // expiry not After(now): moved
  EXPECT_EQ(q.where(pod(0)), Where::kActive);
  EXPECT_EQ(q.where(pod(1)), Where::kBackoff);
  EXPECT_EQ(q.next_backoff_expiry(), sec(6));
  q.flush_backoff_completed(sec(7));
  EXPECT_EQ(q.where(pod(1)), Where::kActive);
  EXPECT_TRUE(q.backoff_empty());
  EXPECT_TRUE(q.next_backoff_expiry().is_never());
}

TEST(SchedulingQueue, FlushUnschedulableLeftoverStrictlyAfterFiveMinutes) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  q.add(pod(1), 0, sec(0));
  const auto c0 = pop_expect(q, pod(0));
  const auto c1 = pop_expect(q, pod(1));
  q.add_unschedulable_if_not_present(pod(0), kEventNodeAdd, c0, sec(10));
  q.add_unschedulable_if_not_present(pod(1), kEventNodeLabel, c1, sec(20));
  q.flush_unschedulable_leftover(sec(310));  // exactly 300 s: not more than 5 min
  EXPECT_EQ(q.unschedulable_size(), 2u);
  q.flush_unschedulable_leftover(sec(310.000001));
  // UnschedulableTimeout is a wildcard event: moves regardless of interests.
  EXPECT_EQ(q.where(pod(0)), Where::kActive);
  EXPECT_EQ(q.where(pod(1)), Where::kUnschedulable);
  EXPECT_EQ(q.oldest_unschedulable(), sec(20));
  q.flush_unschedulable_leftover(sec(400));
  EXPECT_EQ(q.where(pod(1)), Where::kActive);
}

// The flush loops tick at their phase plus multiples of the period (QueueConfig): a pod whose
// back-off ends at 5.0 s is flushed at 5.3 s when the loop ticks at .3, and the leftover flush
// of a pod unschedulable since 10 s (300 s and more) comes at the first tick after 310 s.
TEST(QueueFlushTicks, TicksFallOnTheLoopsPhase) {
  testing::FakeSchedulerHost host;
  QueueConfig config;
  config.backoff_flush_phase = Duration::from_seconds(0.3);
  config.leftover_flush_phase = Duration::from_seconds(12.3);
  SchedulingQueue q{config};
  q.add(pod(0), 0, sec(0));
  q.add(pod(1), 0, sec(0));
  const auto c0 = pop_expect(q, pod(0));
  const auto c1 = pop_expect(q, pod(1));
  q.add_unschedulable_if_not_present(pod(1), 0, c1, sec(10));
  q.record_move_request();
  q.add_unschedulable_if_not_present(pod(0), 0, c0, sec(4));  // back-off expires at 5
  QueueFlushTicks ticks;
  ticks.arm(q, config, sec(4), host);
  ASSERT_EQ(host.posted().size(), 2u);
  EXPECT_EQ(host.posted()[0].at, sec(5.3));
  EXPECT_EQ(host.posted()[0].event.kind, SchedulerEvent::Kind::kBackoffTick);
  EXPECT_EQ(host.posted()[1].at, sec(312.3));
  EXPECT_EQ(host.posted()[1].event.kind, SchedulerEvent::Kind::kLeftoverTick);
}

TEST(SchedulingQueue, Remove) {
  SchedulingQueue q{QueueConfig{}};
  q.add(pod(0), 0, sec(0));
  q.add(pod(1), 0, sec(0));
  q.add(pod(2), 0, sec(0));
  q.remove(pod(1));
  q.remove(pod(77));  // unknown: no-op
  EXPECT_EQ(q.where(pod(1)), Where::kNone);
  EXPECT_EQ(drain(q), (std::vector<std::uint32_t>{0, 2}));
  make_unschedulable(q, {0, 0, 0}, sec(0));
  q.remove(pod(1));
  EXPECT_EQ(q.unschedulable_size(), 2u);
  q.move_all(kEventAll, sec(100));
  EXPECT_EQ(drain(q), (std::vector<std::uint32_t>{0, 2}));
}

TEST(SchedulingQueue, ManyPodsStaySorted) {
  SchedulingQueue q{QueueConfig{}};
  for (std::uint32_t i = 0; i < 500; ++i)
    q.add(pod(i), static_cast<std::int32_t>((i * 37) % 7), sec(static_cast<double>((i * 13) % 11)));
  std::int32_t last_prio = 1 << 30;
  SimTime last_ts = SimTime::zero();
  for (std::uint32_t n = 0; n < 500; ++n) {
    auto p = q.pop();
    ASSERT_TRUE(p);
    const auto i = p->value();
    const std::int32_t prio = static_cast<std::int32_t>((i * 37) % 7);
    const SimTime ts = sec(static_cast<double>((i * 13) % 11));
    ASSERT_LE(prio, last_prio);
    if (prio == last_prio) {
      ASSERT_GE(ts, last_ts);
    }
    last_prio = prio;
    last_ts = ts;
  }
}

}  // namespace
}  // namespace kubesim
