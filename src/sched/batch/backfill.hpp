// The HPC batch policies' shared implementation: batsched's Schedule (src/schedule.cpp: time
// slices of available resources, add_job_first_fit, remove_job, update_first_slice) and one
// decision procedure parameterised by reservation depth:
//   depth 0         FCFS (batsched src/algo/fcfs_fast.cpp): start queued jobs in order while
//                   the head fits now; the first that does not blocks the queue.
//   depth 1         EASY backfilling (src/algo/easy_bf.cpp EasyBackfilling::make_decisions,
//                   sort_queue_while_handling_priority_job): the queue head (priority job)
//                   holds a reservation; any other job starts now iff it fits without
//                   touching it, and holds none otherwise.
//   depth kAll      conservative backfilling (src/algo/conservative_bf.cpp): every queued
//                   job holds a reservation; on a job end the schedule is compressed.
//   1 < depth < kAll: the first `depth` waiting jobs hold reservations, the rest are tried
//                   first-fit and removed again (batsched has no such variant).
// Checked against the source in the stored index, which holds no oar-team/batsched repository
// but versions of its fork hpc/batsched4 whose early versions are batsched's code unmodified:
// easy_bf.cpp, fcfs_fast.cpp, conservative_bf.cpp (ConservativeBackfilling::make_decisions,
// the version without failures/checkpointing), schedule.cpp (Schedule::
// add_job_first_fit_after_time_slice, update_first_slice, remove_job_if_exists), and
// BasicResourceSelector::fit in src/locality.cpp ("allocated =
// available.left(nb_requested_resources)": the lowest machine ids of the intersection of the
// window's slices). Kubesim adaptations, not upstream: one node per job (below), and an extra
// full traversal when a reservation is due but did not start (batsched never sees that:
// Batsim kills jobs at their walltime). EASY's and FCFS's "free machines > 0" loop guards
// are short cuts that change no decision, so they are not reproduced.
//
// Kubernetes adaptation (not upstream): a job is one pod, placed on ONE node. Batsched's
// resources are whole machines; here each node has a profile over time of its used
// resources (every resource slot the pod requests, plus the pod count), and a job fits a
// node over [t, t + walltime) when the node's free amounts cover its requests in every slice
// of that window. Cores within a node are fungible (a pod does not pin cores), so only the
// amounts matter, not which cores. Node choice (batsched's basic selector takes the lowest
// machine ids): the earliest start over all eligible nodes, ties to the lowest NodeId.
//
// Walltime: the job's requested time (Pod::active_deadline). A job without one is treated as
// having an infinite walltime (its allocation runs to +infinity), unless the schedule is built
// to reject such jobs on release as conservative_bf.cpp does. BatchScheduler may give such
// pods Batsim's converter walltime instead (see batch_scheduler.hpp).
//
// Decision points (batsched make_decisions runs once per Batsim message): decide() is called
// once per instant after that instant's arrivals and completions. As in easy_bf.cpp and
// conservative_bf.cpp, when nothing ended (and no reservation is due) only the newly released
// jobs are tried; otherwise the whole queue is traversed, each reserved job being removed and
// re-inserted first-fit (its own slot is free while it is re-inserted, so it never moves
// later).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "core/ids.hpp"
#include "core/time.hpp"
#include "model/resources.hpp"

namespace kubesim {

class BackfillSchedule {
 public:
  static constexpr std::uint32_t kAll = std::numeric_limits<std::uint32_t>::max();

  // A job's demand on one node: the requested amounts (slots with bit set in `slots`) and one
  // pod.
  struct Demand {
    Resources requests;
    std::uint32_t slots = 0;
  };
  struct Start {
    std::uint32_t key;
    NodeId node;
  };
  // Optional per-(job, node) eligibility (taints, node selector); null: every node.
  using Eligible = std::function<bool(std::uint32_t key, NodeId node)>;

  // Why submit() queued nothing (kNone: the job was queued). batsched rejects such jobs on
  // release (add_reject_job).
  enum class Rejection : std::uint8_t {
    kNone,
    kNoWalltime,  // no walltime (zero or less) with reject_without_walltime (conservative_bf.cpp)
    kTooLarge,    // no node could ever hold it: its requests exceed every node's allocatable
  };

