// A model of kube-scheduler v1.26 (pkg/scheduler/schedule_one.go, eventhandlers.go,
// internal/cache): one scheduling queue and one cache shared by its profiles, one pod per
// scheduling cycle, node sampling from a rotating start index, filtering, scoring and a
// seeded random tie-break, asynchronous binding, and the queue moves on cluster events.
//
// Time model: a cycle that starts at t decides on the cache as it is at t (upstream takes a
// snapshot) and ends at t + cycle latency, when the pod is assumed (success) or re-queued
// (failure). Events that reach the scheduler meanwhile count as arriving during the cycle
// (moveRequestCycle). A failure whose PodScheduled condition changed is patched to the API
// before the next cycle starts. Binding runs concurrently: the bind call lands after the
// bind latency. With zero latencies every cycle is instantaneous.
//
// Preemption (sched/kube/preemption.cpp): a FitError runs DefaultPreemption on the same cache at
// the cycle's start; its API calls (victim deletions, cleared nominations of lower-priority
// pods) are made when the cycle ends, and the preemptor's nominatedNodeName travels with the
// PodScheduled=False status patch (updatePod), as in v1.26. The nominator reserves room on
// a node for pods nominated to it (RunFilterPluginsWithNominatedPods).
#pragma once

#include <functional>

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/distribution.hpp"
#include "core/event_queue.hpp"
#include "core/random.hpp"
#include "model/object_store.hpp"
#include "core/client_rate_limiter.hpp"
#include "sched/cluster_client.hpp"
#include "cluster/node_cache.hpp"
#include "sched/kube/profile.hpp"
#include "sched/scheduler_model.hpp"
#include "sched/kube/scheduling_queue.hpp"

namespace kubesim {

// What a scheduling cycle's duration grows with (issue 18): the CPU time of the work it
// does, on `cores` cores. kube-scheduler v1.26 filters the nodes (findNodesThatPassFilters),
// scores the feasible ones (prioritizeNodes) and dry-runs preemption (DryRunPreemption) with
// a parallelizer of `parallelism` goroutines (default 16, KubeSchedulerConfiguration), so
// these parts run on min(parallelism, cores) cores at once; the rest of the cycle (pop,
// snapshot, PreFilter, selectHost, assume) is the `cycle` distribution. Coefficients are
// seconds of CPU time; all zero (the default) leaves the cycle to that distribution alone.
struct CycleCost {
  double per_filtered_node_plugin = 0;  // one node through one enabled filter plugin
  double per_scored_node_plugin = 0;    // one feasible node through one enabled score plugin
  double per_pod_on_scored_node = 0;    // per pod on each scored node
  double per_dry_run_node = 0;          // preemption: one node dry-run (NodeInfo.Clone, filters)
  double per_pod_on_dry_run_node = 0;   // per pod on each dry-run node
  double cores = 1;                     // cores the scheduler's parallel work gets
  bool any() const {
    return per_filtered_node_plugin != 0 || per_scored_node_plugin != 0 || per_pod_on_scored_node != 0 ||
           per_dry_run_node != 0 || per_pod_on_dry_run_node != 0;
  }
};

struct SchedulerLatencies {
  Distribution cycle;        // one scheduling attempt's fixed part (or all of it, without `cost`)
  CycleCost cost;            // its part that grows with the work done
  Distribution bind;         // the binding API call
  Distribution status_patch; // the PodScheduled=False status patch after a failure
  // Whether API calls wait for the client's token bucket (clientConnection.qps/burst,
  // core/client_rate_limiter.hpp). The ideal model has no API cost at all.
  bool client_rate_limit = false;
};

class Scheduler final : public SchedulerModel, public FrameworkHandle, public GpuHandle {
 public:
  Scheduler(ObjectStore& store, SchedulerConfig config, SchedulerLatencies latencies, std::uint64_t seed,
            SchedulerHost& host);

