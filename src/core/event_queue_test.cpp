#include "core/event_queue.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "core/random.hpp"

namespace kubesim {
namespace {

SimTime at_us(std::int64_t us) { return SimTime::at(Duration::micros(us)); }

TEST(EventQueue, Empty) {
  EventQueue<int> q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
}

TEST(EventQueue, OrdersByTimeThenPhaseThenPostingOrder) {
  EventQueue<int> q;
  q.push(at_us(10), Phase::kScheduler, 1);
  q.push(at_us(5), Phase::kScheduler, 2);
  q.push(at_us(10), Phase::kArrival, 3);
  q.push(at_us(10), Phase::kKubelet, 4);
  q.push(at_us(10), Phase::kArrival, 5);
  q.push(at_us(0), Phase::kQueueTimer, 6);
  q.push(at_us(10), Phase::kInformer, 7);
  q.push(at_us(10), Phase::kApi, 8);
  q.push(at_us(10), Phase::kQueueTimer, 9);
  EXPECT_EQ(q.size(), 9u);
  EXPECT_EQ(q.top().payload, 6);
  std::vector<int> got;
  while (!q.empty()) got.push_back(q.pop().payload);
  EXPECT_EQ(got, (std::vector<int>{6, 2, 3, 5, 4, 8, 7, 9, 1}));
}

TEST(EventQueue, FifoForEqualTimeAndPhase) {
  EventQueue<int> q;
  for (int i = 0; i < 100; ++i) q.push(at_us(7), Phase::kInformer, i);
  for (int i = 0; i < 100; ++i) {
    auto e = q.pop();
    EXPECT_EQ(e.payload, i);
    EXPECT_EQ(e.time, at_us(7));
  }
}

TEST(EventQueue, InterleavedPushPopReturnsTheMinimum) {
  // Reference model: every pop returns the smallest (time, phase, posting sequence) among
  // the events queued at that moment. Pushes may land at the current time in an earlier
  // phase (as the simulation does, e.g. an API write posted during a scheduler cycle).
  EventQueue<std::uint64_t> q;
  RandomStream rng(11, "event-queue-test");
  std::set<std::tuple<std::int64_t, int, std::uint64_t>> model;
  std::vector<std::tuple<std::int64_t, int, std::uint64_t>> meta;  // by payload = sequence number
  std::uint64_t seq = 0;
  std::int64_t now = 0;
  std::size_t popped = 0;
  for (int round = 0; round < 20000; ++round) {
    if (q.empty() || rng.uniform_below(3) != 0) {
      const std::int64_t t = now + static_cast<std::int64_t>(rng.uniform_below(50));
      const int phase = static_cast<int>(rng.uniform_below(6));
      meta.emplace_back(t, phase, seq);
      model.emplace(t, phase, seq);
      q.push(at_us(t), static_cast<Phase>(phase), seq);
      ++seq;
    } else {
      ASSERT_EQ(q.size(), model.size());
      auto e = q.pop();
      ASSERT_EQ(meta[e.payload], *model.begin()) << "pop " << popped;
      EXPECT_EQ(e.time.micros(), std::get<0>(*model.begin()));
      model.erase(model.begin());
      now = e.time.micros();
      ++popped;
    }
  }
  while (!q.empty()) {
    auto e = q.pop();
    ASSERT_EQ(meta[e.payload], *model.begin());
    model.erase(model.begin());
  }
  EXPECT_TRUE(model.empty());
  EXPECT_GT(popped, 1000u);
}

TEST(EventQueue, BulkRandomPushThenPopIsSorted) {
  EventQueue<std::uint64_t> q;
  RandomStream rng(12, "bulk");
  std::vector<std::tuple<std::int64_t, int, std::uint64_t>> meta;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    const auto t = static_cast<std::int64_t>(rng.uniform_below(100));
    const int phase = static_cast<int>(rng.uniform_below(6));
    meta.emplace_back(t, phase, i);
    q.push(at_us(t), static_cast<Phase>(phase), i);
  }
  std::vector<std::tuple<std::int64_t, int, std::uint64_t>> got;
  while (!q.empty()) got.push_back(meta[q.pop().payload]);
  auto sorted = meta;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(got, sorted);
}

}  // namespace
}  // namespace kubesim
