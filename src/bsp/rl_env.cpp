#include "bsp/rl_env.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace kubesim::bsp {

void check_env_settings(const EnvSettings& env) {
  if (env.num_actions < 1 || env.window_size < 1) throw InputError("", 0, "the environment needs num_actions >= 1 and window_size >= 1");
  if (!(env.duration_high > env.duration_low)) throw InputError("", 0, "the environment needs duration_high > duration_low");
}

std::vector<double> env_observation(Planner& planner, const Shares& current, int t, const EnvSettings& env) {
  const auto a_count = static_cast<std::size_t>(env.num_actions), w = static_cast<std::size_t>(env.window_size);
  std::vector<double> obs(a_count * w);
  for (std::size_t a = 0; a < a_count; ++a) {
    const Shares config = a == 0 ? current : planner.plan(t, static_cast<int>(a), 0);
    for (std::size_t k = 0; k < w; ++k) {
      const double runtime = 0 + planner.step_duration(config, t, static_cast<int>(k));
      obs[a * w + k] = (runtime - env.duration_low) * 1.0 / (env.duration_high - env.duration_low);
    }
  }
  return obs;
}

double env_reward(const EnvSettings& env, double penalty, double duration) {
  // reinforcement.py step(): reward = default_reward; -= penalty; -= duration; then
  // (reward + duration_high) / (duration_high - duration_low).
  double reward = env.default_reward;
  reward -= penalty;
  reward -= duration;
  return (reward + env.duration_high) / (env.duration_high - env.duration_low);
}

StudyEnv::StudyEnv(const PerformanceModel& model, const WorkloadTrace& plan, const WorkloadTrace& executed,
                   const StudySettings& settings, const EnvSettings& env)
    : planner_(model, plan, settings), executed_(model, executed, settings), settings_(settings), env_(env) {
  check_env_settings(env_);
  // The last observation is taken at default_time_step + simulation_length.
  const int rows = env_.default_time_step + settings_.simulation_length + 1;
  const std::string why = "the environment (steps " + std::to_string(env_.default_time_step) + " .. " + std::to_string(rows - 1) + ")";
  plan.require(rows, std::max(env_.window_size, env_.num_actions - 1), why);
  executed.require(rows - 1, 1, why);
  current_.assign(model.task_count(), settings_.starting_shares);
  t_ = env_.default_time_step;
}

std::vector<double> StudyEnv::observation(int t) { return env_observation(planner_, current_, t, env_); }

std::vector<double> StudyEnv::reset() {
  current_.assign(current_.size(), settings_.starting_shares);
  t_ = env_.default_time_step;
  return observation(t_);
}

StudyEnv::Step StudyEnv::step(int action) {
  if (action < 0 || action >= env_.num_actions)
    throw std::invalid_argument("action must be in 0.." + std::to_string(env_.num_actions - 1) + ", got " + std::to_string(action));
  if (action != 0) current_ = planner_.plan(t_, action, 0);
  Step out;
  out.superstep = executed_.step_duration(current_, t_, 0);
  out.reward = env_reward(env_, action != 0 ? settings_.checkpoint_penalty : 0.0, out.superstep);
  t_ += 1;
  out.observation = observation(t_);
  out.done = t_ == settings_.simulation_length + env_.default_time_step;
  return out;
}

}  // namespace kubesim::bsp