  // True if one of this scheduler's profiles serves `scheduler_name`.
  bool serves(const std::string& scheduler_name) const override;
  void on_pod_change(const Change& change, SimTime now) override;
  void on_node_change(const Change& change, SimTime now) override;
  // With no informer plugin (Coscheduling's PodGroup, CapacityScheduling's ElasticQuota
  // informers watch all pods), what this scheduler keeps of pods it does not serve is its
  // cache of assigned pods (cache_add/cache_remove).
  bool idle_without_own_pods() const override;
  void on_event(const SchedulerEvent& event, SimTime now) override;
  bool busy() const override {
    return in_cycle_ || !queue_.active_empty() || !queue_.backoff_empty() || !waiting_.empty();
  }
  // True while a pod waits in unschedulablePods although the cluster changed after it failed
  // (a pod removed from a node, a node changed) without the change moving it: no plugin that
  // rejected it registered the event (Coscheduling's PreFilter registers only Pod Add, yet
  // a pod ending can close its minResources gap). Only the periodic flush of unschedulable
  // pods (5 minutes, scheduling_queue.go flushUnschedulablePodsLeftover) retries it, and that
  // retry may succeed, so the run must not end before it. O(1): the list is in insertion
  // order, so its first pod failed first.
  bool expects_change() const override {
    const PodId first = queue_.first_unschedulable();
    return first.valid() && failed_at_epoch_[first.value()] < cluster_epoch_;
  }
  // The back-off (podMaxBackoffSeconds plus the 1 s flush) and the longest Permit wait of
  // the waiting pods (Coscheduling: the PodGroup's scheduleTimeoutSeconds, else
  // permitWaitingTimeSeconds; at most 15 minutes).
  Duration retry_window() const override;
  // Futile attempts (sched/kube/futile_retry.cpp): stuck, would_fail and the generation of
  // the cluster the decisions read.
  bool stuck() override;
  bool would_fail(PodTemplateId spec) override;
  std::uint64_t cluster_generation() const override { return generation_; }
  // Whether an attempt whose inputs did not change since the pod's last failure replays that
  // failure's bookkeeping instead of running the filters (on by default; off only to prove
  // that the outputs do not depend on it).
  void set_replay_futile(bool on) { replay_futile_ = on; }
  std::uint64_t replayed_attempts() const { return replayed_attempts_; }
  std::uint64_t bindings() const override { return bindings_; }
  std::uint64_t attempts() const override { return attempts_total_; }
  const SchedulingQueue& queue() const { return queue_; }
  // A plugin instance of any profile by name (tests, tools); null if none.
  Plugin* plugin(const std::string& name) {
    for (auto& p : config_.profiles)
      for (auto& pl : p.plugins)
        if (name == pl->name()) return pl.get();
    return nullptr;
  }

  // One scheduling decision on the current cache, without side effects on the queue: the
  // chosen node or an invalid id. Exposed for tests and what-if tools.
  struct Decision {
    NodeId node;
    std::uint32_t feasible = 0;
    std::uint32_t processed = 0;
    std::uint32_t interested_events = 0;
    std::uint32_t unresolvable = 0;  // rejected nodes whose status was UnschedulableAndUnresolvable
    std::uint32_t scored = 0;        // feasible nodes that were scored (none when only one was found)
    std::uint64_t pods_on_scored = 0;  // the cache's pods on those nodes
    std::string message;  // FitError message when no node fits
    bool error = false;   // not a FitError: an extender failed (no PostFilter runs)
  };
  Decision decide(PodId pod);
  // Called after each scheduling cycle's decision (not for what-if calls of decide) with
  // the pod, the chosen node (invalid: none fits) and every node with the best total score
  // (the nodes selectHost's tie-break chose among), in the order they were found. For
  // differential tests against the real kube-scheduler (kubesim run --decisions).
  using DecisionObserver = std::function<void(PodId pod, NodeId chosen, const std::vector<NodeId>& best)>;
  void set_decision_observer(DecisionObserver f) { decision_observer_ = std::move(f); }

