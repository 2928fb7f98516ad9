// The Batkube submitter as a measuring instrument (observer.hpp): a wave of Scheduled Events
// through its 5 QPS / burst 10 client, the Events queued behind the held GETs, and the same
// stamps read back as held.
#include "calibrate/observer.hpp"

#include <gtest/gtest.h>

namespace kubesim::calibrate {
namespace {

// Fifteen pods bound at 100 s (one wave), each pulling 0.5 s later and started at 102 s.
std::vector<PodTimeline> wave() {
  std::vector<PodTimeline> pods(15);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    pods[i].id = std::to_string(i + 1);
    pods[i].scheduled = 100.0;
    pods[i].pulling = 100.5;
    pods[i].started = 102.0;
  }
  return pods;
}

TEST(BatkubeSubmitter, EleventhGetOfAWaveWaitsForTheLimiterAndQueuesTheEventsBehind) {
  const auto seen = observe_like_batkube_submitter(wave());
  // The bucket is full (10 tokens): ten GETs at once, then one every 1/5 s.
  for (std::size_t i = 0; i < 10; ++i) EXPECT_DOUBLE_EQ(seen[i].scheduled, 100.0) << i;
  for (std::size_t i = 10; i < 15; ++i)
    EXPECT_NEAR(seen[i].scheduled, 100.0 + 0.2 * static_cast<double>(i - 9), 1e-9) << i;
  // Every Pulling (at 100.5) waited in the one handler's queue until the last GET (101.0).
  for (const auto& p : seen) EXPECT_NEAR(p.pulling, 101.0, 1e-9);
  // Started arrived after: as it happened.
  for (const auto& p : seen) EXPECT_DOUBLE_EQ(p.started, 102.0);
}

TEST(BatkubeSubmitter, JobCreationsTakeTheSameTokens) {
  auto pods = wave();
  // Fifteen Job creations just before the wave empty the bucket (a measured creation stamp
  // is a grant: it leaves the bucket empty, not overdrawn): every GET then waits its turn.
  for (auto& p : pods) p.submitted = 99.99;
  const auto seen = observe_like_batkube_submitter(pods);
  EXPECT_NEAR(seen[0].scheduled, 100.0 + (1 - 0.01 * 5) / 5, 1e-9);  // 0.05 token refilled since
  EXPECT_GT(seen[14].scheduled, seen[13].scheduled + 0.19);
}

TEST(BatkubeSubmitter, HeldStampsAreFoundBackInTheMeasurements) {
  MeasuredRun run;
  run.pods = observe_like_batkube_submitter(wave());
  run.stamped_by_batkube_submitter = true;
  // The GETs' round trip moves each stamp a few milliseconds (the last one's too, and the
  // Events queued behind it with it).
  for (std::size_t i = 0; i < run.pods.size(); ++i) run.pods[i].scheduled += 0.004 * static_cast<double>(i % 3);
  for (auto& p : run.pods) p.pulling += 0.008;
  const auto held = held_by_batkube_submitter(run);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_FALSE(held[i].scheduled) << i;
  for (std::size_t i = 10; i < 15; ++i) EXPECT_TRUE(held[i].scheduled) << i;
  // The Pullings stamped with the last GET were queued behind it; the Starteds were not.
  for (const auto& h : held) {
    EXPECT_TRUE(h.pulling);
    EXPECT_FALSE(h.started);
  }
}

}  // namespace
}  // namespace kubesim::calibrate
