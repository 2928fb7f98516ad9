// KubeFlux / Fluence as a SchedulerModel: kube-scheduler with the KubeFlux plugin, whose
// PreFilter asks Fluxion (fluxion/resource_graph.hpp) for an allocation and whose Filter
// admits only the node Fluxion chose (flux-framework/flux-k8s flux-plugin/kubeflux/
// kubeflux.go PreFilter, Filter, askFlux). The rest of the cycle is kube-scheduler's: the
// same scheduling queue (sched/kube/scheduling_queue.hpp: back-off 1 s -> 10 s, moves on
// assigned-pod deletes, 5-min flush), NodeResourcesFit on the chosen node (the KubeFlux
// profile keeps the default filters; configurable), binding after the bind latency.
//
// The graph is built once, at the first informer delivery, from the store's nodes (the
// plugin's New() lists them at start-up; it never rebuilds): control-plane nodes
// (node-role.kubernetes.io/control-plane or /master label) and unschedulable nodes are left
// out, and each node gets floor((allocatable cpu - requests of pods already on it) / 1000)
// cores and (allocatable memory - requests) >> 30 memory vertices (Fluence
// src/fluence/utils/utils.go CreateJGF, read; the 2021 KubeFlux and @14c4edc versions
// built from capacity and a single memory vertex, which is not modelled).
//
// informer off (KubeFlux 2021): no allocation is ever cancelled. Every attempt that passes
// MatchAllocate allocates a new Flux job (a pod that then fails NodeResourcesFit leaks it);
// finished pods keep their cores, so once the graph is full every pod fails PreFilter
// ("Unable to schedule pod; no fit; waiting") forever.
// informer on (flux-k8s flux-plugin/kubeflux/kubeflux.go @14c4edc, read): a pod that
// becomes Succeeded/Failed (updatePod, the informer's only handler there) or is deleted
// (Fluence DeletePod) has its Flux job cancelled; askFlux cancels a pod's previous
// allocation before a retry. reflectOtherSchedulers (the slides' "state synchronization",
// not upstream): a pod another scheduler bound takes a pseudo-job of its cores on its node
// until it ends.
// Pod groups (label scheduling.x-k8s.io/pod-group, size from the configuration's podGroups):
// the first member to be scheduled asks Fluxion for the whole group (slots = minMember);
// the other members take the group's remaining slots in order (Fluence PreFilter); the
// whole group's job is cancelled when any member ends (Fluence UpdatePod). No Permit wait.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/distribution.hpp"
#include "cluster/node_cache.hpp"
#include "core/random.hpp"
#include "model/object_store.hpp"
#include "sched/fluxion/resource_graph.hpp"
#include "sched/scheduler_model.hpp"
#include "sched/kube/scheduling_queue.hpp"

namespace kubesim {

struct FluxionConfig {
  std::string scheduler_name = "fluxion";
  // Fluence's chart default (values.yaml policy: lonode).
  fluxion::MatchPolicy policy{fluxion::PolicyKind::kLoNode, false};
  bool informer = true;
  bool reflect_other_schedulers = true;
  bool node_resources_fit = true;
  std::uint32_t sockets_per_node = 1;
  // MatchAllocate inside PreFilter: the slides log 0.0004-0.0007 s per call.
  Distribution cycle = Distribution::parse("uniform:0.0004:0.0007", "", 0);
  Distribution bind = Distribution::parse("uniform:0.002:0.006", "", 0);
  QueueConfig queue;
  struct PodGroup {
    std::string name;
    std::uint32_t min_member = 1;
  };
  std::vector<PodGroup> pod_groups;
};

// Reads the setup's YAML (keys: matchPolicy, informer, reflectOtherSchedulers,
// nodeResourcesFit, socketsPerNode, schedulingCycle, bindLatency, podGroups: [{name,
// minMember}]) over `defaults`. Errors are InputError(file, line, ...).
FluxionConfig load_fluxion_config(const std::string& path, FluxionConfig defaults = {});

class FluxionScheduler final : public SchedulerModel {
 public:
  FluxionScheduler(ObjectStore& store, SchedulerHost& host, std::uint64_t seed, FluxionConfig config);

  bool serves(const std::string& scheduler_name) const override { return scheduler_name == config_.scheduler_name; }
  void on_pod_change(const Change& change, SimTime now) override;
  void on_node_change(const Change& change, SimTime now) override;
  void on_event(const SchedulerEvent& event, SimTime now) override;
  bool busy() const override { return in_cycle_ || !queue_.active_empty() || !queue_.backoff_empty(); }
  std::uint64_t attempts() const override { return attempts_; }
  std::uint64_t bindings() const override { return bindings_; }

  const fluxion::ResourceGraph& graph() const { return graph_; }
  const FluxionConfig& config() const { return config_; }
  // The Flux job currently recorded for a pod (0: none).
  std::uint64_t job_of(PodId pod) const { return pod.value() < pods_.size() ? pods_[pod.value()].job : 0; }
  // The graph node index of a store node (-1: not in the graph).
  std::int32_t graph_node(NodeId node) const {
    return node.value() < graph_index_.size() ? graph_index_[node.value()] : -1;
  }
  std::uint64_t cancellations() const { return cancellations_; }

 private:
  struct PodState {
    std::uint64_t job = 0;        // its Flux job (own pods) or pseudo-job (other schedulers')
    std::uint32_t slot = 0;       // its slot in a group's job
    std::int32_t group = -1;      // index in config_.pod_groups
  };
  struct GroupState {
    std::uint64_t job = 0;
    std::uint32_t next_slot = 0;
  };
  PodState& state(PodId pod);
  void build_graph();
  fluxion::SlotRequest slot_request(const PodTemplate& spec) const;
  std::int32_t group_of(const PodTemplate& spec) const;
  void cancel_job_of(PodId pod);
  void account(PodId pod, NodeId node);
  void unaccount(PodId pod);
  void schedule_next_cycle(SimTime now);
  void start_cycle(SimTime now);
  void finish_cycle(SimTime now);
  void arm_ticks(SimTime now);
  // The chosen node passes NodeResourcesFit on this scheduler's cache? Else fills reason.
  bool fits_node(const PodTemplate& spec, NodeId node, std::string* reason) const;

  ObjectStore& store_;
  SchedulerHost& host_;
  FluxionConfig config_;
  RandomStream latency_rng_;
  SchedulingQueue queue_;
  fluxion::ResourceGraph graph_;
  bool graph_built_ = false;
  std::vector<std::int32_t> graph_index_;  // by NodeId
  std::vector<NodeId> graph_nodes_;        // by graph index
  std::vector<PodState> pods_;             // by PodId
  std::vector<GroupState> groups_;         // by config_.pod_groups index
  // The scheduler's cache: its pods' requests on each node (assumed or bound), for the
  // NodeResourcesFit check after the graph's match.
  NodeCache cache_;
  int gpu_slot_ = -1;

  bool in_cycle_ = false;
  bool cycle_posted_ = false;
  PodId cycle_pod_;
  NodeId cycle_node_;
  std::uint64_t cycle_number_ = 0;
  std::string cycle_message_;
  QueueFlushTicks ticks_;
  std::uint64_t attempts_ = 0;
  std::uint64_t bindings_ = 0;
  std::uint64_t cancellations_ = 0;
};

}  // namespace kubesim
