#include "study/bsp_cluster_env.hpp"

#include <algorithm>
#include <stdexcept>

#include "bsp/gang_spec.hpp"
#include "core/error.hpp"
#include "engine/model_config.hpp"

namespace kubesim {

BspClusterEnv::BspClusterEnv(const std::string& scenario_path, const std::string& model, const bsp::EnvSettings& env)
    : scenario_(read_scenario(scenario_path)), gang_(bsp::read_gang_spec(scenario_)), model_(model), env_(env) {
  if (!gang_) throw InputError(scenario_path, 0, "the environment on the cluster needs a scenario with a bsp: section");
  if (scenario_.each_tenant_alone)
    throw InputError(scenario_path, gang_->line, "a bsp: job runs with the tenants together (not eachTenantAlone)");
  bsp::check_env_settings(env_);
  if (model_.empty()) model_ = scenario_.model.empty() ? "realistic" : scenario_.model;
  report_ = ReportSettings{scenario_.name, scenario_.capacity_milli, scenario_.sample_interval, scenario_.tenants, true,
                           setup_parameters(scenario_.schedulers), {}, {}};
  if (scenario_.duration) until_ = SimTime::at(*scenario_.duration);
}

BspClusterEnv::~BspClusterEnv() = default;

std::vector<double> BspClusterEnv::reset(std::uint64_t seed) {
  job_.reset();
  run_.reset();
  SimulationInputs inputs = copy_inputs(scenario_.inputs, scenario_.scheduler_config);
  if (!scenario_.schedulers.empty()) install_setups(scenario_.schedulers, inputs);
  SimulationOptions options;
  options.seed = seed;
  options.model = ModelConfig::load(model_);
  options.until = until_;
  run_ = std::make_unique<RunPipeline>(std::move(inputs), options, &report_, "env");
  job_ = std::make_unique<bsp::GangRun>(run_->sim(), *gang_, env_.default_time_step);
  job_->name_controller("RL environment");
  // The last observation is taken at row default_time_step + simulation_length.
  const int last = env_.default_time_step + job_->settings().simulation_length;
  try {
    job_->planner().trace().require(last + 1, std::max(env_.window_size, env_.num_actions - 1),
                                    "the environment (steps " + std::to_string(env_.default_time_step) + " .. " +
                                        std::to_string(last) + ")");
  } catch (const InputError& e) {
    throw InputError(gang_->source, gang_->line, std::string("bsp: ") + e.what());
  }
  t_ = env_.default_time_step;
  over_ = !job_->start(until_) || !job_->launch(until_);
  return bsp::env_observation(job_->planner(), job_->current_shares(), t_, env_);
}

BspClusterEnv::Step BspClusterEnv::step(int action) {
  if (!job_) throw std::logic_error("call reset() before step()");
  if (action < 0 || action >= env_.num_actions)
    throw std::invalid_argument("action must be in 0.." + std::to_string(env_.num_actions - 1) + ", got " + std::to_string(action));
  if (t_ >= episode_end()) throw std::logic_error("the episode is over: call reset()");
  Step out;
  if (over_ || !job_->step(t_, action, until_)) {
    // The scenario's duration ended the run before the job's start, its launch or this step.
    over_ = true;
    out.truncated = true;
    out.observation = bsp::env_observation(job_->planner(), job_->current_shares(), t_, env_);
    return out;
  }
  out.record = job_->result().steps.back();
  const bsp::GangStepRecord& r = out.record;
  out.reward = bsp::env_reward(env_, r.penalty, r.deletion + r.gang_wait + r.startup + r.superstep);
  t_ += 1;
  out.observation = bsp::env_observation(job_->planner(), job_->current_shares(), t_, env_);
  out.done = t_ == episode_end();
  return out;
}

std::vector<ReportFile> BspClusterEnv::finish() {
  if (!job_) throw std::logic_error("call reset() before finish()");
  job_->finish(until_);
  run_->add_gang_report(job_->result());
  run_->sim().run();
  std::vector<ReportFile> files = run_->finish();
  job_.reset();
  run_.reset();
  return files;
}

int BspClusterEnv::episode_end() const { return env_.default_time_step + job_->settings().simulation_length; }

const bsp::Shares& BspClusterEnv::current_config() const {
  if (!job_) throw std::logic_error("call reset() first");
  return job_->current_shares();
}

const std::vector<std::string>& BspClusterEnv::task_names() const {
  if (!job_) throw std::logic_error("call reset() first");
  return job_->result().task_names;
}

const bsp::GangStepRecord& BspClusterEnv::launch_record() const {
  if (!job_) throw std::logic_error("call reset() first");
  return job_->launch_record();
}

}  // namespace kubesim