  // The DefaultPreemption PostFilter's verdict for a pod that `decide` found no node for
  // (framework/preemption/preemption.go Evaluator.Preempt, v1.26). Nothing is applied: the
  // victims are deleted and the nomination made when the cycle ends (prepareCandidate).
  struct Preemption {
    // NominatingInfo: kNoop keeps the pod's nominatedNodeName (a nil PostFilterResult),
    // kOverride sets it to `node` (invalid: clears it).
    enum class Mode : std::uint8_t { kNoop, kOverride };
    Mode mode = Mode::kNoop;
    NodeId node;                 // the chosen candidate (valid only on success)
    std::vector<PodId> victims;  // in upstream's order (PDB-violating first, each by importance)
    std::uint32_t pdb_violations = 0;
    std::string message;         // the PostFilter status message ("preemption: ..."), empty on success
    bool ran = false;            // false when the profile has no DefaultPreemption or no FitError
    bool error = false;          // an Error status (aborts the PostFilter chain)
  };
  // The cycle's duration for `decision` and the preemption dry runs since start_cycle:
  // latencies.cycle plus the work's CPU time over min(parallelism, cores).
  Duration cycle_duration(const Decision& decision);
  // Runs PostFilter for `pod` after `decide(pod)` (same cache state) returned no node. Draws
  // the candidate offset from the "scheduler/preemption" stream.
  // With `custom`, the Evaluator runs that plugin's preemption.Interface (CapacityScheduling)
  // instead of DefaultPreemption's.
  const Preemption& preempt(PodId pod, const Decision& decision, SimTime now = SimTime::zero(),
                            PreemptionPlugin* custom = nullptr);
  // The PostFilter chain (runtime/framework.go RunPostFilterPlugins, v1.26): DefaultPreemption,
  // then the profile's other PostFilter plugins, until one succeeds or one fails with an Error;
  // the last non-Noop nomination wins. Sets last_preemption().
  void run_post_filters(PodId pod, const Decision& decision, SimTime now);
  const Preemption& last_preemption() const { return preemption_; }

  // The nominator (internal/queue/scheduling_queue.go nominator): the in-memory record of
  // the node each pending pod is nominated to, used to reserve room for it.
  NodeId nominated_node_of(PodId pod) const {
    return pod.value() < nominated_.size() ? nominated_[pod.value()] : NodeId();
  }
  const std::vector<PodId>& nominated_pods_on(NodeId node) const;
  // The pods the cache accounts on `node` (assumed or bound, not terminal), in no order.
  const std::vector<PodId>& pods_on(NodeId node) const;
  static std::int32_t num_feasible_nodes_to_find(std::int32_t percentage, std::int32_t num_all_nodes);
  // The time decide() runs at (PreFilter caches expire by it); start_cycle sets it.
  void set_decide_time(SimTime now) { decide_now_ = now; }

  // FrameworkHandle (framework/runtime/framework.go, waiting_pods_map.go).
  const ObjectStore& store() const override { return store_; }
  std::vector<PodId> waiting_pods() const override;
  void allow_waiting_pod(PodId pod, const char* plugin) override;
  void reject_waiting_pod(PodId pod, const char* plugin, const std::string& message) override;
  void request_activation(PodId pod) override { to_activate_.push_back(pod); }
  NodeId cached_node(PodId pod) const override { return cache_.node_of(pod); }
  const std::vector<PodId>& cached_pods_on(NodeId node) const override { return pods_on(node); }
  const std::vector<PodId>& nominated_pods() override;
  std::span<const NodeInfo* const> snapshot_nodes() override;
  bool is_waiting(PodId pod) const;
  // GpuHandle (the FGD authors' GPU plugins).
  const NodeCache& node_cache() const override { return cache_; }
  const TypicalPods& typical_pods() const override;
  std::uint64_t seed() const override { return seed_; }
  void set_device_grants(PodId pod, DeviceGrants grants) override { cache_.set_grants(pod, std::move(grants)); }

