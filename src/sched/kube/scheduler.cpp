#include "sched/kube/scheduler.hpp"

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "sched/kube/plugins/node_affinity/node_affinity.hpp"
#include "sched/kube/plugins/node_resources_fit/node_resources_fit.hpp"
#include "sched/kube/plugins/taint_toleration/taint_toleration.hpp"

namespace kubesim {
namespace {

// A device-fit rejection: NodeResourcesFit's status and events (its extended-resource reason).
constexpr std::string_view kInsufficientDevices = "Insufficient nvidia.com/gpu";
constexpr std::uint32_t kDeviceFitEvents = kEventPodDelete | kEventNodeAdd | kEventNodeUpdateAny;

}  // namespace

Scheduler::Scheduler(ObjectStore& store, SchedulerConfig config, SchedulerLatencies latencies, std::uint64_t seed,
                     SchedulerHost& host)
    : store_(store),
      config_(std::move(config)),
      seed_(seed),
      latencies_(latencies),
      tie_break_rng_(seed, "scheduler/select-host"),
      latency_rng_(seed, "scheduler/latency"),
      preemption_rng_(seed, "scheduler/preemption"),
      candidate_tie_rng_(seed, "scheduler/preemption-candidate-tie"),
      host_(host),
      queue_(config_.queue),
      cache_(store),
      client_limiter_(latencies_.client_rate_limit ? config_.client_qps : 0, config_.client_burst) {
  // One queue for all profiles: they must share the QueueSort plugin (profile validation).
  for (auto& p : config_.profiles) {
    for (InformerPlugin* ip : p.informers) ip->set_handle(this);
    for (GpuPlugin* gp : p.gpu_plugins) gp->set_gpu_handle(this);
    if (p.queue_sort) queue_.set_queue_sort(p.queue_sort);
  }
  if (!config_.extenders.empty()) extenders_ = std::make_unique<Extenders>(config_.extenders, store_);
}

const TypicalPods& Scheduler::typical_pods() const {
  static const TypicalPods kNone;
  return config_.typical_pods ? *config_.typical_pods : kNone;
}

bool Scheduler::serves(const std::string& scheduler_name) const { return config_.profile(scheduler_name) != nullptr; }

bool Scheduler::idle_without_own_pods() const {
  for (const auto& prof : config_.profiles)
    if (!prof.informers.empty()) return false;
  return true;
}

const Profile* Scheduler::profile_for(const PodTemplate& spec) const { return config_.profile(spec.scheduler_name); }

std::int32_t Scheduler::num_feasible_nodes_to_find(std::int32_t percentage, std::int32_t num_all_nodes) {
  // schedule_one.go numFeasibleNodesToFind (minFeasibleNodesToFind = 100,
  // minFeasibleNodesPercentageToFind = 5).
  constexpr std::int32_t kMinFeasibleNodesToFind = 100;
  constexpr std::int32_t kMinFeasibleNodesPercentageToFind = 5;
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  if (percentage >= 100) return num_all_nodes;
  if (percentage == 0) {
    percentage = 50 - num_all_nodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) percentage = kMinFeasibleNodesPercentageToFind;
  }
  const std::int32_t num_nodes = static_cast<std::int32_t>(static_cast<std::int64_t>(num_all_nodes) * percentage / 100);
  return num_nodes < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : num_nodes;
}

void Scheduler::ensure_node_order() {
  if (!node_order_dirty_) return;
  node_order_dirty_ = false;
  // internal/cache/node_tree.go: nodes grouped by zone (region + zone labels), zones in
  // order of first appearance, listed round-robin across zones.
  std::vector<std::string> zones;
  std::vector<std::vector<NodeId>> members;
  for (const NodeInfo& ni : cache_.infos()) {
    const std::string* region = find_label(ni.node->labels, "topology.kubernetes.io/region");
    const std::string* zone = find_label(ni.node->labels, "topology.kubernetes.io/zone");
    std::string key = (region ? *region : "") + "/" + (zone ? *zone : "");
    auto it = std::find(zones.begin(), zones.end(), key);
    if (it == zones.end()) {
      zones.push_back(key);
      members.emplace_back();
      it = zones.end() - 1;
    }
    members[static_cast<std::size_t>(it - zones.begin())].push_back(ni.id);
  }
  node_order_.clear();
  for (std::size_t i = 0; node_order_.size() < cache_.node_count(); ++i)
    for (const auto& m : members)
      if (i < m.size()) node_order_.push_back(m[i]);
}

// schedule_one.go schedulePod (v1.26): no nodes is ErrNoNodesAvailable; findNodesThatFitPod;
// no feasible node is a FitError; a single feasible node is chosen without scoring; else
// prioritizeNodes and selectHost.
Scheduler::Decision Scheduler::decide(PodId pod) {
  Decision d;
  const PodTemplate& spec = store_.spec_of(pod);
  const Profile* profile = profile_for(spec);
  KUBESIM_ASSERT(profile != nullptr);
  ensure_node_order();
  const auto n = static_cast<std::uint32_t>(node_order_.size());
  if (n == 0) {
    d.message = "no nodes available to schedule pods";  // ErrNoNodesAvailable
    return d;
  }
  const CycleContext ctx{store_, pod, spec, stats_};
  if (!find_nodes_that_fit_pod(ctx, *profile, d)) return d;
  if (extenders_ && !find_nodes_that_pass_extenders(ctx, d)) return d;
  if (feasible_.empty()) {
    d.message = fit_error_message(n);
    return d;
  }
  if (feasible_.size() == 1) {  // a single feasible node is chosen without scoring
    d.node = feasible_[0]->id;
    return d;
  }
  prioritize_nodes(ctx, *profile, d);
  d.node = feasible_[select_host(*profile)]->id;
  return d;
}

