// Fluxion's resource graph and its matcher, as KubeFlux/Fluence use them
// (flux-framework/flux-sched resource/, driven through ReapiCliMatchAllocate / ReapiCliCancel
// by flux-framework/flux-k8s flux-plugin/kubeflux/kubeflux.go and Fluence's fluxion service).
//
// Graph (flux-k8s Fluence utils.CreateJGF): cluster0 -> subnet -> node_i -> {core_c,
// memory_m, gpu_g}; ids are local to their node (MakeCore(index), MakeMemory(i, "MB", 1<<10):
// one vertex per GiB holding 1024 MB units). kubesim adds an optional socket level:
// `sockets` per node (configuration, default 1, or the node label fluxion.kubesim.io/sockets),
// core c of k on socket floor(c * sockets / k), reported with each core but NOT used for
// matching (see the slot rule below; upstream graphs have no socket or a single one).
//
// Jobspec (Fluence jobspec.go createResources): top-level `slot` x count, each {core: count,
// memory: MB (only if requested), gpu (only if requested)}. A slot is confined to ONE node:
// flux-sched dfu_impl.cpp test()/slot_match() match a slot at the first vertex whose direct
// children include every type the slot asks for (here the node), and dom_slot() then takes
// the slot's vertices from that vertex's subtree only. All vertices under a slot are
// exclusive; memory is taken in whole vertices (dom_slot: "your request will get 1 whole
// resource vertex"), so a slot holds ceil(MB / 1024) memory vertices.
//
// Scoring (resource/policies/*.cpp, evaluators/scoring_api.hpp, edge_eval_api.hpp): every
// matched vertex scores MATCH_MET + id + 1 (dom_finish_vtx); dom_finish_slot orders each
// node's free vertices (fold::less for low, the default fold::greater for high and
// locality), dom_slot cuts them into the node's possible slots in that order, a slot scoring
// the sum of its vertices, and dom_finish_graph picks the `count` best slots over all nodes
// with std::sort (insertion order, i.e. node order, on ties while there are fewer than 16
// candidates; unspecified beyond, node order here):
//   low      fold::less: the smallest id sum (spreads: core ids restart at 0 on each node)
//   high     fold::greater: the largest id sum, highest ids first within a node
//   lonode   low + node_centric (dfu_match_multilevel_id_impl.hpp: a node factor of
//            (node.id + 2) * 10000 added to every vertex below the node dominates): lowest
//            node first, its lowest ids first (packs)
//   hinode   high + node_centric: highest node first, highest ids first
//   locality greater_interval_first_t (dfu_match_locality.cpp): high's vertex order, and
//            dom_finish_graph compares the slots' scores through fold::interval_greater: all
//            candidate scores go into a boost::icl::interval_set (runs of consecutive
//            integers merge), and a slot whose score lies in a higher interval wins; slots in
//            the same interval tie (node order).
//   first    high + node_centric + stop_on_1_matches: NOT VERIFIED. Upstream stops the
//            traversal at the first match in explore_dynamically()'s outedge order (sorted
//            by available resources, not read further); modelled as the highest-id node that
//            fits.
//   *nodex   + node_exclusive (add_exclusive_resource_type(node)): the whole node goes to the job
// MatchAllocate runs with orelse_reserve=false: it allocates now or fails (no reservation).
// The job's slots are listed in node order (the match writer emits vertices in traversal
// order).
#pragma once

#include <array>
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
  std::uint32_t memory = 0;  // memory vertices (1 GiB = 1024 MB units each)
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
  std::vector<std::uint32_t> memory_ids;  // memory vertices held
  std::vector<std::uint32_t> gpus;
};

class ResourceGraph {
 public:
  struct NodeSpec {
    std::string name;
    std::uint32_t cores = 0;
    std::uint32_t sockets = 1;
    std::uint32_t memory = 0;  // memory vertices (1 GiB each)
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
  std::uint32_t free_cores(std::uint32_t node) const { return nodes_[node].cores.free; }
  std::uint32_t free_memory(std::uint32_t node) const { return nodes_[node].memory.free; }
  std::uint32_t free_gpus(std::uint32_t node) const { return nodes_[node].gpus.free; }
  // The job holding core c of `node` (0: free).
  std::uint64_t core_owner(std::uint32_t node, std::uint32_t core) const { return nodes_[node].cores.owner[core]; }
  std::uint32_t socket_of(std::uint32_t node, std::uint32_t core) const;
  std::uint64_t jobs_allocated() const { return next_job_ - 1; }
  std::size_t live_jobs() const { return live_jobs_; }

 private:
  // A node's vertices of one type: the job holding each (0: free) and how many are free.
  struct Pool {
    std::vector<std::uint64_t> owner;
    std::uint32_t free = 0;
  };
  struct NodeState {
    NodeSpec spec;
    Pool cores, memory, gpus;
    std::uint64_t exclusive_owner = 0;  // node_exclusive: the job owning the whole node
    bool untouched() const { return cores.free == spec.cores && memory.free == spec.memory && gpus.free == spec.gpus; }
  };
  // The vertex types below a node (core, memory, gpu), for the code that handles them alike:
  // the node's count, a slot's request, the node's pool and a slot's ids of that type.
  struct VertexType {
    std::uint32_t NodeSpec::*count;
    std::uint32_t SlotRequest::*request;
    Pool NodeState::*pool;
    std::vector<std::uint32_t> SlotAllocation::*ids;
  };
  static const VertexType kVertexTypes[3];
  struct Job {
    std::vector<SlotAllocation> slots;
    bool live = false;
  };
  // Whether one slot fits on node n for job `job` (node-exclusive rules included).
  bool fits(const NodeState& n, const SlotRequest& r, const MatchPolicy& p, std::uint64_t job) const;
  // Free vertex ids of `owner`, lowest first (or highest first).
  static std::vector<std::uint32_t> free_ids(const std::vector<std::uint64_t>& owner, bool high);
  // The same into `ids`, left empty when every vertex is free (`free` == owner.size()).
  // Puts the best `slots` of candidates_ first, in the policy's order (dom_finish_graph).
  void order_best(PolicyKind kind, std::uint32_t slots);
  static void free_ids_into(const std::vector<std::uint64_t>& owner, std::uint32_t free, bool high,
                            std::vector<std::uint32_t>& ids);
  // A slot match_allocate may choose: its node, its rank among the node's slots, its score.
  struct Candidate {
    std::uint32_t node;
    std::uint32_t k;
    std::int64_t score = 0;
    std::int64_t key = 0;  // locality: the lower bound of the score's interval
  };
  void take(std::uint32_t node, const SlotRequest& r, bool high, std::uint64_t job, SlotAllocation& out);
  void take_ids(std::uint32_t node, const SlotAllocation& want, std::uint64_t job, SlotAllocation& out);
  Job& job_record(std::uint64_t job);

  std::vector<NodeState> nodes_;
  std::vector<Job> jobs_;  // by job id - 1
  std::vector<Candidate> candidates_;                 // match_allocate's, reused
  std::array<std::vector<std::uint32_t>, 3> ids_scratch_;  // a node's free ids by vertex type, reused
  std::uint64_t next_job_ = 1;
  std::size_t live_jobs_ = 0;
};

}  // namespace kubesim::fluxion