 private:
  const Profile* profile_for(const PodTemplate& spec) const;
  void ensure_node_order();
  void refresh_nodes();  // re-reads node objects into the cache and recounts ClusterStats
  void count_node(const Node& node);  // adds a node to ClusterStats
  // decide()'s parts, named after schedule_one.go's functions (v1.26).
  bool find_nodes_that_fit_pod(const CycleContext& ctx, const Profile& profile, Decision& d);
  void find_nodes_that_pass_filters(const CycleContext& ctx, std::uint32_t to_find, NodeId nominated,
                                    bool nominated_failed, Decision& d);
  // find_nodes_that_pass_filters' loop for the common case (sched/kube/fit_scan.cpp): when
  // fit_scan_applies(spec), scan_fitting_nodes fills feasible_, node_code_ and fit_tally_
  // and sets nominated_seen.
  bool fit_scan_applies(const PodTemplate& spec) const;
  void scan_fitting_nodes(const PodTemplate& spec, std::uint32_t to_find, NodeId nominated, bool& nominated_seen);
  void tally_fit_failure(std::uint32_t insufficient);  // one more node rejected for `insufficient`
  void prioritize_nodes(const CycleContext& ctx, const Profile& profile, Decision& d);
  // The extenders' steps (sched/kube/extender/scheduler_extenders.cpp): false when the
  // decision is final (an extender's error); the nominated node passes them; the binding
  // extender refused the binding (handled as a binding-cycle error); callExtenders.
  bool find_nodes_that_pass_extenders(const CycleContext& ctx, Decision& d);
  bool nominated_passes_extenders(PodId pod, NodeId node);
  bool extender_refused_binding(PodId pod, NodeId node, SimTime now);
  bool call_extenders(PodId pod);
  void add_node_alone_scores(const CycleContext& ctx, const Profile& profile);
  std::size_t select_host(const Profile& profile);
  // The FitError diagnosis in reason_names_/reason_counts_ (decide and preempt share it).
  void count_reason(std::string_view reason, std::uint32_t k);
  std::string fit_error_message(std::uint32_t n) const;
  void start_cycle(SimTime now);
  void decide_and_post_filter(SimTime now);
  void finish_cycle(SimTime now);
  // finish_cycle's parts (schedule_one.go v1.26 schedulingCycle/bindingCycle, preemption.go
  // prepareCandidate, handleSchedulingFailure).
  void assume_and_bind(PodId pod, NodeId node, SimTime now);
  SimTime prepare_candidate(PodId pod, SimTime now);
  void delete_victim(PodId victim, SimTime now);
  void handle_scheduling_failure(PodId pod, SimTime now);
  void update_pod(PodId pod, SimTime now);         // the failure's status patch (updatePod)
  bool bind(PodId pod, NodeId node, SimTime now);  // the binding API call; false: refused
  void schedule_next_cycle(SimTime now);
  void arm_ticks(SimTime now);
  void cache_add(PodId pod, NodeId node);
  void cache_remove(PodId pod);
  std::int32_t node_min_priority(NodeId node);  // lowest priority of the node's pods (INT32_MAX if none)
  void nominate(PodId pod, NodeId node);          // nominator add/update (invalid node: delete)
  // Whether pods are nominated to `node` (RunFilterPluginsWithNominatedPods may add them).
  bool has_nominated_pods(NodeId node) const {
    return nominated_total_ != 0 && node.value() < nominated_on_.size() && !nominated_on_[node.value()].empty();
  }
  // RunFilterPluginsWithNominatedPods on `ni` (a cache entry or a copy of one). On failure
  // fills `plugin` and `result` unless `result` is null (a caller that needs only the verdict
  // saves building the failure).
  bool passes_filters(const CycleContext& ctx, const NodeInfo& ni, const FilterPlugin** plugin, FilterResult* result);
  bool passes_plain(const CycleContext& ctx, const NodeInfo& ni, const FilterPlugin** plugin, FilterResult* result);
  // SelectVictimsOnNode on a copy of `node`; appends the victims to victim_pool_.
  StatusCode select_victims_on_node(const CycleContext& ctx, NodeId node, SimTime now, std::uint32_t* violations,
                                    FilterResult* failure);
  void compute_pdb_budgets();
  // preempt()'s parts, named after preemption.go's functions (v1.26).
  bool pod_eligible_to_preempt_others(PodId pod, const PodTemplate& spec, PreemptionPlugin* custom);
  bool find_candidates(const CycleContext& ctx, const Profile& profile, const Decision& decision, SimTime now,
                       PreemptionPlugin* custom);
  bool dry_run_preemption(const CycleContext& ctx, std::uint32_t offset, std::int64_t num_candidates, SimTime now,
                          PreemptionPlugin* custom);
  std::size_t select_candidate(SimTime now);
  // Sorts victims_ by importance and splits them into violating_pods_ / non_violating_pods_
  // (SelectVictimsOnNode's and CapacityScheduling's shared steps).
  void sort_victims_and_split_by_pdb();
  SimTime pod_start_key(PodId pod, SimTime now) const;
  StatusCode select_victims_custom(const CycleContext& ctx, NodeId node, SimTime now, PreemptionPlugin& plugin,
                                   std::uint32_t* violations, FilterResult* failure);
  // Reserve and Permit after the pod was assumed (schedule_one.go schedulingCycle): false
  // when a plugin refused it (the pod was forgotten and re-queued).
  bool reserve_and_permit(PodId pod, NodeId node, const Profile& profile, SimTime now);
  // handleBindingCycleError: Unreserve, ForgetPod, the failure handler, then the move of the
  // other unschedulable pods (AssignedPodDelete).
  void binding_cycle_error(PodId pod, NodeId node, const std::string& message, SimTime now);
  // The FailureHandler for failures after the pod was assumed: re-queue unless the pod is
  // gone or bound, clear its nomination, set PodScheduled=False with the message.
  void failure_after_assume(PodId pod, const std::string& message, SimTime now);
  void process_rejections(SimTime now);
  void unreserve_all(const Profile& profile, PodId pod, NodeId node, SimTime now);

