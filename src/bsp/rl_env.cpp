#include "bsp/rl_env.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace kubesim::bsp {

StudyEnv::StudyEnv(const PerformanceModel& model, const WorkloadTrace& plan, const WorkloadTrace& executed,
                   const StudySettings& settings, const EnvSettings& env)
    : planner_(model, plan, settings), executed_(model, executed, settings), settings_(settings), env_(env) {
  if (env_.num_actions < 1 || env_.window_size < 1) throw InputError("", 0, "the environment needs num_actions >= 1 and window_size >= 1");
  if (!(env_.duration_high > env_.duration_low)) throw InputError("", 0, "the environment needs duration_high > duration_low");
  // The last observation is taken at default_time_step + simulation_length.
  const int rows = env_.default_time_step + settings_.simulation_length + 1;
  const std::string why = "the environment (steps " + std::to_string(env_.default_time_step) + " .. " + std::to_string(rows - 1) + ")";
  plan.require(rows, std::max(env_.window_size, env_.num_actions - 1), why);
  executed.require(rows - 1, 1, why);
  current_.assign(model.task_count(), settings_.starting_shares);
  t_ = env_.default_time_step;
}

std::vector<double> StudyEnv::observation(int t) {
  const auto a_count = static_cast<std::size_t>(env_.num_actions), w = static_cast<std::size_t>(env_.window_size);
  std::vector<double> obs(a_count * w);
  for (std::size_t a = 0; a < a_count; ++a) {
    const Shares config = a == 0 ? current_ : planner_.plan(t, static_cast<int>(a), 0);
    for (std::size_t k = 0; k < w; ++k) {
      const double runtime = 0 + planner_.step_duration(config, t, static_cast<int>(k));
      obs[a * w + k] = (runtime - env_.duration_low) * 1.0 / (env_.duration_high - env_.duration_low);
    }
  }
  return obs;
}

std::vector<double> StudyEnv::reset() {
  current_.assign(current_.size(), settings_.starting_shares);
  t_ = env_.default_time_step;
  return observation(t_);
}

StudyEnv::Step StudyEnv::step(int action) {
  if (action < 0 || action >= env_.num_actions)
    throw std::invalid_argument("action must be in 0.." + std::to_string(env_.num_actions - 1) + ", got " + std::to_string(action));
  double reward = env_.default_reward;
  if (action != 0) {
    reward -= settings_.checkpoint_penalty;
    current_ = planner_.plan(t_, action, 0);
  }
  Step out;
  out.superstep = executed_.step_duration(current_, t_, 0);
  reward -= out.superstep;
  out.reward = (reward + env_.duration_high) / (env_.duration_high - env_.duration_low);
  t_ += 1;
  out.observation = observation(t_);
  out.done = t_ == settings_.simulation_length + env_.default_time_step;
  return out;
}

}  // namespace kubesim::bsp
