// Kueue's decision core (Kueue v0.9, classical flat cohorts, default feature gates: so
// MultiplePreemptions on, LendingLimit on, PrioritySortingWithinCohort on, fair sharing
// off), free of API timing: the cache's quota arithmetic (pkg/cache/resource_node.go,
// clusterqueue_snapshot.go), the flavor assigner (pkg/scheduler/flavorassigner/
// flavorassigner.go), the preemptor (pkg/scheduler/preemption/preemption.go,
// preemption_oracle.go), the queue manager's per-ClusterQueue heaps and inadmissible sets
// (pkg/queue/cluster_queue*.go, manager.go) and one scheduling cycle
// (pkg/scheduler/scheduler.go schedule). The controller (kueue_controller.hpp) drives it
// from Job changes and its own API writes. Each function names the upstream file and
// version it was checked against (kubernetes-sigs/kueue, read from the stored index).
//
// Quantities are per flavor-resource (fr = flavor * kMaxResources + resource slot), in the
// store's slot units. A workload is one PodSet: the pod template's requests times the pod
// count. Everything is kept in vectors and visited in index order (deterministic).
//
// Not modelled: the workload's LastAssignment (flavorassigner starts from the flavor after
// the last one tried, and cluster_queue.go requeueIfNotPresent requeues at once while
// LastAssignment.PendingFlavors(); both matter only with several flavors in a resource
// group), the "queueInadmissibleCycle >= popCycle" race of requeueIfNotPresent (our cycle
// is atomic), waitForPodsReady and its requeuing back-off.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/ids.hpp"
#include "core/time.hpp"
#include "sched/kueue/kueue_config.hpp"

namespace kubesim::kueue {

// flavorassigner.go FlavorAssignmentMode, ordered worst to best.
enum class Mode : std::uint8_t { kNoFit, kPreempt, kFit };

class Cache {
 public:
  enum class State : std::uint8_t { kPending, kInadmissible, kAdmitted, kDone };
  struct Workload {
    JobId job;
    std::uint32_t cq = 0;
    std::int32_t priority = 0;
    SimTime created;          // the queue-order timestamp (creationTimestamp)
    Resources total;          // requests of the whole PodSet
    State state = State::kPending;
    std::array<std::int8_t, kMaxResources> flavor{};  // assigned flavor per requested slot
    SimTime admitted_at;      // QuotaReserved condition time
    bool evicted = false;     // Evicted condition set (preempted), quota still reserved
  };
  struct Assignment {
    Mode mode = Mode::kNoFit;
    bool borrows = false;
    std::array<std::int8_t, kMaxResources> flavor{};  // -1: not requested
    std::uint32_t needs_preemption = 0;                 // slots whose flavor-resource is not Fit
    // Which message Assignment.Message() would give (flavorassigner.go): a fingerprint of its
    // reasons, each "insufficient unused quota for R in flavor F, N more needed" or
    // "insufficient quota for R in flavor F, request > maximum capacity (V > M)", summed so
    // that their order does not count (Status.Message sorts them).
    std::uint64_t message = 0;
  };
  // What one cycle did, for the controller to turn into API writes.
  struct CycleResult {
    std::vector<std::uint32_t> admitted;     // quota reserved (in admission order)
    std::vector<std::uint32_t> evicted;      // newly preempted victims
    std::vector<std::uint32_t> not_admitted; // nominated but requeued (a Pending condition)
    // By not_admitted's index: a fingerprint of the Pending condition's message
    // (scheduler.go entry.inadmissibleMsg); equal messages, equal fingerprints.
    std::vector<std::uint64_t> pending_message;
    void clear() { admitted.clear(); evicted.clear(); not_admitted.clear(); pending_message.clear(); }
  };

  explicit Cache(Config config);

  const Config& config() const { return config_; }
  std::uint32_t add_workload(JobId job, std::uint32_t cq, std::int32_t priority, SimTime created, const Resources& total);
  const Workload& workload(std::uint32_t w) const { return wls_[w]; }
  std::size_t workload_count() const { return wls_.size(); }

  // ---- quota arithmetic (exposed for tests) ----
  std::int64_t usage(std::uint32_t cq, std::uint32_t flavor, std::size_t slot) const {
    return cqs_[cq].usage[fr(flavor, slot)];
  }
  std::int64_t requestable_cohort_quota(std::uint32_t cq, std::size_t fr) const;
  std::int64_t used_cohort_quota(std::uint32_t cq, std::size_t fr) const;
  std::int64_t available(std::uint32_t cq, std::size_t fr) const;
  std::int64_t potential_available(std::uint32_t cq, std::size_t fr) const;
  static std::size_t fr(std::uint32_t flavor, std::size_t slot) { return flavor * kMaxResources + slot; }
  // Not const: the reclaim oracle (preemption_oracle.go) simulates preemptions on the
  // usage and restores it.
  Assignment assign_flavors(std::uint32_t w);
  // Victims for workload `w` with `a` (mode Preempt); restores the usage it simulates on.
  std::vector<std::uint32_t> preemption_targets(std::uint32_t w, const Assignment& a);

