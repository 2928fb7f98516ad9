// Hand-computed reservation cases (derived in docs/derivations/backfill.md) for the three
// policies of batsched (oar-team/batsched src/algo/fcfs_fast.cpp, easy_bf.cpp,
// conservative_bf.cpp) run by the one BackfillSchedule with depths 0, 1 and kAll.
// Batsched's platform of N machines is one node of N cpus here: a job of k machines requests
// k cpus (cores of a node are fungible, see backfill.hpp).
#include "sched/batch/backfill.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <gtest/gtest.h>

namespace kubesim {
namespace {

struct TestJob {
  char id;
  std::int64_t release, nb_res, walltime, runtime;  // seconds; walltime 0 = none
};

constexpr std::uint32_t kFcfs = 0, kEasy = 1, kCons = BackfillSchedule::kAll;

Resources cpus(std::int64_t n) {
  Resources r;
  r[kCpu] = n * 1000;
  return r;
}

// Replays the jobs as Batsim would: at each date, the ended jobs are removed, the released
// ones queued, then one decision. Returns each job's start (seconds) and node.
std::map<char, std::pair<std::int64_t, std::uint32_t>> replay(std::uint32_t depth, const std::vector<TestJob>& jobs,
                                                              std::vector<std::int64_t> node_cpus = {4}) {
  BackfillSchedule s(depth);
  for (std::size_t i = 0; i < node_cpus.size(); ++i)
    s.set_node(NodeId(static_cast<std::uint32_t>(i)), cpus(node_cpus[i]), 110, true);
  std::map<char, std::pair<std::int64_t, std::uint32_t>> started;
  std::vector<std::pair<std::int64_t, std::uint32_t>> ends;  // (date, key)
  std::size_t next = 0;
  std::vector<BackfillSchedule::Start> out;
  while (true) {
    std::int64_t t = next < jobs.size() ? jobs[next].release : INT64_MAX;
    for (const auto& e : ends) t = std::min(t, e.first);
    if (t == INT64_MAX) break;
    const SimTime now = SimTime::at(Duration::seconds(t));
    for (auto it = ends.begin(); it != ends.end();) {
      if (it->first == t) {
        s.release(it->second);
        it = ends.erase(it);
      } else {
        ++it;
      }
    }
    for (; next < jobs.size() && jobs[next].release == t; ++next) {
      const TestJob& j = jobs[next];
      s.submit(static_cast<std::uint32_t>(next), now, BackfillSchedule::Demand{cpus(j.nb_res), 1u << kCpu},
               Duration::seconds(j.walltime));
    }
    out.clear();
    s.decide(now, out);
    for (const auto& st : out) {
      started[jobs[st.key].id] = {t, st.node.value()};
      ends.emplace_back(t + jobs[st.key].runtime, st.key);
    }
  }
  return started;
}

std::map<char, std::int64_t> starts(std::uint32_t depth, const std::vector<TestJob>& jobs) {
  std::map<char, std::int64_t> r;
  for (const auto& [id, v] : replay(depth, jobs)) r[id] = v.first;
  return r;
}

using Starts = std::map<char, std::int64_t>;

// §3.1: C ([2, 7) ends before B's reservation at 10) is backfilled; D ([3, 23)) is not.
TEST(Backfill, EasyBasicBackfill) {
  const std::vector<TestJob> jobs = {{'A', 0, 3, 10, 10}, {'B', 1, 4, 5, 5}, {'C', 2, 1, 5, 5}, {'D', 3, 1, 20, 20}};
  EXPECT_EQ(starts(kEasy, jobs), (Starts{{'A', 0}, {'C', 2}, {'B', 10}, {'D', 15}}));
  // FCFS: the head B blocks C and D; both start when B ends.
  EXPECT_EQ(starts(kFcfs, jobs), (Starts{{'A', 0}, {'B', 10}, {'C', 15}, {'D', 15}}));
  // Conservative: C fits before B's reservation; D is reserved at 15 and starts then.
  EXPECT_EQ(starts(kCons, jobs), (Starts{{'A', 0}, {'C', 2}, {'B', 10}, {'D', 15}}));
}

// §3.2: EASY and conservative agree (regression test of the shared implementation).
TEST(Backfill, EasyAndConservativeAgree) {
  const std::vector<TestJob> jobs = {{'A', 0, 2, 10, 10}, {'B', 1, 4, 10, 10}, {'C', 2, 2, 10, 10}, {'D', 3, 1, 2, 2}};
  const Starts want{{'A', 0}, {'D', 3}, {'B', 10}, {'C', 20}};
  EXPECT_EQ(starts(kEasy, jobs), want);
  EXPECT_EQ(starts(kCons, jobs), want);
  EXPECT_EQ(starts(kFcfs, jobs), (Starts{{'A', 0}, {'B', 10}, {'C', 20}, {'D', 20}}));
}

// §3.3, the distinguishing case: EASY backfills D on the machine B's reservation leaves free
// and so delays C (the second waiting job) to 33; conservative reserves C at 20 and D at 30.
TEST(Backfill, EasyDelaysSecondJobConservativeDoesNot) {
  const std::vector<TestJob> jobs = {{'A', 0, 2, 10, 10}, {'B', 1, 3, 10, 10}, {'C', 2, 4, 10, 10}, {'D', 3, 1, 30, 30}};
  EXPECT_EQ(starts(kEasy, jobs), (Starts{{'A', 0}, {'D', 3}, {'B', 10}, {'C', 33}}));
  EXPECT_EQ(starts(kCons, jobs), (Starts{{'A', 0}, {'B', 10}, {'C', 20}, {'D', 30}}));
  // Depth 2: B and C hold reservations, which is the conservative result here.
  EXPECT_EQ(starts(2, jobs), (Starts{{'A', 0}, {'B', 10}, {'C', 20}, {'D', 30}}));
  EXPECT_EQ(starts(kFcfs, jobs), (Starts{{'A', 0}, {'B', 10}, {'C', 20}, {'D', 30}}));
}

// The reservations themselves at t = 3 in §3.3.
TEST(Backfill, ReservationsAtDepth) {
  for (const std::uint32_t depth : {kEasy, kCons}) {
    BackfillSchedule s(depth);
    s.set_node(NodeId(0), cpus(4), 110, true);
    std::vector<BackfillSchedule::Start> out;
    const auto at = [](std::int64_t sec) { return SimTime::at(Duration::seconds(sec)); };
    const auto d = [](std::int64_t n) { return BackfillSchedule::Demand{cpus(n), 1u << kCpu}; };
    s.submit(0, at(0), d(2), Duration::seconds(10));
    s.decide(at(0), out);
    ASSERT_EQ(out.size(), 1u);
    s.submit(1, at(1), d(3), Duration::seconds(10));
    s.decide(at(1), out);
    s.submit(2, at(2), d(4), Duration::seconds(10));
    s.decide(at(2), out);
    EXPECT_EQ(s.reservation_of(1), at(10));
    EXPECT_EQ(s.reservation_of(2), depth == kEasy ? SimTime::never() : at(20));
    s.submit(3, at(3), d(1), Duration::seconds(30));
    out.clear();
    s.decide(at(3), out);
    if (depth == kEasy) {
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].key, 3u);
    } else {
      EXPECT_TRUE(out.empty());
      EXPECT_EQ(s.reservation_of(3), at(30));
    }
  }
}

