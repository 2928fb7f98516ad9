// RandomScore of the FGD authors' simulator (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/random_score.go): one feasible node drawn uniformly (their PreScore's
// rand.Intn over the filtered nodes) scores 100, the others 0. The draw comes from kubesim's
// seeded stream "plugins/random-score" (the run's seed), so runs repeat.
#pragma once

#include "core/random.hpp"
#include "sched/kube/plugins/gpu_plugin/gpu_plugin.hpp"

namespace kubesim {

// The stream of RandomScore's draws (the run's seed); the openb protocol mode's Random policy
// draws from the same one, so both pick the same node.
inline constexpr const char* kRandomScoreStream = "plugins/random-score";

class RandomScore final : public GpuScorePlugin {
 public:
  const char* name() const override { return "RandomScore"; }
  void set_gpu_handle(GpuHandle* handle) override;
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;

 private:
  mutable RandomStream rng_;
};

}  // namespace kubesim