  ObjectStore& store_;
  SchedulerConfig config_;
  std::uint64_t seed_;
  SchedulerLatencies latencies_;
  RandomStream tie_break_rng_;
  RandomStream latency_rng_;
  RandomStream preemption_rng_;
  RandomStream candidate_tie_rng_;  // SelectCandidate's full ties (preemption.cpp select_candidate)
  std::vector<std::uint32_t> tied_candidates_;  // select_candidate's scratch: indices in candidates_
  SchedulerHost& host_;
  SchedulingQueue queue_;

  // internal/cache (cache.go): the shared node cache (cluster/node_cache.hpp) of the nodes,
  // the assumed or bound pods on each (with their templates, so the preemption dry run reads
  // priorities and requests without the pods' scattered store entries) and their devices.
  NodeCache cache_;
  ClusterStats stats_;
  std::vector<NodeId> node_order_;       // nodeTree order: zones round-robin
  bool node_order_dirty_ = false;
  std::uint32_t next_start_node_index_ = 0;
  // By NodeId: the lowest priority of the cache's pods on the node (the preemption fast
  // paths), recomputed when asked after its pod left.
  struct MinPriority {
    std::int32_t value = std::numeric_limits<std::int32_t>::max();  // valid unless dirty
    bool dirty = false;
  };
  std::vector<MinPriority> min_priority_;
  // By PodId: 1 while the pod sits gated in unschedulablePods (scheduling gates at its Add).
  std::vector<std::uint8_t> gated_;
  std::map<std::int32_t, std::uint32_t> priority_counts_;  // cached pods per priority (ordered)

  // Nominator: by PodId the nominated node; by NodeId the nominated pods in insertion order.
  std::vector<NodeId> nominated_;
  std::vector<std::vector<PodId>> nominated_on_;
  std::size_t nominated_total_ = 0;

  bool in_cycle_ = false;
  bool cycle_posted_ = false;
  PodId cycle_pod_;
  std::uint64_t cycle_number_ = 0;
  Decision cycle_decision_;
  DecisionObserver decision_observer_;
  std::vector<NodeId> best_nodes_;  // the observer's argument (filled only when there is one)
  QueueFlushTicks ticks_;
  bool waiting_for_patch_ = false;           // the failure's status patch or its preemption's requests are in flight
  std::string patch_message_;                 // what that patch writes
  bool patch_sets_nominated_ = false;
  bool patch_error_ = false;                  // PodScheduled's reason SchedulerError
  NodeId patch_nominated_;