// schedule_one.go findNodesThatFitPod (v1.26): RunPreFilterPlugins, then the nominated node
// (evaluateNominatedNode), then findNodesThatPassFilters. False when the cycle was decided
// before the node search: a PreFilter rejection (d.message) or the nominated node (d.node).
bool Scheduler::find_nodes_that_fit_pod(const CycleContext& ctx, const Profile& profile, Decision& d) {
  const auto n = static_cast<std::uint32_t>(node_order_.size());
  if (node_code_.size() < cache_.node_count()) node_code_.resize(cache_.node_count());
  // An Unschedulable PreFilter status gives every node that status, the plugin becomes the
  // pod's UnschedulablePlugins, and no node is filtered (nextStartNodeIndex stays).
  for (PreFilterPlugin* pf : profile.pre_filters) {
    const PluginStatus st = pf->pre_filter(ctx, decide_now_);
    if (st.ok()) continue;
    d.interested_events |= pf->events_to_register();
    for (const NodeId id : node_order_) node_code_[id.value()] = static_cast<std::uint8_t>(st.code);
    if (st.code == StatusCode::kUnschedulableAndUnresolvable) d.unresolvable = n;
    // FitError.Error with Diagnosis.PreFilterMsg (framework/types.go, v1.26): the PreFilter's
    // message once, not a per-node histogram ("0/3 nodes are available: Pod t/p is rejected in
    // PreFilter because ...", as scheduler-plugins v0.26.7's binary logs it).
    d.message = "0/" + std::to_string(n) + " nodes are available: " + st.message + ".";
    return false;
  }
  active_filters_.clear();
  for (const auto* f : profile.filters)
    if (f->applies(ctx)) active_filters_.push_back(f);
  // Usually NodeResourcesFit is the only filter that can reject this pod: call it directly.
  only_fit_ = active_filters_.size() == 1 && active_filters_[0]->is_fits_request();
  wants_devices_ = cache_.wants_devices(ctx.spec);

  // A pod nominated by an earlier preemption tries that node first (evaluateNominatedNode)
  // and takes it, without scoring, if it passes the filters (with the nominated pods of
  // higher or equal priority reserving their room).
  const NodeId nominated = store_.pod(ctx.pod).nominated_node;
  bool nominated_failed = false;
  if (nominated.valid() && nominated.value() < cache_.node_count()) {
    const FilterPlugin* plugin = nullptr;
    FilterResult r;
    if (passes_filters(ctx, cache_.info(nominated), &plugin, &r) && (!wants_devices_ || fits_devices(ctx, nominated)) &&
        (!extenders_ || nominated_passes_extenders(ctx.pod, nominated))) {
      d.node = nominated;
      d.feasible = 1;
      d.processed = 1;
      return false;
    }
    nominated_failed = true;
  }
  const auto to_find = static_cast<std::uint32_t>(num_feasible_nodes_to_find(
      profile.percentage_of_nodes_to_score.value_or(config_.percentage_of_nodes_to_score), static_cast<std::int32_t>(n)));
  find_nodes_that_pass_filters(ctx, to_find, nominated, nominated_failed, d);
  return true;
}

// schedule_one.go findNodesThatPassFilters (v1.26), run sequentially: nodes from
// nextStartNodeIndex on; upstream's parallel search stops when one feasible node more than
// needed is found (and discards it), so the nodes that fail before that one count as
// processed. Fills feasible_ and the diagnosis (reason counts, d.unresolvable,
// d.interested_events).
void Scheduler::find_nodes_that_pass_filters(const CycleContext& ctx, std::uint32_t to_find, NodeId nominated,
                                             bool nominated_failed, Decision& d) {
  const auto n = static_cast<std::uint32_t>(node_order_.size());
  feasible_.clear();
  reason_names_.clear();
  reason_counts_.clear();
  std::uint32_t failed = 0;
  bool nominated_seen = false;
  // Diagnosis: every reason of every rejected node is counted (FitError.Error), and the
  // rejecting plugins' events are what the pod waits for. `nodes` nodes failed with `r`.
  auto reject = [&](const FilterPlugin* plugin, const FilterResult& r, std::uint32_t nodes) {
    failed += nodes;
    if (r.code == StatusCode::kUnschedulableAndUnresolvable) d.unresolvable += nodes;
    d.interested_events |= plugin->events_to_register();
    for (std::size_t k = 0; k < r.reason_count; ++k) count_reason(r.reasons[k], nodes);
  };
  // In a busy cluster most nodes are rejected, nearly all for the same few sets of
  // insufficient resources: the NodeResourcesFit-only search tallies the sets and counts
  // their reasons once, after the loop (the counts, hence the message, are the same).
  fit_tally_.clear();
  if (fit_scan_applies(ctx.spec)) {
    scan_fitting_nodes(ctx.spec, to_find, nominated, nominated_seen);
  } else {
    std::uint32_t index = next_start_node_index_;
    for (std::uint32_t i = 0; i < n; ++i, ++index) {
      if (index == n) index = 0;
      const NodeInfo& ni = cache_.info(node_order_[index]);
      if (ni.id == nominated) nominated_seen = true;
      if (only_fit_ && !has_nominated_pods(ni.id)) {  // passes_filters would be passes_plain
        if (const std::uint32_t insufficient = insufficient_resources(ctx.spec, ni)) {
          node_code_[ni.id.value()] = static_cast<std::uint8_t>(kFitFailureCode);
          tally_fit_failure(insufficient);
          continue;
        }
      } else {
        const FilterPlugin* plugin = nullptr;
        FilterResult r;
        if (!passes_filters(ctx, ni, &plugin, &r)) {
          node_code_[ni.id.value()] = static_cast<std::uint8_t>(r.code);
          reject(plugin, r, 1);
          continue;
        }
      }
      if (wants_devices_ && !fits_devices(ctx, ni.id)) {
        node_code_[ni.id.value()] = static_cast<std::uint8_t>(kFitFailureCode);
        ++failed;
        d.interested_events |= kDeviceFitEvents;
        count_reason(kInsufficientDevices, 1);
        continue;
      }
      if (feasible_.size() == to_find) break;
      feasible_.push_back(&ni);
    }
  }
  for (const auto& [insufficient, nodes] : fit_tally_)
    reject(active_filters_[0], fit_failure(insufficient, store_.resource_names()), nodes);
  d.feasible = static_cast<std::uint32_t>(feasible_.size());
  // processedNodes = len(feasibleNodes) + len(diagnosis.NodeToStatusMap): the nominated
  // node's failure stays in the map even when the search stopped before reaching it again.
  d.processed = d.feasible + failed + (nominated_failed && !nominated_seen ? 1 : 0);
  next_start_node_index_ = (next_start_node_index_ + d.processed) % n;
}

// Device fit. kube-scheduler v1.26 has no in-tree device filter: NodeResourcesFit checks the
// nvidia.com/gpu extended resource as a count, and the kubelet's device manager picks the
// devices at admission (pkg/kubelet/cm/devicemanager). kubesim models the pair as one more
// part of the resource fit on the scheduler's node cache (first fit, shares of one device as
// declared): for whole GPUs on nodes that declare no devices it rejects no node the count
// check passes, so such runs are unchanged. The devices the cache picks when the pod is
// assumed go with the binding. The preemption dry run does not model devices.
bool Scheduler::fits_devices(const CycleContext& ctx, NodeId node) {
  return cache_.fit_devices(ctx.spec, node, device_scratch_);
}

