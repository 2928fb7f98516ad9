#include "study/compare_distributions.hpp"

#include <gtest/gtest.h>

namespace kubesim {
namespace {

// Two schedulers, `seeds` seeds: "fast" waits 10 s for every job, "tail" waits 10 s for 95 of
// 100 jobs and `tail_s` (+ the seed) for the others: equal means would hide a long tail.
Comparison two_schedulers(std::uint64_t seeds, double tail_s) {
  Comparison cmp;
  cmp.seeds = seeds;
  cmp.contenders = {{"fast", {}}, {"tail", {}}};
  for (std::size_t c = 0; c < 2; ++c)
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
      RunRecord r;
      r.contender = c;
      r.seed = seed;
      for (int j = 0; j < 100; ++j)
        r.job_times.push_back({c == 1 && j >= 95 ? tail_s + static_cast<double>(seed) : 10.0, 100.0});
      cmp.runs.push_back(std::move(r));
    }
  return cmp;
}

TEST(CompareDistributions, VerdictSeesTheTailAndTheSpread) {
  const Comparison cmp = two_schedulers(3, 1000);
  const JobFigure p99{JobFigure::Metric::kWait, JobFigure::Stat::kP99};
  EXPECT_DOUBLE_EQ(job_figure_over_seeds(cmp, 0, p99).mean, 10);
  EXPECT_GT(job_figure_over_seeds(cmp, 1, p99).min, 1000);
  const std::vector<std::string> v = distribution_verdict(cmp);
  ASSERT_EQ(v.size(), verdict_figures().size());
  EXPECT_EQ(v[1], "P50 wait: the same with every scheduler (10 s).");
  EXPECT_NE(v[3].find("P99 wait: lowest with fast (10 s), highest with tail (16.7 min"), std::string::npos) << v[3];
  EXPECT_NE(v[3].find("beyond the seed-to-seed spread"), std::string::npos) << v[3];
  const std::string h = compare_headline(cmp);
  EXPECT_NE(h.find("fast kept the tail shortest: p99 wait 10 s against 16.7 min with tail"), std::string::npos) << h;
  EXPECT_NE(h.find("mean bounded slowdown 1.1 against"), std::string::npos) << h;
  EXPECT_NE(h.find("means over 3 seeds"), std::string::npos) << h;
}

TEST(CompareDistributions, OneSeedSaysThereIsNoSpread) {
  const Comparison cmp = two_schedulers(1, 1000);
  const std::vector<std::string> v = distribution_verdict(cmp);
  EXPECT_NE(v[3].find("one seed, so no seed-to-seed spread"), std::string::npos) << v[3];
}

TEST(CompareDistributions, OverlappingSeedsAreWithinTheSpread) {
  // Gaps smaller than the seeds' spread: tail waits 10 + seed for its slow jobs.
  Comparison cmp = two_schedulers(3, 10);
  for (RunRecord& r : cmp.runs)
    if (r.contender == 0)
      for (JobTime& t : r.job_times) t.wait_s = 11.5 + static_cast<double>(r.seed) * 0.5;
  const std::vector<std::string> v = distribution_verdict(cmp);
  EXPECT_NE(v[3].find("within the seed-to-seed spread"), std::string::npos) << v[3];
}

}  // namespace
}  // namespace kubesim
