#include "study/scheduling_env/scheduling_env.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "sched/external_policy/policy_scheduler.hpp"
#include "setups/policy_setup.hpp"
#include "study/run_pipeline.hpp"

namespace kubesim {

SchedulingEnvSettings::Reward parse_env_reward(const std::string& name) {
  if (name == "waiting") return SchedulingEnvSettings::Reward::kWaiting;
  if (name == "utilisation" || name == "utilization") return SchedulingEnvSettings::Reward::kUtilisation;
  if (name == "slowdown") return SchedulingEnvSettings::Reward::kSlowdown;
  throw InputError("", 0, "reward: expected waiting, utilisation or slowdown, got \"" + name + "\"");
}

SchedulingEnv::SchedulingEnv(SchedulingEnvSettings settings)
    : settings_(std::move(settings)), inputs_(read_run_inputs(settings_.files)) {
  if (settings_.queue_window == 0) throw InputError("", 0, "queue_window: expected at least 1");
  extra_.push_back(policy_setup(settings_.scheduler_name, [] { return std::shared_ptr<SchedulingPolicy>(); },
                                "the environment's agent"));
  std::vector<SetupChoice> given = settings_.schedulers.empty()
                                       ? inputs_.scenario.schedulers
                                       : parse_setup_choices(settings_.schedulers, "schedulers", extra_);
  setups_ = with_policies(std::move(given), extra_);
  const SimulationInputs& in = inputs_.scenario.inputs;
  node_count_ = in.nodes.size();
  if (node_count_ == 0) throw InputError(inputs_.scenario.path, 0, "the environment needs a cluster with nodes");
  for (std::size_t r : {kCpu, kMemory}) {
    std::int64_t largest = 0;
    for (const Node& n : in.nodes) largest = std::max(largest, n.allocatable[r]);
    scale_[r] = largest > 0 ? 1.0 / static_cast<double>(largest) : 0.0;
  }
  if (settings_.until >= 0) {
    until_ = SimTime::from_seconds(settings_.until);
  } else if (inputs_.scenario.duration) {
    until_ = SimTime::at(*inputs_.scenario.duration);
  }
  head_.resize(settings_.queue_window);
}

SchedulingEnv::~SchedulingEnv() = default;
SchedulingEnv::SchedulingEnv(SchedulingEnv&&) noexcept = default;

SchedulingEnv::Step SchedulingEnv::reset(std::uint64_t seed, float* obs) {
  seed_ = seed;
  steps_ = 0;
  SimulationInputs in = copy_inputs(inputs_.scenario.inputs, inputs_.scenario.scheduler_config);
  install_setups(setups_, in, extra_);
  SimulationOptions options;
  options.seed = seed;
  options.model = ModelConfig::load(inputs_.model(settings_.model));
  options.until = until_;
  ReportSettings report = inputs_.report();
  report.parameters = setup_parameters(setups_);
  run_.reset();
  run_ = std::make_unique<RunPipeline>(std::move(in), options, inputs_.from_scenario ? &report : nullptr, settings_.version);
  Simulation& sim = run_->sim();
  scheduler_ = nullptr;
  for (std::size_t i = 0; i < sim.scheduler_count() && !scheduler_; ++i)
    if (auto* p = dynamic_cast<PolicyScheduler*>(&sim.scheduler_model(i)); p && p->name() == settings_.scheduler_name) scheduler_ = p;
  KUBESIM_ASSERT(scheduler_ != nullptr);
  scheduler_->sync_nodes();
  done_ = false;
  Step s;
  advance(s);
  s.reward = 0;  // nothing was decided yet
  observe(obs);
  return s;
}

bool SchedulingEnv::advance(Step& s) {
  Simulation& sim = run_->sim();
  for (;;) {
    if (scheduler_->has_opportunity()) {
      if (scheduler_->pending_count() > 0) return true;
      scheduler_->take_opportunity();
    }
    if (!sim.has_work()) {
      s.terminated = true;
      break;
    }
    const SimTime next = sim.next_event_time();
    if (next > until_) {
      s.truncated = true;
      break;
    }
    const double dt = (next - sim.now()).to_seconds();
    if (dt > 0) {
      switch (settings_.reward) {
        case SchedulingEnvSettings::Reward::kWaiting:
          s.reward -= dt * static_cast<double>(scheduler_->pending_count()) * settings_.reward_scale;
          break;
        case SchedulingEnvSettings::Reward::kSlowdown:
          s.reward -= dt * scheduler_->pending_inverse_run_time() * settings_.reward_scale;
          break;
        case SchedulingEnvSettings::Reward::kUtilisation: {
          std::int64_t requested = 0, allocatable = 0;
          for (const NodeInfo& n : scheduler_->cache().infos()) {
            requested += n.requested[kCpu];
            allocatable += n.allocatable[kCpu];
          }
          if (allocatable > 0)
            s.reward += dt * static_cast<double>(requested) / static_cast<double>(allocatable) * settings_.reward_scale;
          break;
        }
      }
    }
    sim.advance_to(next);
  }
  sim.run();  // the end as a whole run ends (a frozen cluster: at the instant it froze)
  done_ = true;
  return false;
}

SchedulingEnv::Step SchedulingEnv::step(std::int64_t action, float* obs) {
  if (done_) throw std::logic_error("step() after the episode ended: call reset()");
  Step s;
  ++steps_;
  PodId head;
  scheduler_->head(std::span<PodId>(&head, 1));
  PolicyContext ctx(*scheduler_);
  const bool wait = action < 0 || static_cast<std::size_t>(action) >= node_count_;
  if (!wait && ctx.fits(head, NodeId(static_cast<std::uint32_t>(action)))) {
    ctx.bind(head, NodeId(static_cast<std::uint32_t>(action)));
    if (scheduler_->pending_count() == 0) scheduler_->take_opportunity();
  } else {
    s.invalid = !wait;
    scheduler_->take_opportunity();
  }
  advance(s);
  if (!done_ && settings_.max_steps > 0 && steps_ >= settings_.max_steps) {
    s.truncated = true;
    done_ = true;
  }
  observe(obs);
  return s;
}

void SchedulingEnv::observe(float* obs) {
  const ObjectStore& store = run_->sim().store();
  const SimTime now = run_->sim().now();
  const std::size_t k = done_ ? 0 : scheduler_->head(head_);
  float* o = obs;
  for (std::size_t i = 0; i < settings_.queue_window; ++i, o += 4) {
    if (i >= k) {
      std::fill(o, o + 4, 0.0f);
      continue;
    }
    const Resources& r = store.spec_of(head_[i]).requests;
    const SimTime created = store.pod(head_[i]).created;
    o[0] = static_cast<float>(static_cast<double>(r[kCpu]) * scale_[kCpu]);
    o[1] = static_cast<float>(static_cast<double>(r[kMemory]) * scale_[kMemory]);
    o[2] = static_cast<float>(created.is_never() ? 0.0 : (now - created).to_seconds() / settings_.time_scale);
    o[3] = 1.0f;
  }
  const auto infos = scheduler_->cache().infos();
  std::int64_t on_nodes = 0;
  for (std::size_t n = 0; n < node_count_; ++n, o += 2) {
    if (n >= infos.size()) {
      o[0] = o[1] = 0.0f;
      continue;
    }
    const NodeInfo& info = infos[n];
    o[0] = static_cast<float>(static_cast<double>(info.allocatable[kCpu] - info.requested[kCpu]) * scale_[kCpu]);
    o[1] = static_cast<float>(static_cast<double>(info.allocatable[kMemory] - info.requested[kMemory]) * scale_[kMemory]);
    on_nodes += info.pod_count;
  }
  o[0] = static_cast<float>(scheduler_->pending_count());
  o[1] = static_cast<float>(on_nodes);
}

void SchedulingEnv::action_mask(std::uint8_t* out) {
  std::fill(out, out + action_count(), std::uint8_t{0});
  out[node_count_] = 1;
  if (done_) return;
  PodId head;
  if (scheduler_->head(std::span<PodId>(&head, 1)) == 0) return;
  PolicyContext ctx(*scheduler_);
  for (std::size_t n = 0; n < node_count_; ++n) out[n] = ctx.fits(head, NodeId(static_cast<std::uint32_t>(n))) ? 1 : 0;
}

double SchedulingEnv::now() const { return run_ ? run_->sim().now().to_seconds() : 0.0; }
std::size_t SchedulingEnv::pending() const { return scheduler_ ? scheduler_->pending_count() : 0; }

std::vector<ReportFile> SchedulingEnv::finish() {
  if (!run_) throw std::logic_error("finish() before reset()");
  std::vector<ReportFile> files = run_->finish();
  run_.reset();
  scheduler_ = nullptr;
  done_ = true;
  return files;
}

}  // namespace kubesim
