// Fluxion's resource graph and its matcher, as KubeFlux/Fluence use them
// (flux-framework/flux-sched resource/, driven through ReapiCliMatchAllocate / ReapiCliCancel
// by flux-framework/flux-k8s flux-plugin/kubeflux/kubeflux.go and Fluence's fluxion service).
//
// Graph: cluster0 -> node_i -> socket_s -> core_c, plus per node a memory pool (1 GiB units)
// and gpu_g vertices (flux-k8s utils.CreateJGF builds cluster -> [subnet] -> node -> {core,
// memory, gpu}; it has no socket level). Sockets here: `sockets` per node (from the
// configuration, default 1, or the node label fluxion.kubesim.io/sockets), core c of k on
// socket floor(c * sockets / k). A socket is an intermediate vertex only: no jobspec asks
// for sockets, so it never changes which cores are chosen; it is reported with each core.
// Core and gpu ids are local to their node (0..k-1), as CreateJGF numbers them.
//
// Jobspec (flux-k8s jobspec.InspectPodInfo / Fluence jobspec.go): `slots` slots, each
// {core: max(1, ceil(cpu)), memory: GiB units, gpu: count}. All resources are exclusive.
// A slot is confined to one node (the research notes mark cross-node slots unverified).
//
// Match policies (resource/policies/dfu_match_policy_factory.cpp create_match_cb):
//   first    high_first + node_centric + stop_on_1_matches: the highest-id node that fits
//   high     high_first_t (dfu_match_high_id_first.cpp): highest-score = highest-id cores
//   low      low_first_t (dfu_match_low_id_first.cpp): lowest-id cores; core ids are local to
//            their node, so a slot goes where its k lowest free ids are lowest (spreads)
//   lonode   low + node_centric (dfu_match_multilevel_id_impl.hpp: a node factor of
//            (node.id + 2) * 10000 dominates every core score): lowest-id node first (packs)
//   hinode   high + node_centric: highest-id node first, its highest core ids first
//   *nodex   + node_exclusive (add_exclusive_resource_type(node)): the whole node goes to the job
//   locality greater_interval_first_t: APPROXIMATE (scoring not read): the node whose free
//            cores form the longest contiguous id run, ties to the lowest id
// MatchAllocate runs with orelse_reserve=false: it allocates now or fails (no reservation).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim::fluxion {

enum class PolicyKind : std::uint8_t { kFirst, kHigh, kLow, kLoNode, kHiNode, kLocality };

struct MatchPolicy {
  PolicyKind kind = PolicyKind::kLoNode;
  bool node_exclusive = false;
  // Whether cores (and gpus) are taken from the highest ids down.
  bool high() const { return kind == PolicyKind::kFirst || kind == PolicyKind::kHigh || kind == PolicyKind::kHiNode; }
};

// The match-policy names of dfu_match_policy_factory.cpp that are modelled: first, firstnodex,
// high, low, lonode, lonodex, hinode, hinodex, locality. nullopt for any other.
std::optional<MatchPolicy> parse_policy(std::string_view name);
std::string policy_name(const MatchPolicy& p);

struct SlotRequest {
  std::uint32_t cores = 1;
  std::uint32_t memory = 0;  // 1 GiB units
  std::uint32_t gpus = 0;
};

struct JobSpec {
  std::uint32_t slots = 1;
  SlotRequest per_slot;
};

// What one slot of a job holds.
struct SlotAllocation {
  std::uint32_t node = 0;  // graph node index
  std::vector<std::uint32_t> cores;
  std::uint32_t memory = 0;
  std::vector<std::uint32_t> gpus;
};

class ResourceGraph {
 public:
  struct NodeSpec {
    std::string name;
    std::uint32_t cores = 0;
    std::uint32_t sockets = 1;
    std::uint32_t memory = 0;  // 1 GiB units
    std::uint32_t gpus = 0;
  };
  // Adds node_i below cluster0; returns i.
  std::uint32_t add_node(const NodeSpec& spec);

  // ReapiCliMatchAllocate(orelse_reserve=false): the new job's id (1, 2, ...) or 0 when the
  // request does not fit now. Job ids count every successful match, like Flux's jobids.
  std::uint64_t match_allocate(const JobSpec& spec, const MatchPolicy& policy);
  // A pseudo-job for a pod another scheduler placed on `node` (the informer's state sync):
  // up to `want` of each resource, lowest free ids first; 0 if nothing was free.
  std::uint64_t allocate_on(std::uint32_t node, const SlotRequest& want);
  // ReapiCliCancel: frees the job's vertices; false if the job is unknown or already gone.
  bool cancel(std::uint64_t job);

  // The job's slots (empty if unknown or cancelled).
  const std::vector<SlotAllocation>& allocation(std::uint64_t job) const;
  std::size_t node_count() const { return nodes_.size(); }
  const NodeSpec& node(std::uint32_t i) const { return nodes_[i].spec; }
  std::uint32_t free_cores(std::uint32_t node) const { return nodes_[node].free_cores; }
  std::uint32_t free_memory(std::uint32_t node) const { return nodes_[node].free_memory; }
  std::uint32_t free_gpus(std::uint32_t node) const { return nodes_[node].free_gpus; }
  // The job holding core c of `node` (0: free).
  std::uint64_t core_owner(std::uint32_t node, std::uint32_t core) const { return nodes_[node].core_owner[core]; }
  std::uint32_t socket_of(std::uint32_t node, std::uint32_t core) const;
  std::uint64_t jobs_allocated() const { return next_job_ - 1; }
  std::size_t live_jobs() const { return live_jobs_; }

 private:
  struct NodeState {
    NodeSpec spec;
    std::vector<std::uint64_t> core_owner;
    std::vector<std::uint64_t> gpu_owner;
    std::uint32_t free_cores = 0, free_memory = 0, free_gpus = 0;
    std::uint64_t exclusive_owner = 0;  // node_exclusive: the job owning the whole node
    bool untouched() const { return free_cores == spec.cores && free_memory == spec.memory && free_gpus == spec.gpus; }
  };
  struct Job {
    std::vector<SlotAllocation> slots;
    bool live = false;
  };
  // Whether one slot fits on node n for job `job` (node-exclusive rules included).
  bool fits(const NodeState& n, const SlotRequest& r, const MatchPolicy& p, std::uint64_t job) const;
  // The id of the k-th free core counted from the low (or high) end; used by low/high.
  static std::uint32_t kth_free(const NodeState& n, std::uint32_t k, bool from_high);
  static std::uint32_t longest_free_run(const NodeState& n, std::uint32_t* start);
  void take(std::uint32_t node, const SlotRequest& r, bool high, bool locality, std::uint64_t job, SlotAllocation& out);
  Job& job_record(std::uint64_t job);

  std::vector<NodeState> nodes_;
  std::vector<Job> jobs_;  // by job id - 1
  std::uint64_t next_job_ = 1;
  std::size_t live_jobs_ = 0;
};

}  // namespace kubesim::fluxion