  // reject_without_walltime: submit() rejects a job without walltime instead of planning it
  // with an infinite one.
  explicit BackfillSchedule(std::uint32_t depth, bool reject_without_walltime = false)
      : depth_(depth), reject_without_walltime_(reject_without_walltime) {}
  std::uint32_t depth() const { return depth_; }
  void set_eligible(Eligible e) { eligible_ = std::move(e); }

  // Adds or updates a node (allocatable, max pods, whether new jobs may go there).
  void set_node(NodeId node, const Resources& allocatable, std::int64_t allowed_pods, bool schedulable);

  // A job enters the queue (batsched Queue::append_job; order: release time, then key).
  // Returns why it was rejected on release instead, queueing nothing (kNone: queued).
  Rejection submit(std::uint32_t key, SimTime release, const Demand& demand, Duration walltime);
  // A queued job disappeared (deleted): leaves the queue and the schedule.
  void withdraw(std::uint32_t key);
  // Something not decided here occupies a node from `now` until `end` (never: unknown), e.g.
  // a pod another scheduler bound.
  void occupy(std::uint32_t key, NodeId node, SimTime now, SimTime end, const Demand& demand);
  // A running (or decided) job ended: its resources are free from now (batsched remove_job).
  void release(std::uint32_t key);
  bool tracks(std::uint32_t key) const { return key < allocs_.size() && allocs_[key].state != State::kNone; }
  bool queued(std::uint32_t key) const { return key < allocs_.size() && allocs_[key].state == State::kQueued; }

  // One decision at `now`: the jobs that start now and their nodes, appended to `out` in
  // decision order. They are accounted as running from now for their walltime.
  void decide(SimTime now, std::vector<Start>& out);

  // Inspection (tests): a queued job's reservation start (never: none) and node.
  SimTime reservation_of(std::uint32_t key) const;
  NodeId node_of(std::uint32_t key) const;
  std::size_t queue_size() const { return queue_.size(); }
  std::uint64_t attempts() const { return attempts_; }

 private:
  enum class State : std::uint8_t { kNone, kQueued, kRunning };
  struct Alloc {
    State state = State::kNone;
    bool placed = false;   // holds [begin, end) on `node` in the profile
    bool fresh = false;    // queued since the last decision
    NodeId node;
    SimTime release;
    SimTime begin, end;
    Duration walltime;     // zero: none (infinite)
    Demand demand;
  };
  // One slice of a node's profile: from `begin` to the next slice's begin (the last to +inf).
  struct Slice {
    SimTime begin;
    Resources used;
    std::int64_t pods = 0;
  };
  struct NodeState {
    Resources allocatable;
    std::int64_t allowed_pods = 0;
    bool schedulable = false;
    bool known = false;
    std::vector<Slice> slices;  // never empty once known
  };

  Alloc& alloc(std::uint32_t key);
  std::size_t split(NodeState& n, SimTime t);   // index of the slice beginning at t
  void apply(Alloc& a, int sign);               // adds (+1) or removes (-1) a's usage on its node
  void place(Alloc& a, NodeId node, SimTime begin, SimTime end);
  void unplace(Alloc& a);
  void update_first_slice(NodeState& n, SimTime now);
  bool fits(const NodeState& n, const Slice& s, const Demand& d) const;
  // Earliest t >= now with the demand free on `n` over [t, t + walltime); never if none.
  SimTime earliest_fit(const NodeState& n, SimTime now, const Demand& d, Duration walltime) const;
  static SimTime end_of(SimTime begin, Duration walltime) {
    return walltime > Duration() ? begin + walltime : SimTime::never();
  }

  std::uint32_t depth_;
  bool reject_without_walltime_;
  Eligible eligible_;
  std::vector<NodeState> nodes_;
  std::vector<Alloc> allocs_;          // by key
  std::vector<std::uint32_t> queue_;   // waiting keys by (release, key)
  std::vector<std::uint32_t> running_; // keys in State::kRunning (unordered)
  bool ended_ = false;                 // a job ended, was withdrawn or a node changed since the last decision
  std::uint64_t attempts_ = 0;
};

}  // namespace kubesim