// A FitError's diagnosis: `k` more nodes failed with `reason` (in first-seen order).
void Scheduler::count_reason(std::string_view reason, std::uint32_t k) {
  if (k == 0) return;
  auto it = std::find(reason_names_.begin(), reason_names_.end(), reason);
  if (it == reason_names_.end()) {
    reason_names_.push_back(reason);
    reason_counts_.push_back(k);
  } else {
    reason_counts_[static_cast<std::size_t>(it - reason_names_.begin())] += k;
  }
}

// framework/types.go FitError.Error: "0/N nodes are available: <count reason>, ... ." with
// the counted reasons sorted.
std::string Scheduler::fit_error_message(std::uint32_t n) const {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < reason_names_.size(); ++i)
    parts.push_back(std::to_string(reason_counts_[i]) + " " + std::string(reason_names_[i]));
  std::sort(parts.begin(), parts.end());
  std::string message = "0/" + std::to_string(n) + " nodes are available:";
  for (std::size_t i = 0; i < parts.size(); ++i) message += (i ? ", " : " ") + parts[i];
  message += ".";
  return message;
}

// schedule_one.go prioritizeNodes (v1.26): RunScorePlugins over the feasible nodes (each
// plugin's scores normalized, times its weight) summed into totals_, in feasible_ order.
void Scheduler::prioritize_nodes(const CycleContext& ctx, const Profile& profile, Decision& d) {
  const std::size_t m = feasible_.size();
  d.scored = static_cast<std::uint32_t>(m);
  if (latencies_.cost.per_pod_on_scored_node != 0)  // the cache's pods on each (NodeInfo.pod_count)
    for (const NodeInfo* ni : feasible_) d.pods_on_scored += static_cast<std::uint64_t>(ni->pod_count);
  totals_.assign(m, 0);
  plugin_scores_.resize(m);
  std::int64_t uniform = 0;  // the part of every node's total that is the same for all
  bool node_alone = false;
  for (const auto& ws : profile.scorers) {
    if (ws.plugin->scores_node_alone()) {
      node_alone = true;
      continue;
    }
    if (const auto same = ws.plugin->uniform_score(ctx)) {
      uniform += *same * ws.weight;
      continue;
    }
    ws.plugin->score(ctx, feasible_, plugin_scores_);
    for (std::size_t i = 0; i < m; ++i) totals_[i] += plugin_scores_[i] * ws.weight;
  }
  if (node_alone) add_node_alone_scores(ctx, profile);
  for (auto& t : totals_) t += uniform;
  if (extenders_) extenders_->prioritize(ctx.pod, feasible_, totals_);
}

// The weighted sum of the profile's scores_node_alone() plugins, per feasible node, into
// totals_: kept per node for the pod's template (the profile follows from the template's
// schedulerName) until the node's NodeInfo changes. In a large cluster few nodes change
// between two cycles, so most nodes are not scored again; the nodes that are (memo misses)
// are scored together, in feasible_ order.
void Scheduler::add_node_alone_scores(const CycleContext& ctx, const Profile& profile) {
  const std::uint32_t key = store_.pod(ctx.pod).spec.value() + 1;  // 0: no entry
  if (score_memo_.size() < cache_.node_count()) score_memo_.resize(cache_.node_count());
  memo_misses_.clear();
  memo_miss_index_.clear();
  for (std::size_t i = 0; i < feasible_.size(); ++i) {
    const NodeInfo& ni = *feasible_[i];
    const ScoreMemo& e = score_memo_[ni.id.value()];
    if (e.key == key && e.generation == ni.generation) {
      totals_[i] += e.score;
    } else {
      memo_misses_.push_back(&ni);
      memo_miss_index_.push_back(static_cast<std::uint32_t>(i));
    }
  }
  const std::size_t k = memo_misses_.size();
  if (k == 0) return;
  memo_miss_totals_.assign(k, 0);
  const std::span<std::int64_t> scores(plugin_scores_.data(), k);
  for (const auto& ws : profile.scorers) {
    if (!ws.plugin->scores_node_alone()) continue;
    ws.plugin->score(ctx, memo_misses_, scores);
    for (std::size_t j = 0; j < k; ++j) memo_miss_totals_[j] += scores[j] * ws.weight;
  }
  for (std::size_t j = 0; j < k; ++j) {
    const NodeInfo& ni = *memo_misses_[j];
    totals_[memo_miss_index_[j]] += memo_miss_totals_[j];
    score_memo_[ni.id.value()] = ScoreMemo{ni.generation, key, memo_miss_totals_[j]};
  }
}

// schedule_one.go selectHost (v1.26): reservoir sampling over ties for the highest total
// score, in the order the nodes were found; each later tie replaces the pick with
// probability 1/count. Returns the index in feasible_.
std::size_t Scheduler::select_host(const Profile& profile) {
  if (profile.lowest_name_ties) {
    // The FGD authors' fork (generic_scheduler.go selectHost): the smallest node name among
    // the best totals, for reproducibility.
    std::size_t best = 0;
    for (std::size_t i = 1; i < totals_.size(); ++i)
      if (totals_[i] > totals_[best] ||
          (totals_[i] == totals_[best] && feasible_[i]->node->name < feasible_[best]->node->name))
        best = i;
    return best;
  }
  std::size_t best = 0;
  std::uint64_t ties = 1;
  for (std::size_t i = 1; i < totals_.size(); ++i) {
    if (totals_[i] > totals_[best]) {
      best = i;
      ties = 1;
    } else if (totals_[i] == totals_[best]) {
      ++ties;
      if (tie_break_rng_.uniform_below(ties) == 0) best = i;
    }
  }
  return best;
}

// cache.go AssumePod/AddPod on the shared node cache, with kube's own bookkeeping of
// priorities (the preemption fast paths).
void Scheduler::cache_add(PodId pod, NodeId node) {
  const NodeId old = cache_.node_of(pod);
  if (old == node) return;
  changed();
  if (old.valid()) cache_remove(pod);
  cache_.add_pod(pod, node);
  const std::int32_t priority = store_.spec_of(pod).priority;
  if (min_priority_.size() <= node.value()) min_priority_.resize(node.value() + 1);
  MinPriority& mp = min_priority_[node.value()];
  if (!mp.dirty && priority < mp.value) mp.value = priority;
  ++priority_counts_[priority];
}