  std::vector<const NodeInfo*> feasible_;
  std::vector<std::int64_t> totals_;
  std::vector<std::int64_t> plugin_scores_;
  // By NodeId: the weighted sum of the scores_node_alone() plugins' scores of the node for
  // template key - 1, valid while the node's NodeInfo::generation is `generation`.
  struct ScoreMemo {
    std::uint32_t generation = 0;
    std::uint32_t key = 0;  // PodTemplateId + 1; 0: none
    std::int64_t score = 0;
  };
  std::vector<ScoreMemo> score_memo_;
  std::vector<const NodeInfo*> memo_misses_;
  std::vector<std::uint32_t> memo_miss_index_;  // their index in feasible_
  std::vector<std::int64_t> memo_miss_totals_;
  std::vector<const FilterPlugin*> active_filters_;
  std::vector<std::uint32_t> reason_counts_;
  std::vector<std::string_view> reason_names_;
  bool only_fit_ = false;
  bool wants_devices_ = false;  // this cycle's pod asks for devices (NodeCache::wants_devices)
  DeviceGrants device_scratch_;
  bool fits_devices(const CycleContext& ctx, NodeId node);
  // decide()'s NodeResourcesFit-only search: rejected nodes tallied by insufficient bits.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> fit_tally_;
  std::vector<std::uint8_t> node_code_;  // by NodeId: this cycle's filter StatusCode of rejected nodes

  // Preemption state and scratch space (reused across cycles).
  Preemption preemption_;
  NodeInfo victim_node_;     // SelectVictimsOnNode's copy of the node
  NodeInfo with_nominated_;  // RunFilterPluginsWithNominatedPods' copy with nominated pods added
  std::vector<NodeId> potential_nodes_;
  std::vector<PodId> potential_victims_;
  std::vector<PodId> victim_pool_;
  // SelectVictimsOnNode's potential victims with their sort key, read once per pod (sorting
  // by reading the store in the comparator misses the cache on every comparison).
  struct Victim {
    std::int32_t priority;
    SimTime start;  // pod_start_key
    PodId pod;
    PodTemplateId spec;
  };
  std::vector<Victim> victims_;
  std::vector<Victim> violating_pods_;
  std::vector<Victim> non_violating_pods_;
  std::vector<std::int32_t> pdb_allowed_;   // DisruptionsAllowed per PDB (this attempt)
  std::vector<std::int32_t> pdb_remaining_;
  struct Candidate {
    NodeId node;
    std::uint32_t begin = 0, end = 0;  // victims in victim_pool_
    std::uint32_t violations = 0;
  };
  std::vector<Candidate> non_violating_;
  std::vector<Candidate> violating_;
  std::vector<Candidate> candidates_;
  // This cycle's DryRunPreemption work: nodes dry-run and the pods on them (as upstream's
  // loop visits them, also where the model takes a fast exit).
  std::uint64_t dry_run_nodes_ = 0;
  std::uint64_t dry_run_pods_ = 0;
  ClientRateLimiter client_limiter_;
  std::unique_ptr<Extenders> extenders_;  // null without `extenders:` (no cost then)
  std::uint64_t bindings_ = 0;
  std::uint64_t attempts_total_ = 0;

  // Out-of-tree extension points' state.
  SimTime decide_now_ = SimTime::zero();
  SimTime permit_now_ = SimTime::zero();
  struct WaitingPod {
    PodId pod;
    NodeId node;
    SimTime deadline;
    Duration wait;
    const char* plugin;
  };
  std::vector<WaitingPod> waiting_;  // in the order the pods started waiting
  struct Rejection {
    PodId pod;
    NodeId node;
    std::string message;
  };
  std::deque<Rejection> rejected_;   // rejected waiting pods whose binding cycle has to fail
  bool processing_rejections_ = false;
  std::vector<PodId> to_activate_;   // PodsToActivate of the current cycle
  std::vector<PodId> nominated_scratch_;
  std::vector<const NodeInfo*> snapshot_scratch_;
  std::deque<std::string> owned_reasons_;  // reason texts built during a preemption

