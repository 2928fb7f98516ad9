#include "report/human_format.hpp"

#include <gtest/gtest.h>

#include "report/job_stats.hpp"
#include "report/run_report.hpp"

namespace kubesim {
namespace {

TEST(HumanFormat, DurationsSwitchUnitsWhereLong) {
  EXPECT_EQ(human::duration(0), "0 s");
  EXPECT_EQ(human::duration(8.44), "8.44 s");
  EXPECT_EQ(human::duration(67.2), "67.2 s");
  EXPECT_EQ(human::duration(1139), "19 min");
  EXPECT_EQ(human::duration(2280), "38 min");
  EXPECT_EQ(human::duration(3.4 * 3600), "3.4 h");
  EXPECT_EQ(human::duration(7949022.968417), "92 d");  // the 92-day makespan of the issue
}

TEST(HumanFormat, PercentCountsAndSignificantDigits) {
  EXPECT_EQ(human::percent(0.921543), "92.2%");
  EXPECT_EQ(human::percent(0), "0.0%");
  EXPECT_EQ(human::percent(0.0001), "<0.1%");
  EXPECT_EQ(human::count(1234567), "1,234,567");
  EXPECT_EQ(human::count(12), "12");
  EXPECT_EQ(human::sig3(1.0234), "1.02");
  EXPECT_EQ(human::sig3(153.2), "153");
  EXPECT_EQ(human::sig3(99.96), "100");
}

TEST(JobStats, BoundedSlowdownFollowsFeitelson) {
  // max(1, (wait + run) / max(run, 10 s)).
  EXPECT_DOUBLE_EQ(bounded_slowdown(0, 100), 1.0);
  EXPECT_DOUBLE_EQ(bounded_slowdown(100, 100), 2.0);
  EXPECT_DOUBLE_EQ(bounded_slowdown(18, 2), 2.0);  // a 2 s job counts as 10 s
  EXPECT_DOUBLE_EQ(bounded_slowdown(0, 1), 1.0);   // never below 1
}

TEST(JobStats, QuantilesOfJobTimes) {
  std::vector<JobTime> times;
  for (int i = 0; i < 100; ++i) times.push_back({static_cast<double>(i), 10.0});
  const JobTimeQuantiles q = job_time_quantiles(times);
  EXPECT_EQ(q.wait_s.n, 100u);
  EXPECT_DOUBLE_EQ(q.wait_s.mean, 49.5);
  EXPECT_DOUBLE_EQ(q.wait_s.p50, 49.5);
  EXPECT_DOUBLE_EQ(q.wait_s.p99, 98.01);
  EXPECT_DOUBLE_EQ(q.wait_s.max, 99);
  EXPECT_DOUBLE_EQ(q.slowdown.mean, 5.95);  // (w + 10) / 10
  EXPECT_DOUBLE_EQ(q.bounded_slowdown.mean, 5.95);
}

TEST(RunHeadline, AnswersInOneSentence) {
  JobStats s;
  s.jobs = s.succeeded = 200;
  s.makespan_s = 2280;
  s.times.wait_s.mean = 67;
  s.times.wait_s.p99 = 1139;
  s.utilisation = 0.743;
  EXPECT_EQ(run_headline(s), "All 200 jobs finished in 38 min (makespan); mean wait 67 s, p99 19 min; utilisation 74.3%.");
  s.succeeded = 198;
  s.rejected = 2;
  EXPECT_EQ(run_headline(s),
            "198 of 200 jobs completed successfully in 38 min (makespan); mean wait 67 s, p99 19 min; utilisation 74.3%. 2 never "
            "started (REJECTED in jobs.csv).");
}

}  // namespace
}  // namespace kubesim