  // ---- queue manager and cycles ----
  // Whether a cycle has a head to nominate (a ClusterQueue whose head was not already
  // found unchanged-inadmissible since the last change of its cohort).
  bool has_heads() const;
  void cycle(SimTime now, CycleResult& out);
  // The workload's quota is released: it finished (kDone) or its eviction completed (back
  // to its queue). Inadmissible workloads of the cohort are requeued
  // (QueueInadmissibleWorkloads).
  void release(std::uint32_t w, bool finished);
  // A pending (not admitted) workload is removed (its Job finished or was deleted).
  void remove_pending(std::uint32_t w);
  std::uint64_t nominations() const { return nominations_; }

 private:
  struct Quota {
    bool covered = false;
    ResourceQuotaSpec spec;
  };
  struct ClusterQueue {
    std::int32_t cohort = -1;
    std::vector<Quota> quota;          // by fr
    std::vector<std::int64_t> usage;   // by fr
    std::vector<std::uint32_t> pending;       // the heap (unordered; the head is found by scan)
    std::vector<std::uint32_t> inadmissible;  // BestEffortFIFO's inadmissible set
    std::vector<std::uint32_t> admitted;      // workloads holding quota
    bool tried = false;  // its head was requeued unchanged; no cycle until its cohort changes
  };
  struct Entry {
    std::uint32_t w;
    Assignment a;
    std::vector<std::uint32_t> targets;
  };
  // flavorassigner.go granularMode: Preempt split into priority preemption and reclamation
  // of lent nominal quota (the latter preferred when choosing a flavor).
  enum class Granular : std::uint8_t { kNoFit, kPreempt, kReclaim, kFit };
  // What the preemptor works on (getTargets' requests and frsNeedPreemption): per slot the
  // flavor and quantity requested, and the slots whose flavor-resource needs preemption.
  struct Request {
    std::array<std::int8_t, kMaxResources> flavor{};
    Resources qty;
    std::uint32_t needs = 0;
  };

  std::int64_t guaranteed(const ClusterQueue& c, std::size_t fr) const;
  // rank_reclaim: whether Reclaim must be told from Preempt (the group has several flavors).
  // Adds the reason it gives when not Fit to *message.
  Granular fits_resource_quota(std::uint32_t w, std::size_t fr, std::int64_t v, bool rank_reclaim, bool* borrow,
                               std::uint64_t* message);
  bool borrowing_with(std::uint32_t cq, std::size_t fr, std::int64_t v) const;
  bool is_reclaim_possible(std::uint32_t w, std::size_t fr, std::int64_t v);
  std::vector<std::uint32_t> get_targets(std::uint32_t w, const Request& req);
  bool workload_fits(const Request& req, std::uint32_t cq, bool allow_borrowing) const;
  bool is_borrowing(std::uint32_t cq, const Request& req) const;
  bool uses_resources(std::uint32_t candidate, const Request& req) const;
  void add_usage(std::uint32_t w, std::int64_t sign);
  std::vector<std::uint32_t> minimal_preemptions(const Request& req, std::uint32_t cq,
                                                 const std::vector<std::uint32_t>& candidates, bool allow_borrowing,
                                                 const std::int32_t* borrow_below_priority);
  bool before_in_queue(std::uint32_t a, std::uint32_t b) const;
  void requeue_inadmissible(std::uint32_t cq);
  void changed(std::uint32_t cq);  // clears the `tried` marks of the cohort
  // The parts of a cycle (scheduler.go schedule): the heads nominated and sorted into
  // entries_, each entry processed against the snapshot, the snapshot dropped.
  void nominate();
  void process_entry(const Entry& e, SimTime now, CycleResult& out);
  void reserve_blocked_quota(const Entry& e);  // resourcesToReserve
  void requeue(std::uint32_t w, bool immediate, std::uint64_t message, CycleResult& out);  // requeueAndUpdate
  void snapshot_add(std::uint32_t cq, std::size_t f, std::int64_t v);
  void finish_cycle(const CycleResult& out);

  Config config_;
  std::vector<ClusterQueue> cqs_;
  std::vector<std::vector<std::uint32_t>> cohorts_;  // members
  std::vector<Workload> wls_;
  std::size_t frs_ = 0;
  std::uint64_t nominations_ = 0;
  // Cycle scratch, reused.
  struct UsageDelta {
    std::uint32_t cq;
    std::size_t fr;
    std::int64_t v;
  };
  std::vector<Entry> entries_;
  std::vector<UsageDelta> snapshot_adds_;   // usage added to the cycle's snapshot, undone at its end
  std::vector<std::uint8_t> preempted_;     // by workload: a target of this cycle (preemptedWorkloads)
};

}  // namespace kubesim::kueue