  // Scheduling attempts at one instant (start_cycle): with zero latencies a loop of
  // attempts that changes nothing (Coscheduling's: a group's pod waits at Permit and
  // activates its siblings, a sibling finds no node and PostFilter rejects the waiting
  // pod, whose freed node the next sibling takes) never lets time advance. The real
  // scheduler spends a few milliseconds per attempt and spins until a cluster event or a
  // timer (scheduler-plugins issue #429); the model stops attempting (parks) when a pod
  // fails its kZeroTimeAttempts+1-th attempt at one instant with no progress since (after
  // its PostFilter rejected its group's waiting pods, so that no pod of the loop is left
  // waiting on a Permit timer the spinning scheduler would never let expire), and resumes
  // at the next progress: a new instant, a change the informers deliver (other than a
  // pending pod's status), a binding, a timer or a flush of the queue.
  static constexpr std::uint32_t kZeroTimeAttempts = 3;
  void progress(SimTime now);
  bool attempted_too_often(PodId pod);
  bool cycle_looping_ = false;  // the cycle's pod is past kZeroTimeAttempts at this instant
  SimTime progress_instant_ = SimTime::never();
  std::uint64_t progress_gen_ = 0;
  struct InstantAttempts {
    std::uint64_t gen = 0;
    std::uint32_t count = 0;
  };
  std::vector<InstantAttempts> instant_attempts_;  // by PodId
  bool parked_ = false;
  // Cluster changes that can let a failed pod fit (a pod left a node, a node changed), and
  // by PodId the count when the pod last entered unschedulablePods (expects_change).
  std::uint64_t cluster_epoch_ = 0;
  std::vector<std::uint64_t> failed_at_epoch_;
  void add_unschedulable(PodId pod, std::uint32_t interested_events, std::uint64_t pod_cycle, SimTime now);

  // ---- Futile attempts (sched/kube/futile_retry.cpp) ----
  // A failed attempt's outcome is a function of the cluster the scheduler decides on (its
  // cache, nodes and nominations: generation_ counts their changes), the pod's template and
  // nominated node, for a profile whose plugins keep no state of their own (pure_profile).
  // Such a failure is recorded; a later attempt of the pod at the same generation replays
  // the recorded outcome (the decision's counts and messages, the preemption's random draw
  // and dry-run counts) without filtering, so every output is as if it had run.
  struct FutileOutcome {
    PodTemplateId spec;
    NodeId nominated;
    std::uint32_t processed = 0, interested_events = 0, unresolvable = 0;
    std::uint32_t draw_bound = 0;  // the preemption's offset draw (0: none)
    std::uint64_t dry_run_nodes = 0, dry_run_pods = 0;
    std::string message, pre_message;
    bool pre_ran = false;
    Preemption::Mode pre_mode = Preemption::Mode::kNoop;
    auto operator<=>(const FutileOutcome&) const = default;
  };
  struct FutileMark {
    std::uint64_t generation = 0;  // 0: none recorded
    std::uint32_t outcome = 0;
  };
  static bool pure_profile(const Profile& p) {
    return p.pre_filters.empty() && p.reserves.empty() && p.permits.empty() && p.post_filters.empty() &&
           p.informers.empty();
  }
  void changed() { ++generation_; }
  bool replay_futile_attempt();
  void record_futile_attempt();
  bool replay_futile_ = true;
  std::uint64_t generation_ = 1;
  std::uint64_t replayed_attempts_ = 0;
  std::uint32_t preemption_draws_ = 0, last_draw_bound_ = 0;  // this cycle's offset draws
  std::vector<FutileMark> futile_;  // by PodId (only up to the last pod that failed)
  std::map<FutileOutcome, std::uint32_t> outcome_index_;
  std::vector<const FutileOutcome*> outcomes_;
  std::vector<std::uint64_t> template_fails_at_;  // by PodTemplateId: would_fail's memo
  // stuck()'s memo: the state it scanned the unschedulable pods in, and its answer.
  std::uint64_t stuck_key_gen_ = 0, stuck_key_attempts_ = 0;
  std::size_t stuck_key_size_ = 0;
  bool stuck_answer_ = false;
};

}  // namespace kubesim
