// A scheduler whose decisions an outside policy makes (a Python class through the pybind11
// module, a Gymnasium agent, or any C++ SchedulingPolicy): kubesim keeps the queue of pending
// pods and a cache of the nodes, as every model does from its informer stream, and at each
// scheduling opportunity hands both to the policy, read-only and without copies, then applies
// its answer: bindings, preemptions, and when to be asked again.
//
// - Pending pods: those whose schedulerName this scheduler serves, unbound, not terminal, not
//   deleted and without scheduling gates, in the order they became pending (creation order for
//   a workload's pods), with their requests in a parallel array (PolicyContext::pending).
// - Nodes: the shared NodeCache (cluster/node_cache.hpp) fed by this scheduler's informer
//   stream: allocatable, the sums of the requests of the pods on each node (other schedulers'
//   too, and the pods this policy bound whose binding has not landed yet), the pods, devices.
// - Scheduling opportunities: one per instant at which a pod it serves became pending, a pod
//   left a node, a node changed, or a retry the policy asked for falls due; taken in the
//   scheduler phase, after all of that instant's informer deliveries (as the batch policies,
//   sched/batch/batch_scheduler.hpp). A pod left pending is offered again at the next one.
// - Bindings: the pod is assumed on the node at once (the policy's later reads see it) and the
//   binding API call lands after the latency model's `bind` latency (kBindDone), with the
//   devices the cache gave it first fit. A binding refused by the API (the pod was deleted
//   meanwhile) is forgotten. Resource fit is the policy's business (fits() tells): a pod bound
//   where it does not fit is refused by the kubelet's admission (OutOfcpu), as in a cluster.
// - Preemption: DELETE of the victim with its terminationGracePeriodSeconds and the
//   DisruptionTarget reason kube-scheduler's preemption writes (sched/kube/scheduler.cpp
//   prepare_candidate, upstream pkg/scheduler/framework/preemption/preemption.go).
// - Waiting: a pending pod not bound waits for the next opportunity; retry_at(t) makes one at
//   t. While a retry is pending the scheduler is busy, and a run whose cluster stays frozen for
//   longer than the longest retry asked ends (Simulation::stop_reason), so a policy that keeps
//   retrying without effect cannot hold a run open for ever.
// - Stepping from outside (the Gymnasium environment): without a policy, an opportunity is
//   only recorded (has_opportunity); the caller decides through context() between steps of
//   the simulation, then take_opportunity().
//
// Not modelled: the policy's own computing time (decisions take no simulated time), a
// scheduling cycle's cost, the client's rate limiter.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cluster/node_cache.hpp"
#include "core/distribution.hpp"
#include "core/random.hpp"
#include "sched/scheduler_model.hpp"

namespace kubesim {

class PolicyScheduler;

// What a policy sees and does at one scheduling opportunity. A view over the scheduler's own
// arrays: valid during the call only (copy what you keep).
class PolicyContext {
 public:
  explicit PolicyContext(PolicyScheduler& scheduler) : s_(scheduler) {}
  SimTime now() const;
  // The pending pods in the order they became pending, and their requests (parallel). A pod
  // bound during this call stays listed until the call returns (is_pending() says).
  std::span<const PodId> pending() const;
  std::span<const Resources> pending_requests() const;
  bool is_pending(PodId pod) const;
  // This scheduler's view of the nodes (NodeCache::infos(): allocatable and requested, by
  // NodeId; pods_on, devices, device_use).
  const NodeCache& nodes() const;
  const ObjectStore& store() const;
  // Whether the kubelet would admit the pod on the node as the cache sees it and
  // kube-scheduler's filters would pass it: resources and pod count (NodeResourcesFit),
  // spec.nodeName, node selector and required affinity, taints, cordon, devices.
  bool fits(PodId pod, NodeId node) const;
  // Decisions. bind and preempt throw std::invalid_argument for a pod that is not pending here
  // (bind) or not on a node (preempt), or a node that does not exist.
  void bind(PodId pod, NodeId node);
  void preempt(PodId victim);
  // Asks to be called again at `at` (not earlier than now; the earliest asked wins).
  void retry_at(SimTime at);

 private:
  PolicyScheduler& s_;
};

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // One scheduling opportunity. An exception propagates out of the simulation's run.
  virtual void schedule(PolicyContext& context) = 0;
};

class PolicyScheduler final : public SchedulerModel {
 public:
  // `policy` null: stepped from outside (has_opportunity / context / take_opportunity).
  PolicyScheduler(ObjectStore& store, SchedulerHost& host, std::string scheduler_name,
                  std::shared_ptr<SchedulingPolicy> policy, Distribution bind_latency, std::uint64_t seed);

  bool serves(const std::string& scheduler_name) const override { return scheduler_name == name_; }
  void on_pod_change(const Change& change, SimTime now) override;
  void on_node_change(const Change& change, SimTime now) override;
  void on_event(const SchedulerEvent& event, SimTime now) override;
  bool busy() const override { return decision_posted_ || !retry_at_.is_never(); }
  Duration retry_window() const override { return longest_retry_; }
  std::uint64_t attempts() const override { return attempts_; }
  std::uint64_t bindings() const override { return bindings_; }
  const std::string& name() const { return name_; }

  // ---- Stepped from outside (no policy) ----
  // An opportunity arrived and was not taken yet.
  bool has_opportunity() const { return opportunity_; }
  // The context of the opportunity (pending pods compacted first).
  PolicyContext context();
  // Ends the opportunity: the pods left pending wait for the next one.
  void take_opportunity() { opportunity_ = false; }
  std::size_t pending_count() const { return pending_count_; }
  // The first pending pods in order (up to out.size()), without compacting: amortised
  // O(out.size()) per call while the caller binds from the head. Returns how many.
  std::size_t head(std::span<PodId> out);
  // Σ 1 / run time (seconds) over the pending pods (a pod without a run time counts 1 s): the
  // rate at which their slowdowns grow.
  double pending_inverse_run_time() const { return pending_inverse_run_time_; }
  const NodeCache& cache() const { return cache_; }
  // Nodes the store has that the cache was not told of yet (the start): added now.
  void sync_nodes();

 private:
  friend class PolicyContext;
  static constexpr std::uint32_t kNotPending = ~0u;
  void request_decision(SimTime now);
  void decide(SimTime now);
  void add_pending(PodId pod);
  void remove_pending(PodId pod);
  void compact_pending();
  double inverse_run_time(PodId pod) const;
  void bind_now(PodId pod, NodeId node);
  void preempt_now(PodId victim);
  void ask_retry(SimTime at);

  ObjectStore& store_;
  SchedulerHost& host_;
  std::string name_;
  std::shared_ptr<SchedulingPolicy> policy_;
  Distribution bind_latency_;
  RandomStream latency_rng_;
  NodeCache cache_;
  bool nodes_synced_ = false;
  // Pending pods in order, with holes (invalid ids) where pods left since the last compaction.
  std::vector<PodId> pending_;
  std::vector<Resources> pending_requests_;
  std::vector<std::uint32_t> slot_;  // by PodId: index in pending_, or kNotPending
  std::size_t pending_count_ = 0;
  std::size_t head_scan_ = 0;  // every entry of pending_ before it has left (head())
  double pending_inverse_run_time_ = 0;
  bool decision_posted_ = false;
  bool opportunity_ = false;
  SimTime now_;
  SimTime retry_at_ = SimTime::never();  // the earliest retry asked (never: none)
  Duration longest_retry_;
  std::uint64_t attempts_ = 0;
  std::uint64_t bindings_ = 0;
};

}  // namespace kubesim
