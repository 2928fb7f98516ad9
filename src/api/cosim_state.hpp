// What `serve --clock cosim` reads about the external schedulers (api/clock.hpp's rule): the
// pods waiting for their scheduler's decision, those it gave up on (PodScheduled=False), how
// quickly it reacts, and whether a pod given up on would now fit or may preempt. Kept from
// the change feed (one call per pod change, O(1) but for the ordered sets), never by a scan of
// all pods; the per-node totals are what kube-scheduler's cache accounts
// (pkg/scheduler/internal/cache/cache.go: bound, non-terminal pods).
//
// Not thread-safe: the ApiServer calls it under its lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/simulation.hpp"

namespace kubesim::api {

// The placement check of given_up_pod_fits(): whether `spec` passes the default profile's
// filters on `node`, given the requests and count of the pods bound there (NodeUnschedulable,
// TaintToleration, NodeAffinity/nodeSelector, NodeResourcesFit), with the shared predicates
// of cluster/predicates.hpp.
bool passes_default_filters(const PodTemplate& spec, const Node& node, const Resources& requested,
                            std::int64_t pod_count);

class CosimState {
 public:
  explicit CosimState(const Simulation& sim) : sim_(sim) {}

  // A pod was added, changed or deleted: its decision state and its node accounting.
  void on_pod_change(PodId pod);
  // Any change: a pod ending or deleted, or a node changed, may free capacity.
  void on_change(const Change& change);
  // A watch stream carried the pod (by model index) to a client: a waiting pod's reaction
  // time runs from the first such delivery.
  void on_delivered(std::uint32_t pod);

  std::size_t undecided() const { return undecided_; }
  std::size_t given_up() const { return given_up_; }
  bool capacity_freed() const { return capacity_freed_; }
  void clear_capacity_freed() { capacity_freed_ = false; }
  // See ApiServer::given_up_pod_fits (cached until the next change).
  bool given_up_pod_fits();
  // See ApiServer::given_up_pod_may_preempt.
  bool given_up_pod_may_preempt() const;
  // namespace/name of the pods still waiting or given up on, by pod index.
  std::vector<std::string> pending_pods() const;
  // The longest of the latest decisions' reaction times, capped at a second.
  std::chrono::steady_clock::duration recent_reaction_time() const;

 private:
  enum State : std::uint8_t { kNotWaiting = 0, kUndecided = 1, kGivenUp = 2 };
  void track_decision(PodId pod);
  void account_on_node(PodId pod);

  const Simulation& sim_;
  // By PodId: the pod's State (pods of built-in schedulers stay kNotWaiting).
  std::vector<std::uint8_t> external_state_;
  // By PodId: when a watch first carried the pod while it waited for a decision (zero: not yet).
  std::vector<std::chrono::steady_clock::time_point> delivered_at_;
  std::chrono::steady_clock::duration reactions_[32] = {};  // the latest decisions' reaction times (a ring)
  std::size_t next_reaction_ = 0;
  std::size_t undecided_ = 0, given_up_ = 0;
  bool capacity_freed_ = false;
  // Pods given up on (PodId values, ordered); per node, the requests and count of the bound,
  // non-terminal pods (what kube-scheduler's cache accounts: it drops terminal pods), and
  // per pod the node it is accounted on.
  std::set<std::uint32_t> given_up_pods_;
  std::vector<Resources> node_requested_;
  std::vector<std::int64_t> node_pod_count_;
  std::vector<NodeId> accounted_node_;
  std::map<std::int32_t, std::uint32_t> bound_priorities_;  // priority -> bound, non-terminal pods
  std::optional<bool> given_up_fit_;  // the cached answer of given_up_pod_fits()
};

}  // namespace kubesim::api
