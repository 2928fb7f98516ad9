#include "sched/batch/machine_schedule.hpp"

#include <gtest/gtest.h>

#include "sched/batch/batsim_protocol.hpp"

namespace kubesim {
namespace {

using Policy = MachineSchedule::Policy;

SimTime at(double s) { return SimTime::from_seconds(s); }
MachineSchedule::Job job(const char* id, std::uint32_t size, double walltime) {
  return MachineSchedule::Job{id, size, Duration::from_seconds(walltime), SimTime{}};
}

TEST(MachineSet, LeftAndHyphenString) {
  MachineSet s(130);
  for (std::uint32_t i : {0u, 1u, 2u, 5u, 64u, 65u, 129u}) s.insert(i);
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(s.to_string(), "0-2 5 64-65 129");
  EXPECT_EQ(s.left(4).to_string(), "0-2 5");
  EXPECT_EQ(s.left(100).to_string(), s.to_string());
}

// One decision per row: the jobs that ended and were released at `date`, and what batsched
// decides (the starts, "id:machines", in decision order). The expectations are batsched's
// rules worked by hand (and seen on the peer with tests/batsim_oracle.py).
struct Step {
  double date;
  std::vector<std::uint32_t> ended;
  std::vector<std::pair<std::uint32_t, MachineSchedule::Job>> released;
  std::vector<std::string> starts;
  std::vector<std::uint32_t> rejects = {};
};

struct Case {
  const char* name;
  Policy policy;
  std::uint32_t machines;
  std::vector<Step> steps;
};

class MachineScheduleTable : public ::testing::TestWithParam<Case> {};

TEST_P(MachineScheduleTable, Decisions) {
  const Case& c = GetParam();
  MachineSchedule s(c.policy, c.machines);
  for (const Step& step : c.steps) {
    std::vector<MachineSchedule::Start> starts;
    std::vector<std::uint32_t> rejects;
    s.make_decisions(at(step.date), step.ended, step.released, starts, rejects);
    std::vector<std::string> got;
    for (const auto& st : starts) got.push_back(std::to_string(st.key) + ":" + st.machines.to_string());
    EXPECT_EQ(got, step.starts) << c.name << " at " << step.date;
    EXPECT_EQ(rejects, step.rejects) << c.name << " at " << step.date;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Batsched, MachineScheduleTable,
    ::testing::Values(
        // FCFS: the queue head blocks; lowest machine ids first; too large: rejected.
        Case{"fcfs", Policy::kFcfs, 4,
             {{0, {}, {{0, job("w0!1", 3, 10)}, {1, job("w0!2", 2, 10)}, {2, job("w0!3", 1, 10)}, {3, job("w0!4", 5, 1)}},
               {"0:0-2"}, {3}},
              {5, {0}, {}, {"1:0-1", "2:2"}}}},
        // EASY: job 1 (4 machines) is the priority job, reserved at 10 when job 0 ends; job 2
        // (1 machine, 8 s) backfills on machine 3; job 3 (20 s) would delay job 1: it waits.
        // When job 0 ends early, job 1 starts at once and job 3 becomes the priority job.
        Case{"easy", Policy::kEasy, 4,
             {{0, {}, {{0, job("w0!1", 3, 10)}}, {"0:0-2"}},
              {1, {}, {{1, job("w0!2", 4, 10)}, {2, job("w0!3", 1, 8)}, {3, job("w0!4", 1, 20)}}, {"2:3"}},
              {8, {2}, {}, {}},
              {9.5, {0}, {}, {"1:0-3"}}}},
        // Conservative: every job holds a reservation; job 4 fits before job 2's reservation
        // at 10 but not job 3 (walltime 20 > 10 - 1).
        Case{"conservative", Policy::kConservative, 4,
             {{0, {}, {{0, job("w0!1", 3, 10)}}, {"0:0-2"}},
              {1, {}, {{1, job("w0!2", 4, 10)}, {2, job("w0!3", 1, 20)}, {3, job("w0!4", 1, 9)}}, {"3:3"}},
              {2, {0}, {}, {}},
              {3, {3}, {}, {"1:0-3"}}}},
        // FCFSOrder: same release date, job ids compared as strings ("w0!10" < "w0!9").
        Case{"easy string order", Policy::kEasy, 2,
             {{0, {}, {{0, job("w0!9", 2, 10)}, {1, job("w0!10", 2, 10)}}, {"1:0-1"}}}}),
    [](const auto& param_info) {  // not `info`: gtest's generator has a parameter of that name (-Wshadow)
      std::string n = param_info.param.name;
      for (char& ch : n)
        if (ch == ' ') ch = '_';
      return n;
    });

// batsched computes with exact rationals of the doubles Batsim prints (BatschedTime): with
// the 5 s rjms_delay, job 3 (54 s) started at 179.704 would end at 179.704 + 59, which is
// 2^-46 s after job 2's reservation at 101.704 + 137 (job 0's planned end), so batsched does
// not start it there but backfills job 4; in microseconds both ends would be 238.704 and job
// 3 would start. Seen on the peer (tests/batsim_oracle.py seed 1, conservative_bf: job 35
// started at 179.704 instead of job 31).
TEST(MachineSchedule, ExactRationalsOfBatsimDoubles) {
  EXPECT_GT(BatschedTime::of(at(179.704)) + BatschedTime::of(Duration::seconds(59)),
            BatschedTime::of(at(101.704)) + BatschedTime::of(Duration::seconds(137)));
  EXPECT_EQ(BatschedTime::of(at(2.5)) + BatschedTime::of(at(0.5)), BatschedTime::of(at(3)));
  MachineSchedule s(Policy::kConservative, 2, SimTime::zero(), Duration::seconds(5));
  std::vector<MachineSchedule::Start> starts;
  std::vector<std::uint32_t> rejects;
  s.make_decisions(at(101.704), {},
                   {{0, job("w0!0", 1, 132)}, {1, job("w0!1", 1, 100)}, {2, job("w0!2", 2, 10)},
                    {3, job("w0!3", 1, 54)}, {4, job("w0!4", 1, 34)}},
                   starts, rejects);
  ASSERT_EQ(starts.size(), 2u);
  starts.clear();
  s.make_decisions(at(179.704), {1}, {}, starts, rejects);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].key, 4u);
  EXPECT_EQ(starts[0].machines.to_string(), "1");
  EXPECT_TRUE(rejects.empty());
}

// Batsim's message timing on platform_cluster128 (0.6 ms master->master, 1.6 ms node->master),
// as the peer showed: jobs submitted at 0 start at 0.0024; a job released at 1 starts at
// 1.0024 (the submitter's drift after the first batch); a job started on a completion at e
// starts at e + 2.2 ms.
TEST(BatsimProtocol, StartTimesOfThePeer) {
  BatsimProtocol p(Duration::micros(600), Duration::micros(1600));
  std::vector<std::pair<std::uint32_t, SimTime>> started;
  std::vector<SimTime> calls;
  bool started_second = false;
  auto call = [&](SimTime date, const std::vector<std::uint32_t>& ended, const std::vector<std::uint32_t>& released,
                  std::vector<BatsimProtocol::Decision>& d) {
    calls.push_back(date);
    for (const auto j : released)
      if (j != 1) d.push_back({j, true});
    if (!ended.empty() && !started_second) {
      d.push_back({1, true});
      started_second = true;
    }
  };
  auto apply = [&](const BatsimProtocol::Decision& d, SimTime now) { started.emplace_back(d.job, now); };
  p.submitted(0, at(0));
  p.submitted(1, at(0));
  p.run(at(0.5), call, apply);
  p.submitted(2, at(1));
  p.run(at(2), call, apply);
  p.completed(0, at(50.0024));
  p.run(at(60), call, apply);
  ASSERT_EQ(started.size(), 3u);
  EXPECT_EQ(started[0], std::make_pair(0u, at(0.0024)));
  EXPECT_EQ(started[1], std::make_pair(2u, at(1.0024)));
  EXPECT_EQ(started[2], std::make_pair(1u, at(50.0046)));
  EXPECT_EQ(calls.front(), at(0.0018));
}

}  // namespace
}  // namespace kubesim