// cache.go ForgetPod/RemovePod.
void Scheduler::cache_remove(PodId pod) {
  const NodeId node = cache_.node_of(pod);
  if (!node.valid()) return;
  changed();
  const std::int32_t priority = store_.spec_of(pod).priority;
  cache_.remove_pod(pod);
  MinPriority& mp = min_priority_[node.value()];
  if (cache_.pods_on(node).empty()) {
    mp = MinPriority{};
  } else if (priority == mp.value) {
    mp.dirty = true;  // recomputed when next asked
  }
  auto it = priority_counts_.find(priority);
  if (--it->second == 0) priority_counts_.erase(it);
}

std::int32_t Scheduler::node_min_priority(NodeId node) {
  if (node.value() >= min_priority_.size()) return std::numeric_limits<std::int32_t>::max();
  MinPriority& mp = min_priority_[node.value()];
  if (mp.dirty) {
    mp.value = std::numeric_limits<std::int32_t>::max();
    for (const PodTemplateId t : cache_.specs_on(node)) mp.value = std::min(mp.value, store_.spec(t).priority);
    mp.dirty = false;
  }
  return mp.value;
}

const std::vector<PodId>& Scheduler::pods_on(NodeId node) const { return cache_.pods_on(node); }

const std::vector<PodId>& Scheduler::nominated_pods_on(NodeId node) const {
  static const std::vector<PodId> kNone;
  return node.value() < nominated_on_.size() ? nominated_on_[node.value()] : kNone;
}

// scheduling_queue.go nominator.add/delete: a pod has at most one nominated node; the
// per-node lists keep insertion order (upstream appends, and deletes preserving order).
void Scheduler::nominate(PodId pod, NodeId node) {
  if (pod.value() >= nominated_.size()) {
    if (!node.valid()) return;
    nominated_.resize(pod.value() + 1);
  }
  NodeId& current = nominated_[pod.value()];
  if (current == node) return;
  changed();  // the nominated pods reserve room (RunFilterPluginsWithNominatedPods)
  if (current.valid()) {
    auto& list = nominated_on_[current.value()];
    list.erase(std::find(list.begin(), list.end(), pod));
    --nominated_total_;
  }
  current = node;
  if (node.valid()) {
    if (nominated_on_.size() <= node.value()) nominated_on_.resize(node.value() + 1);
    nominated_on_[node.value()].push_back(pod);
    ++nominated_total_;
  }
}

bool Scheduler::passes_plain(const CycleContext& ctx, const NodeInfo& ni, const FilterPlugin** plugin,
                             FilterResult* result) {
  if (only_fit_) {
    if (const std::uint32_t insufficient = insufficient_resources(ctx.spec, ni)) {
      if (result) {
        *plugin = active_filters_[0];
        *result = fit_failure(insufficient, store_.resource_names());
      }
      return false;
    }
    return true;
  }
  for (const auto* f : active_filters_) {
    const FilterResult r = f->filter(ctx, ni);
    if (!r.ok()) {
      if (result) {
        *plugin = f;
        *result = r;
      }
      return false;
    }
  }
  return true;
}

// framework/runtime/framework.go RunFilterPluginsWithNominatedPods (v1.26): when pods of
// higher or equal priority are nominated to the node, the filters run first with them added
// (they must not lose the room preemption made for them) and, if that passes, again without
// them (filters such as pod affinity may need them absent); the pod must pass both.
bool Scheduler::passes_filters(const CycleContext& ctx, const NodeInfo& ni, const FilterPlugin** plugin,
                               FilterResult* result) {
  if (has_nominated_pods(ni.id)) {
    bool added = false;
    for (const PodId q : nominated_on_[ni.id.value()]) {
      if (q == ctx.pod) continue;
      const PodTemplate& qs = store_.spec_of(q);
      if (qs.priority < ctx.spec.priority) continue;
      if (!added) with_nominated_ = ni;  // addNominatedPods: a copy of the NodeInfo
      with_nominated_.add_pod(qs, +1);
      added = true;
    }
    if (added && !passes_plain(ctx, with_nominated_, plugin, result)) return false;
  }
  return passes_plain(ctx, ni, plugin, result);
}

void Scheduler::schedule_next_cycle(SimTime now) {
  if (in_cycle_ || waiting_for_patch_ || cycle_posted_ || parked_ || queue_.active_empty()) return;
  cycle_posted_ = true;
  host_.post(now, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kCycle, PodId(), NodeId()});
}

void Scheduler::progress(SimTime now) {
  ++progress_gen_;
  if (!parked_) return;
  parked_ = false;
  schedule_next_cycle(now);
}

bool Scheduler::attempted_too_often(PodId pod) {
  if (instant_attempts_.size() <= pod.value()) instant_attempts_.resize(pod.value() + 1);
  InstantAttempts& a = instant_attempts_[pod.value()];
  if (a.gen != progress_gen_) a = InstantAttempts{progress_gen_, 0};
  return ++a.count > kZeroTimeAttempts;
}

void Scheduler::start_cycle(SimTime now) {
  cycle_posted_ = false;
  if (in_cycle_ || waiting_for_patch_) return;
  if (now != progress_instant_) {
    progress_instant_ = now;
    ++progress_gen_;
  }
  for (;;) {
    const PodId head = queue_.peek();
    if (!head.valid()) return;
    const Pod& p = store_.pod(head);
    // skipPodSchedule: the pod was deleted, or is already bound/assumed.
    if (is_terminal(p.phase) || p.node.valid() || cache_.node_of(head).valid()) {
      queue_.pop();
      continue;
    }
    cycle_looping_ = attempted_too_often(head);
    queue_.pop();
    cycle_pod_ = head;
    break;
  }
  ++attempts_total_;
  store_.pod_statistics(cycle_pod_).scheduling_attempts = queue_.attempts(cycle_pod_);
  cycle_number_ = queue_.scheduling_cycle();
  in_cycle_ = true;
  decide_now_ = now;
  if (!replay_futile_attempt()) decide_and_post_filter(now);
  const Duration d = cycle_duration(cycle_decision_);
  if (d == Duration()) {
    finish_cycle(now);
  } else {
    host_.post(now + d, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kCycleEnd, cycle_pod_, NodeId()});
  }
}