// §3.4: A ends at 3 instead of 10; compression starts B at once, C follows at 8 (2 machines).
TEST(Backfill, EarlyFinishCompression) {
  const std::vector<TestJob> jobs = {{'A', 0, 2, 10, 3}, {'B', 1, 2, 5, 5}, {'C', 2, 1, 4, 4}};
  for (const std::uint32_t depth : {kFcfs, kEasy, kCons}) {
    std::map<char, std::int64_t> r;
    for (const auto& [id, v] : replay(depth, jobs, {2})) r[id] = v.first;
    EXPECT_EQ(r, (Starts{{'A', 0}, {'B', 3}, {'C', 8}})) << "depth " << depth;
  }
}

// §3.5: a job larger than every node is rejected on release and never queued.
TEST(Backfill, RejectsJobLargerThanEveryNode) {
  BackfillSchedule s(kEasy);
  s.set_node(NodeId(0), cpus(4), 110, true);
  s.set_node(NodeId(1), cpus(4), 110, true);
  EXPECT_EQ(s.submit(0, SimTime::zero(), BackfillSchedule::Demand{cpus(5), 1u << kCpu}, Duration::seconds(1)),
            BackfillSchedule::Rejection::kTooLarge);
  EXPECT_EQ(s.queue_size(), 0u);
  EXPECT_EQ(s.submit(1, SimTime::zero(), BackfillSchedule::Demand{cpus(4), 1u << kCpu}, Duration::seconds(1)),
            BackfillSchedule::Rejection::kNone);
}

