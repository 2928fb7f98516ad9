// NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go and the scoring
// strategies least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go,
// resource_allocation.go), v1.26.
#pragma once

#include <string>
#include <vector>

#include "cluster/predicates.hpp"  // insufficient_resources, kTooManyPodsBit
#include "sched/kube/framework.hpp"

namespace kubesim {

struct ResourceWeight {
  std::size_t slot = kCpu;  // resource slot (ResourceNames)
  std::int64_t weight = 1;
};

struct UtilizationShapePoint {
  std::int64_t utilization = 0;  // 0..100
  std::int64_t score = 0;        // 0..10 (MaxCustomPriorityScore)
};

struct ScoringStrategy {
  enum class Type : std::uint8_t { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };
  Type type = Type::kLeastAllocated;
  std::vector<ResourceWeight> resources = {{kCpu, 1}, {kMemory, 1}};  // defaults.go
  std::vector<UtilizationShapePoint> shape;  // RequestedToCapacityRatio only
};

// The per-resource request sums the score uses (resource_allocation.go
// calculateResourceAllocatableRequest): returns false when the resource is skipped
// (allocatable 0, or an extended resource the pod does not request).
bool allocatable_and_requested(const NodeInfo& node, const PodTemplate& spec, std::size_t slot, bool use_requested,
                               std::int64_t* allocatable, std::int64_t* requested);

// Integer scoring formulas, exposed for unit tests.
std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity);
std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity);
// helper.BuildBrokenLinearFunction over a shape whose scores are already scaled by 10.
std::int64_t broken_linear(const std::vector<UtilizationShapePoint>& scaled_shape, std::int64_t p);

// One entry per resource slot, in first-seen order, the weights of repeated entries summed:
// sum(score * weight) and sum(weight) are unchanged, so every strategy scores the same.
std::vector<ResourceWeight> merge_duplicate_resources(const std::vector<ResourceWeight>& resources);

class NodeResourcesFit final : public FilterPlugin, public ScorePlugin {
 public:
  // `ignored_slots`: a bit (1 << slot) per extended resource the filter does not check
  // (NodeResourcesFitArgs.ignoredResources, and the resources an extender manages with
  // ignoredByScheduler, added to them as scheduler.go buildExtenders does).
  // `ignored_groups`: NodeResourcesFitArgs.ignoredResourceGroups (fit.go fitsRequest: an extended
  // resource whose name's part before '/' is one of them is not checked). Matched against the
  // store's resource names when the filter runs, so a resource first seen after the profile was
  // built (a node or pod created through the API in `serve`) is ignored too.
  explicit NodeResourcesFit(ScoringStrategy strategy, std::uint32_t ignored_slots = 0,
                            std::vector<std::string> ignored_groups = {});
  const char* name() const override { return "NodeResourcesFit"; }
  std::uint32_t events_to_register() const override {
    return kEventPodDelete | kEventNodeAdd | kEventNodeUpdateAny;
  }
  FilterResult filter(const CycleContext& ctx, const NodeInfo& node) const override;
  // With ignored resources the filter is not plain Fits: the search calls filter().
  bool is_fits_request() const override { return ignored_slots_ == 0 && ignored_groups_.empty(); }
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;
  bool scores_node_alone() const override { return true; }  // the NodeInfo's sums and the template's requests
  std::int64_t score_node(const PodTemplate& spec, const NodeInfo& node) const;

 private:
  struct Term {
    std::size_t slot;
    std::int64_t weight;
    std::int64_t pod_request;
  };
  std::size_t terms(const PodTemplate& spec, Term* out) const;
  std::int64_t score_terms(const Term* terms, std::size_t n, const NodeInfo& node) const;

  ScoringStrategy strategy_;
  std::vector<UtilizationShapePoint> scaled_shape_;
  // The slots ignoredResourceGroups covers, among the store's first `group_names_seen_` names
  // (a slot's name never changes and names are only added: the mask grows when they do).
  std::uint32_t group_slots(const ResourceNames& names) const;

  std::uint32_t ignored_slots_;
  std::vector<std::string> ignored_groups_;
  mutable std::uint32_t group_slots_ = 0;
  mutable std::size_t group_names_seen_ = 0;
};

// fit.go fitsRequest: insufficient_resources and kTooManyPodsBit (cluster/predicates.hpp).
// The status code of every NodeResourcesFit rejection.
inline constexpr StatusCode kFitFailureCode = StatusCode::kUnschedulable;
// The kFitFailureCode status for those bits, with every reason in upstream's order:
// "Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient
// ephemeral-storage", "Insufficient <extended resource name>".
FilterResult fit_failure(std::uint32_t insufficient, const ResourceNames& names);

}  // namespace kubesim