// The scheduling cycle's decision (schedulePod) and, after a FitError, its PostFilter; a
// failure whose outcome a later attempt can replay is recorded.
void Scheduler::decide_and_post_filter(SimTime now) {
  cycle_decision_ = decide(cycle_pod_);
  if (decision_observer_) {
    best_nodes_.clear();
    // The nominated node, when it passes, is chosen without scoring (findNodesThatFitPod);
    // decide() then leaves the feasible list of an earlier cycle.
    if (cycle_decision_.node.valid() && cycle_decision_.node == store_.pod(cycle_pod_).nominated_node) {
      best_nodes_.push_back(cycle_decision_.node);
    } else if (feasible_.size() == 1) {
      best_nodes_.push_back(feasible_[0]->id);
    } else if (cycle_decision_.node.valid()) {
      const std::int64_t top = *std::max_element(totals_.begin(), totals_.end());
      for (std::size_t i = 0; i < feasible_.size(); ++i)
        if (totals_[i] == top) best_nodes_.push_back(feasible_[i]->id);
    }
    decision_observer_(cycle_pod_, cycle_decision_.node, best_nodes_);
  }
  preemption_.ran = false;
  dry_run_nodes_ = 0;
  dry_run_pods_ = 0;
  preemption_draws_ = 0;
  // A FitError runs the PostFilter plugins (schedule_one.go schedulingCycle); "no nodes
  // available" is not a FitError.
  if (!cycle_decision_.node.valid() && !cycle_decision_.error && !node_order_.empty())
    run_post_filters(cycle_pod_, cycle_decision_, now);
  record_futile_attempt();
}

Duration Scheduler::cycle_duration(const Decision& decision) {
  Duration d = latencies_.cycle.sample(latency_rng_);
  const CycleCost& c = latencies_.cost;
  if (!c.any()) return d;
  const Profile* profile = profile_for(store_.spec_of(cycle_pod_));
  const double filter_plugins = profile ? static_cast<double>(profile->filters.size()) : 0.0;
  const double score_plugins = profile ? static_cast<double>(profile->scorers.size()) : 0.0;
  const double cpu_seconds =
      decision.processed * filter_plugins * c.per_filtered_node_plugin +
      decision.scored * score_plugins * c.per_scored_node_plugin +
      static_cast<double>(decision.pods_on_scored) * c.per_pod_on_scored_node +
      static_cast<double>(dry_run_nodes_) * c.per_dry_run_node +
      static_cast<double>(dry_run_pods_) * c.per_pod_on_dry_run_node;
  const double cores = std::max(1.0, std::min(static_cast<double>(config_.parallelism), c.cores));
  return d + Duration::from_seconds(cpu_seconds / cores);
}

// The end of schedule_one.go scheduleOne (v1.26) for the cycle's pod: on success the rest of
// schedulingCycle (assume, Reserve, Permit) and the start of bindingCycle; on failure the
// PostFilter's preemption is applied (prepareCandidate) and handleSchedulingFailure runs.
void Scheduler::finish_cycle(SimTime now) {
  in_cycle_ = false;
  const PodId pod = cycle_pod_;
  if (cycle_decision_.node.valid()) {
    assume_and_bind(pod, cycle_decision_.node, now);
    return;
  }
  if (preemption_.ran && preemption_.node.valid()) {
    const SimTime done = prepare_candidate(pod, now);
    if (done != now) {  // the cycle waits for its preemption's requests (PostFilter is synchronous)
      waiting_for_patch_ = true;
      host_.post(done, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kPreemptionDone, pod, NodeId()});
      return;
    }
  }
  handle_scheduling_failure(pod, now);
}

// schedulingCycle after schedulePod: assume (the nomination goes), Reserve and Permit; then
// bindingCycle's bind call, which lands after the bind latency (kBindDone). A pod waiting at
// Permit binds when allowed (allow_waiting_pod).
void Scheduler::assume_and_bind(PodId pod, NodeId node, SimTime now) {
  cache_add(pod, node);       // assume
  nominate(pod, NodeId());    // assume: DeleteNominatedPodIfExists
  const Profile& profile = *profile_for(store_.spec_of(pod));
  if (!profile.reserves.empty() || !profile.permits.empty()) {
    const bool go_on = reserve_and_permit(pod, node, profile, now);
    process_rejections(now);
    if (!go_on && cycle_looping_) parked_ = true;
    if (!go_on || is_waiting(pod)) {
      schedule_next_cycle(now);
      return;
    }
  }
  const Duration b = latencies_.bind.sample(latency_rng_);
  host_.post(client_limiter_.acquire(now) + b, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kBindDone, pod, node});
  ++progress_gen_;
  schedule_next_cycle(now);
}

// preemption.go prepareCandidate (v1.26), applied when the cycle ends: each victim gets
// DisruptionTarget=True/PreemptionByKubeScheduler (PatchPodStatus; always sent, also to a
// victim an earlier preemptor chose, since the new status is built from the preemptor's own,
// `pod.Status.DeepCopy()`, which never has that condition) and is deleted with its own
// terminationGracePeriodSeconds
// (DeleteOptions{}); then the lower-priority pods nominated to that node lose their
// nomination (ClearNominatedNodeName, one patch each), because they may no longer fit there.
// Every one of these requests first waits for a token of the scheduler's client
// (core/client_rate_limiter.hpp); a victim's DELETE lands when its token comes
// (kDeleteVictim), and the scheduling cycle, which runs prepareCandidate synchronously in
// PostFilter, goes on after the last request: the returned time. The nominator forgets the
// nominations at once (upstream: when the status update reaches the informer).
SimTime Scheduler::prepare_candidate(PodId pod, SimTime now) {
  const Preemption& pre = preemption_;
  const std::int32_t priority = store_.spec_of(pod).priority;
  SimTime done = now;
  for (const PodId v : pre.victims) {
    client_limiter_.acquire(now);  // the status patch
    done = client_limiter_.acquire(now);
    if (done == now) {
      delete_victim(v, now);
    } else {
      host_.post(done, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kDeleteVictim, v, NodeId()});
    }
  }
  if (pre.node.value() >= nominated_on_.size()) return done;
  potential_victims_.assign(nominated_on_[pre.node.value()].begin(), nominated_on_[pre.node.value()].end());
  for (const PodId q : potential_victims_) {
    if (q == pod || store_.spec_of(q).priority >= priority) continue;
    nominate(q, NodeId());
    if (store_.pod(q).nominated_node.valid() && !store_.pod(q).deleted) {
      done = client_limiter_.acquire(now);
      host_.client().set_nominated_node(q, NodeId(), now);
    }
  }
  return done;
}

void Scheduler::delete_victim(PodId victim, SimTime now) {
  if (store_.pod(victim).deleted) return;  // gone meanwhile: the DELETE finds nothing
  const Duration grace = Duration::seconds(store_.spec_of(victim).termination_grace_period_seconds);
  host_.client().delete_pod(victim, grace, DisruptionReason::kPreemptionByScheduler, now);
}

