// The study's RL environment (bsp/rl_env.hpp, reinforcement.py SimulatorEnv) on the simulated
// cluster: each step's action is executed by the scenario's BSP job (bsp/gang_run.hpp) beside
// the scenario's other tenants, so a reconfiguration costs what the cluster makes it cost.
//  - reset(seed): the scenario's simulation is built afresh with `seed` (the same seed gives
//    the same trajectory for the same actions), runs to the BSP job's start, and the job
//    launches its task pods with the starting shares (current_config = starting_shares, as
//    SimulatorEnv's); returns the observation at row default_time_step.
//  - step(a): a = 0 keeps the shares; a > 0 re-plans them with plan(t, a, 0): the job
//    checkpoints (the penalty, simulated), deletes its pods and waits for the new gang; then
//    the superstep at row t. The observation is SimulatorEnv's (planner data, current
//    shares); the reward is SimulatorEnv's with the step's real duration: (default_reward -
//    penalty - (deletion + gang wait + start-up + superstep) + duration_high) /
//    (duration_high - duration_low). In ideal mode the extra terms are 0: the study's env.
//  - done after simulation_length steps (bsp.steps, else config.ini's); truncated when the
//    scenario's duration ends the run first.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bsp/gang_run.hpp"
#include "bsp/rl_env.hpp"
#include "scenario/scenario.hpp"
#include "study/run_pipeline.hpp"

namespace kubesim {

class BspClusterEnv {
 public:
  // `scenario_path`: a scenario with a bsp: section (InputError otherwise); `model`: a latency
  // model name or file ("": the scenario's, else realistic).
  BspClusterEnv(const std::string& scenario_path, const std::string& model, const bsp::EnvSettings& env);
  ~BspClusterEnv();

  std::vector<double> reset(std::uint64_t seed);
  struct Step {
    std::vector<double> observation;
    double reward = 0;
    bool done = false;
    bool truncated = false;
    bsp::GangStepRecord record;  // the step on the cluster (penalty, deletion, gang wait, start-up, superstep)
  };
  Step step(int action);  // action in 0 .. A-1 (std::invalid_argument otherwise); reset() first
  // After the episode: the run's output files as `kubesim run` writes them (the job ends and
  // the rest of the simulation runs). Once per episode.
  std::vector<ReportFile> finish();

  int time_step() const { return t_; }
  const bsp::Shares& current_config() const;
  const std::vector<std::string>& task_names() const;
  // The job's launch at reset (its gang wait and start-up).
  const bsp::GangStepRecord& launch_record() const;

 private:
  int episode_end() const;  // the row after the last step

  Scenario scenario_;
  std::optional<bsp::GangSpec> gang_;  // the scenario's bsp: job (checked: present)
  std::string model_;
  bsp::EnvSettings env_;
  ReportSettings report_;
  std::unique_ptr<RunPipeline> run_;
  std::unique_ptr<bsp::GangRun> job_;
  SimTime until_ = SimTime::never();
  int t_ = 0;
  bool over_ = true;  // the scenario's duration stopped the job: every step is truncated
};

}  // namespace kubesim
