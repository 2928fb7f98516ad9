// The study's reinforcement-learning environment (simulation/gang_scheduling/reinforcement.py,
// SimulatorEnv, EvanW1999/Kube_Gang_Scheduling), computed with the planner of planner.hpp:
//  - action a in 0..A-1: 0 keeps the shares, a > 0 reconfigures with plan(t, a, 0);
//  - observation A x W: row a uses the current shares (a = 0) or plan(t, a, 0), entry [a][k] =
//    (f(planned sizes at column k) - duration_low) / (duration_high - duration_low), f = the
//    slowest task's run time (get_durations_from_action);
//  - step(a): r = default_reward, minus the checkpoint penalty if a != 0 (then the shares
//    change), minus the executed superstep at t; reward = (r + duration_high) /
//    (duration_high - duration_low); t += 1; done when t = default_time_step + simulation_length.
// The Python package wraps it in the Gymnasium API (python/kubesim/gym_env.py).
#pragma once

#include <vector>

#include "bsp/gang_study.hpp"

namespace kubesim::bsp {

struct EnvSettings {
  int window_size = 6;      // W (Evan's training main())
  int num_actions = 4;      // A
  double default_reward = 0;
  int default_time_step = 200;
  double duration_low = 75, duration_high = 150;
};

// The observation at row t with the current shares (row-major A x W; needs rows t and columns
// 0 .. max(W, A - 1) - 1 of the planner's trace).
std::vector<double> env_observation(Planner& planner, const Shares& current, int t, const EnvSettings& env);
// The reward of a step: (default_reward - penalty - duration + duration_high) /
// (duration_high - duration_low), subtracted in the study's order; `penalty` is the
// checkpoint penalty if the step reconfigured (else 0), `duration` the superstep (on the
// cluster plus the deletion, the gang's wait and start-up).
double env_reward(const EnvSettings& env, double penalty, double duration);
// InputError unless num_actions >= 1, window_size >= 1 and duration_high > duration_low.
void check_env_settings(const EnvSettings& env);

class StudyEnv {
 public:
  // `settings` carries the study's (checkpoint penalty, simulation length, shares); the data
  // must cover rows default_time_step + simulation_length and W columns (InputError otherwise).
  StudyEnv(const PerformanceModel& model, const WorkloadTrace& plan, const WorkloadTrace& executed, const StudySettings& settings,
           const EnvSettings& env);

  // The observation at the reset state (row-major A x W).
  std::vector<double> reset();
  struct Step {
    std::vector<double> observation;
    double reward = 0;
    bool done = false;
    double superstep = 0;  // the executed superstep of this step (for info)
  };
  Step step(int action);  // action in 0 .. A-1 (std::invalid_argument otherwise)
  std::vector<double> observation(int t);

  int time_step() const { return t_; }
  const Shares& current_config() const { return current_; }
  const EnvSettings& env_settings() const { return env_; }

 private:
  Planner planner_, executed_;
  StudySettings settings_;
  EnvSettings env_;
  Shares current_;
  int t_ = 0;
};

}  // namespace kubesim::bsp