// schedule_one.go handleSchedulingFailure (v1.26): re-queue first, record the nomination in
// the nominator (AddNominatedPod with the PostFilter's NominatingInfo; without one the pod's
// own status.nominatedNodeName), then patch PodScheduled=False and nominatedNodeName if
// either changed (updatePod); the next cycle waits for that patch. An error (not a FitError:
// an extender's) writes the reason SchedulerError with the error's text and clears the
// nomination (schedulingCycle's clearNominatedNode); it sets no UnschedulablePlugins, so the
// pod keeps its earlier ones, and goes back to the queue like a FitError (v1.26's
// AddUnschedulableIfNotPresent makes no difference; backoffQ for errors came in later releases).
void Scheduler::handle_scheduling_failure(PodId pod, SimTime now) {
  const Preemption& pre = preemption_;
  const bool error = cycle_decision_.error;
  add_unschedulable(pod, error ? queue_.interested_events(pod) : cycle_decision_.interested_events, cycle_number_, now);
  arm_ticks(now);
  if (cycle_looping_) parked_ = true;
  const bool override_nnn = error || (pre.ran && pre.mode == Preemption::Mode::kOverride);
  const NodeId nnn = error ? NodeId() : pre.node;
  nominate(pod, override_nnn ? nnn : store_.pod(pod).nominated_node);
  patch_message_ = cycle_decision_.message;
  if (config_.post_filter_message_in_condition && pre.ran && !pre.message.empty())
    patch_message_ += " " + pre.message + ".";  // FitError.Error: fmt.Sprintf(SeparatorFormat, postFilterMsg)
  patch_sets_nominated_ = override_nnn && store_.pod(pod).nominated_node != nnn;
  patch_nominated_ = nnn;
  patch_error_ = error;
  if (store_.pod(pod).unschedulable_message != patch_message_ || store_.pod(pod).scheduler_error != error ||
      patch_sets_nominated_) {
    const Duration p = latencies_.status_patch.sample(latency_rng_);
    const SimTime patched = client_limiter_.acquire(now) + p;
    if (patched == now) {
      update_pod(pod, now);
    } else {
      waiting_for_patch_ = true;
      host_.post(patched, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kPatchDone, pod, NodeId()});
      process_rejections(now);
      return;
    }
  }
  process_rejections(now);
  schedule_next_cycle(now);
}

// schedule_one.go updatePod (v1.26): the failed attempt's status patch (patch_message_ and,
// when set, the nomination) in one write.
void Scheduler::update_pod(PodId pod, SimTime now) {
  if (patch_error_) {
    host_.client().set_scheduler_error(pod, patch_message_, now);
  } else if (patch_sets_nominated_) {
    host_.client().set_unschedulable_and_nominated(pod, patch_message_, patch_nominated_, now);
  } else {
    host_.client().set_unschedulable(pod, patch_message_, now);
  }
}

// The bind call of bindingCycle (DefaultBinder): the binding carries the devices the cache
// gave the assumed pod (fits_devices), if it asks for any.
bool Scheduler::bind(PodId pod, NodeId node, SimTime now) {
  Binding binding{pod, node, {}};
  if (cache_.wants_devices(store_.spec_of(pod))) {
    const std::span<const DeviceGrant> grants = cache_.grants_of(pod);
    binding.devices.assign(grants.begin(), grants.end());
  }
  return host_.client().bind(binding, now);
}

void Scheduler::arm_ticks(SimTime now) { ticks_.arm(queue_, config_.queue, now, host_); }

void Scheduler::add_unschedulable(PodId pod, std::uint32_t interested_events, std::uint64_t pod_cycle, SimTime now) {
  if (failed_at_epoch_.size() <= pod.value()) failed_at_epoch_.resize(pod.value() + 1);
  failed_at_epoch_[pod.value()] = cluster_epoch_;
  queue_.add_unschedulable_if_not_present(pod, interested_events, pod_cycle, now);
}

Duration Scheduler::retry_window() const {
  Duration w = config_.queue.max_backoff + config_.queue.backoff_flush_period;
  for (const WaitingPod& p : waiting_) w = std::max(w, p.wait);
  return w;
}

void Scheduler::on_event(const SchedulerEvent& event, SimTime now) {
  if (event.kind != SchedulerEvent::Kind::kCycle && event.kind != SchedulerEvent::Kind::kCycleEnd &&
      event.kind != SchedulerEvent::Kind::kPatchDone && event.kind != SchedulerEvent::Kind::kPreemptionDone)
    progress(now);  // a binding landed, a timer fired, a flush of the queue
  switch (event.kind) {
    case SchedulerEvent::Kind::kCycle: start_cycle(now); break;
    case SchedulerEvent::Kind::kCycleEnd: finish_cycle(now); break;
    case SchedulerEvent::Kind::kPatchDone:
      waiting_for_patch_ = false;
      update_pod(event.pod, now);
      schedule_next_cycle(now);
      break;
    case SchedulerEvent::Kind::kBindDone:
      if (extenders_ && extender_refused_binding(event.pod, event.node, now)) break;
      if (!bind(event.pod, event.node, now)) {
        // Deleted or bound meanwhile: Unreserve and forget the assumption.
        if (const Profile* prof = profile_for(store_.spec_of(event.pod)); prof && !prof->reserves.empty()) {
          unreserve_all(*prof, event.pod, event.node, now);
          process_rejections(now);
        }
        cache_remove(event.pod);
        break;
      }
      ++bindings_;
      break;
    case SchedulerEvent::Kind::kTimer: {
      // waiting_pods_map.go newWaitingPod: the plugin's timer rejects the pod.
      for (const WaitingPod& w : waiting_) {
        if (w.pod != event.pod || w.deadline != now) continue;
        const std::int64_t secs = w.wait.micros() / 1'000'000;
        std::string text = secs >= 60 ? std::to_string(secs / 60) + "m" + std::to_string(secs % 60) + "s"
                                      : std::to_string(secs) + "s";  // time.Duration.String
        reject_waiting_pod(w.pod, w.plugin,
                           "rejected due to timeout after waiting " + text + " at plugin " + w.plugin);
        break;
      }
      process_rejections(now);
      schedule_next_cycle(now);
      break;
    }
    case SchedulerEvent::Kind::kBackoffTick:
    case SchedulerEvent::Kind::kLeftoverTick:
      ticks_.on_tick(queue_, event.kind == SchedulerEvent::Kind::kBackoffTick, now);
      schedule_next_cycle(now);
      arm_ticks(now);
      break;
    case SchedulerEvent::Kind::kDeleteVictim: delete_victim(event.pod, now); break;
    case SchedulerEvent::Kind::kPreemptionDone:
      waiting_for_patch_ = false;
      handle_scheduling_failure(event.pod, now);
      break;
    case SchedulerEvent::Kind::kBindJob: break;  // not posted by this model
  }
}

