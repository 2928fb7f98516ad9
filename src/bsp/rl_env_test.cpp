// The study's RL environment: a scripted "re-plan every 3 steps" policy over steps 0..399 gives
// back the study's Static Window 3 supersteps through its rewards.
#include <gtest/gtest.h>

#include <cmath>

#include "bsp/rl_env.hpp"
#include "core/error.hpp"
#include "core/test_paths.hpp"

namespace kubesim::bsp {
namespace {

TEST(StudyEnv, ScriptedStaticWindowPolicyEqualsTheStudy) {
  const StudyData data = load_study_data(testing::data_dir() + "/gang");
  EnvSettings env;
  env.window_size = 6;
  env.num_actions = 4;
  env.default_time_step = 0;
  StudyEnv e(data.model, data.forecasts, data.actual, data.settings, env);
  const auto first = e.reset();
  ASSERT_EQ(first.size(), 24u);
  // Row 0 at reset: 1000 shares each; entry = (slowest run time - 75) / 75.
  Planner planner(data.model, data.forecasts, data.settings);
  const Shares thousand(data.model.task_count(), 1000);
  EXPECT_EQ(first[2], (planner.step_duration(thousand, 0, 2) - 75) * 1.0 / 75);
  double supersteps = 0, rewards_back = 0;
  int steps = 0;
  for (bool done = false; !done; ++steps) {
    const int action = steps % 3 == 0 ? 3 : 0;
    const auto s = e.step(action);
    done = s.done;
    supersteps += s.superstep;
    rewards_back += 150 - 75 * s.reward - (action != 0 ? 15 : 0);
  }
  EXPECT_EQ(steps, 400);
  // data/gang/forecast_400_results.csv: Static Window 3, 47880.17876125451 s of supersteps.
  EXPECT_NEAR(supersteps, 47880.17876125451, 1e-9 * 47880.17876125451);
  EXPECT_NEAR(rewards_back, supersteps, 1e-6);
  EXPECT_THROW(e.step(4), std::invalid_argument);
}

TEST(StudyEnv, RefusesDataShorterThanTheEpisode) {
  const StudyData data = load_study_data(testing::data_dir() + "/gang");
  EnvSettings env;
  env.default_time_step = 700;  // 700 + 400 > 1 000 rows
  EXPECT_THROW(StudyEnv(data.model, data.forecasts, data.actual, data.settings, env), InputError);
}

}  // namespace
}  // namespace kubesim::bsp
