// Default-profile score plugins whose inputs kubesim's objects do not carry (no topology
// spread constraints, no inter-pod affinity, no container images). Each returns exactly
// what upstream returns for such pods, so total scores equal kube-scheduler's:
// - PodTopologySpread (podtopologyspread/scoring.go): no constraints -> every node scores 0,
//   and NormalizeScore with maxScore 0 gives every node MaxNodeScore. (The system default
//   constraints only apply to pods selected by a Service/RC/RS/StatefulSet.)
// - InterPodAffinity (interpodaffinity/scoring.go): no affinity terms -> 0, left as is.
// - ImageLocality (imagelocality/image_locality.go): no image known on any node -> 0.
#pragma once

#include "sched/kube/framework.hpp"

namespace kubesim {

class ConstantScore final : public ScorePlugin {
 public:
  ConstantScore(const char* name, std::int64_t value) : name_(name), value_(value) {}
  const char* name() const override { return name_; }
  void score(const CycleContext&, std::span<const NodeInfo* const>, std::span<std::int64_t> scores) const override {
    for (auto& s : scores) s = value_;
  }
  std::optional<std::int64_t> uniform_score(const CycleContext&) const override { return value_; }

 private:
  const char* name_;
  std::int64_t value_;
};

}  // namespace kubesim