void Scheduler::on_pod_change(const Change& c, SimTime now) {
  const PodId pod(c.id);
  for (auto& prof : config_.profiles)
    for (InformerPlugin* ip : prof.informers) ip->on_pod_change(c, now);
  const bool terminal = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
  const bool was_assigned = c.type != ChangeType::kAdded && c.old_node.valid() && !is_terminal(c.old_phase);
  const bool assigned = c.node.valid() && !terminal;
  // A pending pod's status update (the scheduler's own failure patches) is no progress.
  if (c.type != ChangeType::kModified || c.node.valid() || c.old_node.valid() || c.phase != c.old_phase ||
      c.became_terminating)
    progress(now);
  if (was_assigned && !assigned) ++cluster_epoch_;
  if (c.node.valid() || c.old_node.valid()) changed();  // an assigned pod (e.g. now terminating)
  if (assigned && !was_assigned) {
    // The unassigned-pod informer drops it; the assigned-pod informer adds it to the cache
    // (confirming our assumption, or accounting a pod another scheduler bound).
    queue_.remove(pod);
    nominate(pod, NodeId());  // PriorityQueue.Delete: DeleteNominatedPodIfExists
    cache_add(pod, c.node);
    queue_.record_move_request();  // AssignedPodAdded
    return;
  }
  if (was_assigned && !assigned) {
    // The assigned-pod informer filters out terminal pods, so this is a delete.
    cache_remove(pod);
    queue_.move_all(kEventPodDelete, now);
    schedule_next_cycle(now);
    arm_ticks(now);
    return;
  }
  if (!c.node.valid()) {
    if (terminal) {
      queue_.remove(pod);
      nominate(pod, NodeId());
      if (is_waiting(pod)) {
        // eventhandlers.go deletePodFromSchedulingQueue: RejectWaitingPod, then MoveAll.
        reject_waiting_pod(pod, "", "pod deleted");
        process_rejections(now);
        queue_.move_all(kEventPodDelete, now);
        schedule_next_cycle(now);
        arm_ticks(now);
      }
      cache_remove(pod);  // an assumed pod deleted before its binding landed
      return;
    }
    // Scheduling gates (v1.27 plugins/schedulinggates/scheduling_gates.go PreEnqueue:
    // UnschedulableAndUnresolvable while spec.schedulingGates is not empty): a gated pod is
    // parked in unschedulablePods (internal/queue/scheduling_queue.go Add, "Gated") without a
    // scheduling attempt, and the update that removes its last gate moves it to activeQ at
    // once (Update: a gated pod skips backoffQ).
    const bool was_gated = pod.value() < gated_.size() && gated_[pod.value()];
    if (c.type == ChangeType::kAdded || (was_gated && !c.gated)) {
      const PodTemplate& spec = store_.spec_of(pod);
      if (!serves(spec.scheduler_name)) return;
      if (c.gated) {
        if (gated_.size() <= pod.value()) gated_.resize(pod.value() + 1, 0);
        gated_[pod.value()] = 1;
        return;
      }
      if (was_gated) gated_[pod.value()] = 0;
      queue_.add(pod, spec.priority, now);
      schedule_next_cycle(now);
    }
    // Status-only updates of pending pods do not move them (isPodUpdated ignores status).
  }
}

void Scheduler::count_node(const Node& node) {
  if (node.unschedulable) ++stats_.unschedulable_nodes;
  bool hard = false;
  bool soft = false;
  for (const auto& t : node.taints) (t.effect == TaintEffect::kPreferNoSchedule ? soft : hard) = true;
  stats_.hard_tainted_nodes += hard;
  stats_.soft_tainted_nodes += soft;
}

void Scheduler::refresh_nodes() {
  stats_ = ClusterStats{};
  for (std::size_t i = 0; i < cache_.node_count(); ++i) {
    const NodeId id(static_cast<std::uint32_t>(i));
    cache_.set_node(id, store_.node(id));
    count_node(store_.node(id));
  }
  node_order_dirty_ = true;
}

void Scheduler::on_node_change(const Change& c, SimTime now) {
  ++cluster_epoch_;
  changed();
  progress(now);
  if (c.type != ChangeType::kAdded) {
    refresh_nodes();
    queue_.move_all(kEventNodeUpdateAny, now);
    schedule_next_cycle(now);
    arm_ticks(now);
    return;
  }
  const NodeId id(c.id);
  // Re-read every node only if the store's node table moved; else just the new one.
  const bool moved = id.value() > 0 && cache_.node_count() > 0 && cache_.info(NodeId(0)).node != &store_.node(NodeId(0));
  cache_.set_node(id, store_.node(id));
  if (moved) {
    refresh_nodes();
  } else {
    count_node(*cache_.info(id).node);
    node_order_dirty_ = true;
  }
  // eventhandlers.go preCheckForNode: only pods that would pass admission on the new node
  // (resources, NodeName, node affinity) and tolerate its NoSchedule/NoExecute taints move.
  const NodeInfo& ni = cache_.info(id);
  const std::function<bool(PodId)> pre_check = [&](PodId pod) {
    const PodTemplate& spec = store_.spec_of(pod);
    if (insufficient_resources(spec, ni) != 0) return false;
    if (!spec.node_name.empty() && spec.node_name != ni.node->name) return false;
    if (!pod_matches_node_selector_and_affinity(spec, *ni.node)) return false;
    if (first_untolerated_schedule_taint(*ni.node, spec.tolerations)) return false;
    return true;
  };
  queue_.move_all(kEventNodeAdd, now, &pre_check);
  schedule_next_cycle(now);
  arm_ticks(now);
}

// ---- Out-of-tree extension points ----

std::vector<PodId> Scheduler::waiting_pods() const {
  std::vector<PodId> out;
  out.reserve(waiting_.size());
  for (const WaitingPod& w : waiting_) out.push_back(w.pod);
  return out;
}

bool Scheduler::is_waiting(PodId pod) const {
  for (const WaitingPod& w : waiting_)
    if (w.pod == pod) return true;
  return false;
}

