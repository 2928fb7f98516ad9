// Indexed Jobs (completionMode Indexed) through the whole simulation, as upstream v1.26's Job
// controller runs them (pkg/controller/job/indexed_job_utils.go): the ideal latency model
// makes every time exact; expectations are derived by hand in the comments.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "engine/simulation.hpp"
#include "scenario/scenario.hpp"
#include "testing/inputs.hpp"

namespace kubesim {
namespace {

SimulationInputs indexed_inputs(std::int32_t completions, std::int32_t parallelism, bool failing) {
  testing::JobBuilder job("idx", 0, 10);
  job.indexed(completions, parallelism).backoff_limit(2);
  if (failing) job.fails(1, 10);
  return testing::make_inputs({testing::NodeBuilder("node-0").cpu("8").memory("64Gi")}, {job},
                              {testing::PodTemplateBuilder().cpu("1")});
}

std::vector<const Pod*> job_pods(const Simulation& sim) {
  std::vector<const Pod*> out;
  for (std::size_t i = 0; i < sim.store().pod_count(); ++i) out.push_back(&sim.store().pod(PodId(static_cast<std::uint32_t>(i))));
  return out;
}

TEST(IndexedJob, OnePodPerIndexLowestPendingFirst) {
  // completions 5, parallelism 2, 10 s pods: t=0 indexes 0 and 1; both succeed at 10, the
  // sync comes after the 1 s podUpdateBatchPeriod -> indexes 2 and 3 at 11; they succeed at
  // 21 -> index 4 at 22; it succeeds at 32 -> Complete at 33, completedIndexes "0-4".
  Simulation sim(indexed_inputs(5, 2, false), testing::ideal_options());
  sim.run();
  const auto pods = job_pods(sim);
  ASSERT_EQ(pods.size(), 5u);
  const double created[] = {0, 0, 11, 11, 22};
  for (std::size_t i = 0; i < pods.size(); ++i) {
    EXPECT_EQ(pods[i]->completion_index, static_cast<std::int32_t>(i));
    EXPECT_EQ(pods[i]->created, SimTime::from_seconds(created[i])) << i;
    // podGenerateNameWithIndex: <job>-<index>- and 5 random characters.
    EXPECT_TRUE(std::regex_match(pods[i]->name, std::regex("idx-" + std::to_string(i) + "-[a-z0-9]{5}"))) << pods[i]->name;
    EXPECT_EQ(pods[i]->phase, PodPhase::kSucceeded);
  }
  const Job& job = sim.store().job(sim.job_objects()[0]);
  EXPECT_EQ(job.condition, JobCondition::kComplete);
  EXPECT_EQ(job.completion_time, SimTime::from_seconds(33));
  EXPECT_EQ(job.succeeded, 5);
  EXPECT_EQ(job.completed_indexes, "0-4");
}

TEST(IndexedJob, FailedIndexIsRetriedWithANewPod) {
  // Every pod exits 1 after 10 s; completions 2, parallelism 2, backoffLimit 2 (v1.26):
  // t=0 indexes 0, 1; t=10 both fail (failed 2, not > 2) -> new pods for indexes 0 and 1;
  // t=20 both fail (failed 4 > 2, active 0 != parallelism) -> Failed.
  Simulation sim(indexed_inputs(2, 2, true), testing::ideal_options());
  sim.run();
  const auto pods = job_pods(sim);
  ASSERT_EQ(pods.size(), 4u);
  std::multiset<std::int32_t> indexes;
  for (const Pod* p : pods) indexes.insert(p->completion_index);
  EXPECT_EQ(indexes, (std::multiset<std::int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(pods[2]->created, SimTime::from_seconds(10));
  EXPECT_EQ(pods[3]->created, SimTime::from_seconds(10));
  const Job& job = sim.store().job(sim.job_objects()[0]);
  EXPECT_EQ(job.condition, JobCondition::kFailed);
  EXPECT_EQ(job.failed, 4);
  EXPECT_EQ(job.completed_indexes, "");
}

}  // namespace
}  // namespace kubesim