// A job without walltime runs to +infinity in the plan: it cannot be backfilled before a
// reservation (with walltime 5 it would start at 2, as C in §3.1).
TEST(Backfill, NoWalltimeIsInfinite) {
  const std::vector<TestJob> jobs = {{'A', 0, 2, 10, 10}, {'B', 1, 4, 10, 10}, {'C', 2, 1, 0, 5}};
  EXPECT_EQ(starts(kEasy, jobs), (Starts{{'A', 0}, {'B', 10}, {'C', 20}}));
  EXPECT_EQ(starts(kCons, jobs), (Starts{{'A', 0}, {'B', 10}, {'C', 20}}));
  const std::vector<TestJob> with_walltime = {{'A', 0, 2, 10, 10}, {'B', 1, 4, 10, 10}, {'C', 2, 1, 5, 5}};
  EXPECT_EQ(starts(kEasy, with_walltime), (Starts{{'A', 0}, {'C', 2}, {'B', 10}}));
}

// Several nodes: a job is one pod on one node; the earliest start wins, ties to the lowest
// node (batsched's basic selector takes the lowest machine ids).
TEST(Backfill, NodeChoiceLowestEarliest) {
  const std::vector<TestJob> jobs = {{'A', 0, 1, 10, 10}, {'B', 0, 1, 10, 10}, {'C', 0, 2, 10, 10}, {'D', 1, 2, 5, 5}};
  const auto r = replay(kEasy, jobs, {2, 2});
  EXPECT_EQ(r.at('A'), (std::pair<std::int64_t, std::uint32_t>{0, 0}));
  EXPECT_EQ(r.at('B'), (std::pair<std::int64_t, std::uint32_t>{0, 0}));
  EXPECT_EQ(r.at('C'), (std::pair<std::int64_t, std::uint32_t>{0, 1}));
  // D needs 2 cpus on one node: both are full until 10 (3 free cpus in total do not help).
  EXPECT_EQ(r.at('D'), (std::pair<std::int64_t, std::uint32_t>{10, 0}));
}

// A running job that overruns its walltime estimate still holds its node.
TEST(Backfill, OverrunKeepsNodeBusy) {
  BackfillSchedule s(kEasy);
  s.set_node(NodeId(0), cpus(1), 110, true);
  std::vector<BackfillSchedule::Start> out;
  const auto at = [](std::int64_t sec) { return SimTime::at(Duration::seconds(sec)); };
  const BackfillSchedule::Demand one{cpus(1), 1u << kCpu};
  s.submit(0, at(0), one, Duration::seconds(10));
  s.decide(at(0), out);
  ASSERT_EQ(out.size(), 1u);
  s.submit(1, at(11), one, Duration::seconds(10));
  out.clear();
  s.decide(at(11), out);  // job 0 not reported ended yet
  EXPECT_TRUE(out.empty());
  s.release(0);
  s.decide(at(12), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].key, 1u);
}

}  // namespace
}  // namespace kubesim