// waitingPod.Allow: the only Permit plugin that made it wait allowed it, so WaitOnPermit
// returns Success and the binding cycle goes on (no PreBind plugins; DefaultBinder).
void Scheduler::allow_waiting_pod(PodId pod, const char*) {
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->pod != pod) continue;
    const NodeId node = it->node;
    waiting_.erase(it);
    const Duration b = latencies_.bind.sample(latency_rng_);
    host_.post(client_limiter_.acquire(permit_now_) + b, Phase::kApi,
               SchedulerEvent{SchedulerEvent::Kind::kBindDone, pod, node});
    ++progress_gen_;
    return;
  }
}

// waitingPod.Reject: WaitOnPermit returns Unschedulable with the message; the pod's binding
// cycle then fails (handled by process_rejections, in rejection order).
void Scheduler::reject_waiting_pod(PodId pod, const char*, const std::string& message) {
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->pod != pod) continue;
    rejected_.push_back(Rejection{pod, it->node, message});
    waiting_.erase(it);
    return;
  }
}

const std::vector<PodId>& Scheduler::nominated_pods() {
  nominated_scratch_.clear();
  for (const auto& list : nominated_on_) nominated_scratch_.insert(nominated_scratch_.end(), list.begin(), list.end());
  return nominated_scratch_;
}

std::span<const NodeInfo* const> Scheduler::snapshot_nodes() {
  ensure_node_order();
  snapshot_scratch_.clear();
  for (const NodeId id : node_order_) snapshot_scratch_.push_back(&cache_.info(id));
  return snapshot_scratch_;
}

void Scheduler::unreserve_all(const Profile& profile, PodId pod, NodeId node, SimTime now) {
  // RunReservePluginsUnreserve: in the reverse order of Reserve.
  for (auto it = profile.reserves.rbegin(); it != profile.reserves.rend(); ++it) (*it)->unreserve(pod, node, now);
}

bool Scheduler::reserve_and_permit(PodId pod, NodeId node, const Profile& profile, SimTime now) {
  permit_now_ = now;
  to_activate_.clear();
  for (ReservePlugin* r : profile.reserves) {
    const PluginStatus st = r->reserve(pod, node, now);
    if (st.ok()) continue;
    // RunReservePluginsReserve failed: Unreserve, ForgetPod, failure (no queue move in 1.26's
    // reserve path other than the failure handler).
    unreserve_all(profile, pod, node, now);
    cache_remove(pod);
    failure_after_assume(pod, st.message, now);
    return false;
  }
  // RunPermitPlugins: a refusal ends the cycle; Wait keeps the pod until each waiting plugin
  // allows it or one timer (capped at 15 minutes, maxTimeout) expires.
  bool wait = false;
  Duration timeout = Duration::seconds(15 * 60);
  const char* plugin = "";
  for (PermitPlugin* p : profile.permits) {
    const PermitPlugin::Result r = p->permit(pod, node, now);
    if (r.status.code == StatusCode::kWait) {
      wait = true;
      if (r.timeout < timeout) timeout = r.timeout;
      plugin = p->name();
      continue;
    }
    if (r.status.ok()) continue;
    unreserve_all(profile, pod, node, now);
    cache_remove(pod);
    // "Forget"ing an assumed Pod is treated as a PodDelete event.
    queue_.move_all(kEventPodDelete, now);
    to_activate_.clear();
    failure_after_assume(pod, r.status.message, now);
    return false;
  }
  // At the end of a successful scheduling cycle: Activate(podsToActivate).
  for (const PodId a : to_activate_) queue_.activate(a);
  to_activate_.clear();
  if (wait) {
    waiting_.push_back(WaitingPod{pod, node, now + timeout, timeout, plugin});
    host_.post(now + timeout, Phase::kQueueTimer, SchedulerEvent{SchedulerEvent::Kind::kTimer, pod, node});
  }
  return true;
}

void Scheduler::failure_after_assume(PodId pod, const std::string& message, SimTime now) {
  const Pod& p = store_.pod(pod);
  if (!p.deleted && !is_terminal(p.phase) && !p.node.valid()) {
    // v1.26 keeps the pod's UnschedulablePlugins when the failure is not a FitError.
    add_unschedulable(pod, queue_.interested_events(pod), queue_.scheduling_cycle(), now);
    nominate(pod, NodeId());  // clearNominatedNode
    if (p.unschedulable_message != message || p.nominated_node.valid())
      host_.client().set_unschedulable_and_nominated(pod, message, NodeId(), now);
  }
  arm_ticks(now);
}

void Scheduler::binding_cycle_error(PodId pod, NodeId node, const std::string& message, SimTime now) {
  const Profile* profile = profile_for(store_.spec_of(pod));
  if (profile) unreserve_all(*profile, pod, node, now);
  cache_remove(pod);  // ForgetPod
  failure_after_assume(pod, message, now);
  // The deferred MoveAllToActiveOrBackoffQueue(AssignedPodDelete, every pod but this one).
  const std::function<bool(PodId)> others = [pod](PodId q) { return q != pod; };
  queue_.move_all(kEventPodDelete, now, &others);
  arm_ticks(now);
}

void Scheduler::process_rejections(SimTime now) {
  if (processing_rejections_) return;
  processing_rejections_ = true;
  while (!rejected_.empty()) {
    Rejection r = std::move(rejected_.front());
    rejected_.pop_front();
    binding_cycle_error(r.pod, r.node, r.message, now);
  }
  processing_rejections_ = false;
}

void Scheduler::run_post_filters(PodId pod, const Decision& decision, SimTime now) {
  preempt(pod, decision, now);  // DefaultPreemption (ran=false when the profile has none)
  const Profile* profile = profile_for(store_.spec_of(pod));
  if (profile == nullptr || profile->post_filters.empty()) return;
  if (preemption_.ran && (preemption_.node.valid() || preemption_.error)) return;
  bool ran = preemption_.ran;
  Preemption::Mode mode = ran ? preemption_.mode : Preemption::Mode::kNoop;
  std::string message = ran ? preemption_.message : std::string();
  for (const Profile::PostFilter& pf : profile->post_filters) {
    if (pf.plain) {
      pf.plain->post_filter(pod, now);  // a nil PostFilterResult: the nomination is unchanged
      continue;
    }
    preempt(pod, decision, now, pf.preemption);
    if (preemption_.node.valid() || preemption_.error) return;
    if (preemption_.mode != Preemption::Mode::kNoop) mode = preemption_.mode;
    if (!preemption_.message.empty()) message = preemption_.message;
    ran = true;
  }
  preemption_.ran = ran;
  preemption_.mode = mode;
  preemption_.message = message;
}

}  // namespace kubesim
