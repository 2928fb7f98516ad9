// A reinforcement-learning environment over any run (a scenario, or a cluster and a workload):
// an agent is the scheduler of the pods (setups/policy_setup.hpp: a PolicyScheduler stepped
// from outside). Gymnasium's API is python/kubesim/scheduling_env.py's; this is the engine.
//
// - Step: the simulation runs until its scheduler has a scheduling opportunity with pods
//   pending (sched/external_policy/policy_scheduler.hpp), then the agent places the pod at the
//   head of the queue on a node (action n < nodes) or waits (action = nodes): no more
//   placements until the next opportunity (a cluster change). A node the head pod does not
//   fit (PolicyContext::fits) counts as a wait, flagged `invalid`. After a placement the next
//   pod of the same instant is the next step's head.
// - Observation (float32, observation_size()): for each of the first `queue_window` pending
//   pods: its cpu and memory requests over the largest node's allocatable, its wait so far
//   over `time_scale` seconds, and 1 (0 for an empty slot); then for each node its free cpu and
//   memory over the largest node's allocatable; then the queue lengths: pending pods and pods on
//   nodes (this scheduler's view).
// - Reward, accumulated over the simulated time since the previous step: kWaiting: - Σ over
//   pending pods of their wait (seconds); kUtilisation: the integral of the cluster's requested
//   cpu fraction (seconds); kSlowdown: - Σ wait / run time over pending pods (an episode's sum
//   is - Σ (slowdown - 1) over its pods); all times `reward_scale`.
// - Episode: reset(seed) builds a fresh simulation with that seed (same seed and actions, same
//   trajectory, byte for byte); terminated when nothing can change any more, truncated at
//   `until` or after `max_steps` steps.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report/run_outputs.hpp"
#include "study/run_inputs.hpp"

namespace kubesim {

class PolicyScheduler;
class RunPipeline;

struct SchedulingEnvSettings {
  InputFiles files;
  std::string model;                   // empty: the scenario's, else realistic
  std::string schedulers;              // setups beside the agent ("A+B"); empty: the scenario's
  std::string scheduler_name = "agent";  // the agent's setup and schedulerName
  std::size_t queue_window = 4;
  enum class Reward : std::uint8_t { kWaiting, kUtilisation, kSlowdown } reward = Reward::kWaiting;
  double reward_scale = 1.0;
  double time_scale = 60.0;            // seconds: the observation's wait feature is wait / time_scale
  double until = -1;                   // seconds; < 0: the scenario's duration, if any
  std::uint64_t max_steps = 0;         // 0: no limit
  std::string version = "env";         // kubesim version written in the outputs
};

SchedulingEnvSettings::Reward parse_env_reward(const std::string& name);

class SchedulingEnv {
 public:
  // Reads the inputs (InputError on bad ones).
  explicit SchedulingEnv(SchedulingEnvSettings settings);
  ~SchedulingEnv();
  SchedulingEnv(SchedulingEnv&&) noexcept;

  std::size_t node_count() const { return node_count_; }
  std::size_t action_count() const { return node_count_ + 1; }
  std::size_t observation_size() const { return 4 * settings_.queue_window + 2 * node_count_ + 2; }

  struct Step {
    double reward = 0;
    bool terminated = false;
    bool truncated = false;
    bool invalid = false;
  };
  // A new episode with `seed`; writes the first observation into obs (observation_size()).
  // An episode with no decision at all is terminated at once (the returned step says).
  Step reset(std::uint64_t seed, float* obs);
  Step step(std::int64_t action, float* obs);
  // The head pod's valid actions (1: the node fits it; the wait action always 1).
  void action_mask(std::uint8_t* out);
  bool done() const { return done_; }
  double now() const;
  std::size_t pending() const;
  std::uint64_t steps() const { return steps_; }
  std::uint64_t seed() const { return seed_; }
  // The episode's outputs as `kubesim run` writes them (after the episode; once per episode).
  std::vector<ReportFile> finish();

 private:
  // Runs until a decision is due (returns true) or the episode ends; adds the reward.
  bool advance(Step& s);
  void observe(float* obs);

  SchedulingEnvSettings settings_;
  RunInputs inputs_;
  std::vector<SchedulerSetup> extra_;
  std::vector<SetupChoice> setups_;
  std::size_t node_count_ = 0;
  double scale_[2] = {1, 1};  // 1 / the largest node's allocatable cpu, memory
  SimTime until_ = SimTime::never();
  std::unique_ptr<RunPipeline> run_;
  PolicyScheduler* scheduler_ = nullptr;
  std::vector<PodId> head_;  // scratch: the window
  bool done_ = true;
  std::uint64_t steps_ = 0;
  std::uint64_t seed_ = 0;
};

}  // namespace kubesim
