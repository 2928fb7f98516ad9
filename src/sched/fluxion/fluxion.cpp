#include "sched/fluxion/fluxion.hpp"

#include <algorithm>

#include "cluster/predicates.hpp"
#include "core/error.hpp"
#include "core/yaml_input.hpp"
#include "sched/cluster_client.hpp"
#include "sched/kube/framework.hpp"

namespace kubesim {

namespace {
const std::string kGroupLabel = "scheduling.x-k8s.io/pod-group";
const std::string kSocketsLabel = "fluxion.kubesim.io/sockets";
}  // namespace

namespace {
FluxionConfig read_fluxion_config(const std::string& path, const YAML::Node& root, FluxionConfig c);
}  // namespace

FluxionConfig load_fluxion_config(const std::string& path, FluxionConfig c) {
  const YAML::Node root = load_yaml_file(path);
  // A node of the wrong kind throws from yaml-cpp's conversions: reported with its line.
  try {
    return read_fluxion_config(path, root, std::move(c));
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e, "unexpected value: ");
  }
}

namespace {
FluxionConfig read_fluxion_config(const std::string& path, const YAML::Node& root, FluxionConfig c) {
  YamlInput in(path);
  if (!root || root.IsNull()) return c;
  in.require_map(root, "the Fluxion configuration");
  in.check_keys(root,
                {"matchPolicy", "informer", "reflectOtherSchedulers", "nodeResourcesFit",
                 "socketsPerNode", "schedulingCycle", "bindLatency", "podGroups"},
                "the Fluxion configuration");
  bool reflect_given = false;
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (key == "matchPolicy") {
      const std::string name = in.scalar(v, key);
      auto p = fluxion::parse_policy(name);
      if (!p)
        in.fail(v, "expected matchPolicy to be one of first, firstnodex, high, low, lonode, lonodex, hinode, "
                   "hinodex, locality, got \"" + name + "\"");
      c.policy = *p;
    } else if (key == "informer") {
      c.informer = in.boolean(v, key);
    } else if (key == "reflectOtherSchedulers") {
      c.reflect_other_schedulers = in.boolean(v, key);
      reflect_given = true;
    } else if (key == "nodeResourcesFit") {
      c.node_resources_fit = in.boolean(v, key);
    } else if (key == "socketsPerNode") {
      c.sockets_per_node = static_cast<std::uint32_t>(in.integer(v, key, 1, 64));
    } else if (key == "schedulingCycle" || key == "bindLatency") {
      (key == "bindLatency" ? c.bind : c.cycle) = Distribution::parse(in.scalar(v, key), path, line_of(v));
    } else if (key == "podGroups") {
      in.require_list(v, key);
      c.pod_groups.clear();
      for (const auto& g : v) {
        in.require_map(g, "a podGroups entry");
        in.check_keys(g, {"name", "minMember"}, "a podGroups entry");
        if (!g["name"]) in.fail(g, "expected a podGroups entry to have a name");
        FluxionConfig::PodGroup pg;
        pg.name = in.scalar(g["name"], "podGroups name");
        if (g["minMember"]) pg.min_member = static_cast<std::uint32_t>(in.integer(g["minMember"], "minMember", 1, 100000));
        c.pod_groups.push_back(std::move(pg));
      }
    }
  }
  // The state sync follows the informer unless set on its own.
  if (!reflect_given) c.reflect_other_schedulers = c.informer;
  return c;
}
}  // namespace

FluxionScheduler::FluxionScheduler(ObjectStore& store, SchedulerHost& host, std::uint64_t seed, FluxionConfig config)
    : store_(store),
      host_(host),
      config_(std::move(config)),
      latency_rng_(seed, "fluxion/latency"),
      queue_(config_.queue),
      cache_(store) {
  groups_.resize(config_.pod_groups.size());
}

FluxionScheduler::PodState& FluxionScheduler::state(PodId pod) {
  if (pods_.size() <= pod.value()) pods_.resize(pod.value() + 1);
  return pods_[pod.value()];
}

void FluxionScheduler::build_graph() {
  // flux-k8s utils.CreateJGF, called once from the plugin's New(): one node vertex per
  // schedulable worker node, in Node List order, with the cores still free at start-up.
  graph_built_ = true;
  gpu_slot_ = store_.resource_names().find("nvidia.com/gpu");
  const std::size_t n = store_.node_count();
  graph_index_.assign(n, -1);
  for (std::uint32_t i = 0; i < n; ++i) cache_.set_node(NodeId(i), store_.node(NodeId(i)));
  std::vector<Resources> requested(n);  // by node: the requests of its pods
  for (std::size_t i = 0; i < store_.pod_count(); ++i) {
    const Pod& p = store_.pod(PodId(static_cast<std::uint32_t>(i)));
    if (p.node.valid() && !is_terminal(p.phase) && !p.deleted) requested[p.node.value()] += store_.spec(p.spec).requests;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = store_.node(NodeId(static_cast<std::uint32_t>(i)));
    if (node.unschedulable || find_label(node.labels, "node-role.kubernetes.io/control-plane") ||
        find_label(node.labels, "node-role.kubernetes.io/master"))
      continue;
    fluxion::ResourceGraph::NodeSpec s;
    s.name = node.name;
    const std::int64_t free_milli = std::max<std::int64_t>(0, node.allocatable[kCpu] - requested[i][kCpu]);
    s.cores = static_cast<std::uint32_t>(free_milli / 1000);
    s.sockets = config_.sockets_per_node;
    if (const std::string* label = find_label(node.labels, kSocketsLabel)) {
      const int v = std::atoi(label->c_str());
      if (v > 0) s.sockets = static_cast<std::uint32_t>(v);
    }
    // Fluence utils.go CreateJGF: availMem = allocatable - requests of the node's pods;
    // availMem >> 30 memory vertices of 1 GiB (MakeMemory(i, "memory", "MB", 1<<10)).
    s.memory = static_cast<std::uint32_t>(std::max<std::int64_t>(0, node.allocatable[kMemory] - requested[i][kMemory]) >> 30);
    s.gpus = gpu_slot_ >= 0 ? static_cast<std::uint32_t>(node.allocatable[static_cast<std::size_t>(gpu_slot_)]) : 0;
    graph_index_[i] = static_cast<std::int32_t>(graph_.add_node(s));
    graph_nodes_.push_back(NodeId(static_cast<std::uint32_t>(i)));
  }
}

fluxion::SlotRequest FluxionScheduler::slot_request(const PodTemplate& spec) const {
  // Fluence utils.go InspectPodInfo: cores = Quantity.Value() of the cpu request (rounded
  // up; summed per container upstream, the pod's total here), 1 when none. jobspec.go
  // createSocketResources: memory (only if requested) counts MB = bytes >> 20; the graph's
  // memory vertices hold 1024 MB each and are taken whole, so the slot holds ceil(MB / 1024)
  // of them (a request under 1 MB counts 0 here). gpu: the nvidia.com/gpu amount.
  fluxion::SlotRequest r;
  r.cores = static_cast<std::uint32_t>(std::max<std::int64_t>(1, (spec.requests[kCpu] + 999) / 1000));
  const std::int64_t mb = spec.requests[kMemory] >> 20;
  r.memory = static_cast<std::uint32_t>((mb + 1023) / 1024);
  r.gpus = gpu_slot_ >= 0 ? static_cast<std::uint32_t>(spec.requests[static_cast<std::size_t>(gpu_slot_)]) : 0;
  return r;
}

std::int32_t FluxionScheduler::group_of(const PodTemplate& spec) const {
  const std::string* name = find_label(spec.labels, kGroupLabel);
  if (!name) return -1;
  for (std::size_t i = 0; i < config_.pod_groups.size(); ++i)
    if (config_.pod_groups[i].name == *name) return static_cast<std::int32_t>(i);
  return -1;  // Fluence: a pod without a known group is a group of one
}

void FluxionScheduler::cancel_job_of(PodId pod) {
  PodState& ps = state(pod);
  if (ps.job == 0) return;
  // ReapiCliCancel(jobid) via the podName -> jobid map.
  if (graph_.cancel(ps.job)) ++cancellations_;
  if (ps.group >= 0 && groups_[static_cast<std::size_t>(ps.group)].job == ps.job)
    groups_[static_cast<std::size_t>(ps.group)] = GroupState{};
  ps.job = 0;
}

void FluxionScheduler::account(PodId pod, NodeId node) {
  if (cache_.node_of(pod).valid()) return;
  // A pod seen on a node whose own change has not reached this scheduler yet.
  if (node.value() >= cache_.node_count()) cache_.set_node(node, store_.node(node));
  cache_.add_pod(pod, node);
}

void FluxionScheduler::unaccount(PodId pod) { cache_.remove_pod(pod); }

bool FluxionScheduler::fits_node(const PodTemplate& spec, NodeId node, std::string* reason) const {
  // noderesources.Fits (NodeResourcesFit Filter) on the scheduler's cache, with the node's
  // current allocatable. Differs from fitsRequest as this model always did: only the
  // resources the pod requests are compared (a zero cpu request passes an overcommitted
  // node), and the first insufficient one is the reason.
  const Node& n = store_.node(node);
  const NodeInfo& info = cache_.info(node);
  const std::uint32_t insufficient =
      insufficient_resources(spec, n.allocatable, info.requested, info.pod_count, n.allowed_pods) &
      (kTooManyPodsBit | spec.requested_slots);
  if (insufficient == 0) return true;
  *reason = insufficient & kTooManyPodsBit ? std::string("Too many pods")
                                           : store_.resource_names().insufficient_reason(first_slot(insufficient));
  return false;
}

void FluxionScheduler::on_node_change(const Change& change, SimTime /*now*/) {
  // The graph is never rebuilt or updated for node changes (upstream builds it once); the
  // cache follows them (a node added later gets an entry).
  if (!graph_built_) {
    build_graph();
  } else if (change.type != ChangeType::kDeleted) {
    cache_.set_node(NodeId(change.id), store_.node(NodeId(change.id)));
  }
}

void FluxionScheduler::on_pod_change(const Change& c, SimTime now) {
  if (!graph_built_) build_graph();
  const PodId pod(c.id);
  const PodTemplate& spec = store_.spec_of(pod);
  const bool mine = serves(spec.scheduler_name);
  const bool terminal = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
  PodState& ps = state(pod);
  if (terminal) {
    queue_.remove(pod);
    const bool was_accounted = cache_.node_of(pod).valid();
    unaccount(pod);
    // Informer UpdateFunc (Succeeded/Failed) and DeleteFunc: cancel the pod's Flux job;
    // with the state sync, end another scheduler's pod's pseudo-job.
    if (mine ? config_.informer : config_.reflect_other_schedulers) cancel_job_of(pod);
    if (was_accounted) {
      queue_.move_all(kEventPodDelete, now);  // AssignedPodDelete
      schedule_next_cycle(now);
      arm_ticks(now);
    }
    return;
  }
  if (c.node.valid()) {
    if (cache_.node_of(pod).valid()) return;  // our own assumption confirmed
    queue_.remove(pod);
    account(pod, c.node);
    queue_.record_move_request();  // AssignedPodAdded
    if (!mine && config_.reflect_other_schedulers && ps.job == 0) {
      const std::int32_t g = graph_node(c.node);
      if (g >= 0) ps.job = graph_.allocate_on(static_cast<std::uint32_t>(g), slot_request(spec));
    }
    return;
  }
  if (c.type == ChangeType::kAdded && mine) {
    ps.group = group_of(spec);
    queue_.add(pod, spec.priority, now);
    schedule_next_cycle(now);
  }
}

void FluxionScheduler::schedule_next_cycle(SimTime now) {
  if (in_cycle_ || cycle_posted_ || queue_.active_empty()) return;
  cycle_posted_ = true;
  host_.post(now, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kCycle, PodId(), NodeId()});
}

void FluxionScheduler::start_cycle(SimTime now) {
  cycle_posted_ = false;
  if (in_cycle_) return;
  for (;;) {
    auto popped = queue_.pop();
    if (!popped) return;
    const Pod& p = store_.pod(*popped);
    if (is_terminal(p.phase) || p.node.valid() || p.deleted || cache_.node_of(*popped).valid()) continue;
    cycle_pod_ = *popped;
    break;
  }
  ++attempts_;
  store_.pod_statistics(cycle_pod_).scheduling_attempts = queue_.attempts(cycle_pod_);
  cycle_number_ = queue_.scheduling_cycle();
  in_cycle_ = true;
  cycle_node_ = NodeId();
  cycle_message_.clear();
  const PodTemplate& spec = store_.spec_of(cycle_pod_);
  PodState& ps = state(cycle_pod_);
  // kubeflux.go PreFilter -> askFlux: with the informer, a pod's earlier allocation is
  // cancelled first; without it, every attempt allocates a new job.
  std::uint32_t graph_node_index = 0;
  bool allocated = false;
  if (ps.group >= 0) {
    GroupState& gs = groups_[static_cast<std::size_t>(ps.group)];
    const std::uint32_t size = config_.pod_groups[static_cast<std::size_t>(ps.group)].min_member;
    if (gs.job != 0 && ps.job == gs.job && config_.informer) {
      // A member retrying: its slot stays (Fluence keeps the group's nodes).
      graph_node_index = graph_.allocation(gs.job)[ps.slot].node;
      allocated = true;
    } else if (gs.job != 0 && gs.next_slot < size && !graph_.allocation(gs.job).empty()) {
      ps.job = gs.job;
      ps.slot = gs.next_slot++;
      graph_node_index = graph_.allocation(gs.job)[ps.slot].node;
      allocated = true;
    } else {
      if (config_.informer && gs.job != 0) {
        graph_.cancel(gs.job);
        ++cancellations_;
      }
      gs = GroupState{};
      const std::uint64_t job = graph_.match_allocate(fluxion::JobSpec{size, slot_request(spec)}, config_.policy);
      if (job != 0) {
        gs.job = job;
        gs.next_slot = 1;
        ps.job = job;
        ps.slot = 0;
        graph_node_index = graph_.allocation(job)[0].node;
        allocated = true;
      }
    }
  } else {
    if (config_.informer) cancel_job_of(cycle_pod_);
    const std::uint64_t job = graph_.match_allocate(fluxion::JobSpec{1, slot_request(spec)}, config_.policy);
    if (job != 0) {
      ps.job = job;  // without the informer an earlier job is simply forgotten (leaked)
      graph_node_index = graph_.allocation(job)[0].node;
      allocated = true;
    }
  }
  const std::string all = std::to_string(store_.node_count());
  if (!allocated) {
    // PreFilter Unschedulable; FitError.Error() (v1.26) adds the PreFilter message.
    cycle_message_ = "0/" + all + " nodes are available: Pod cannot be scheduled by KubeFlux, nodename NONE.";
  } else {
    const NodeId node = graph_nodes_[graph_node_index];
    std::string reason;
    if (config_.node_resources_fit && !fits_node(spec, node, &reason)) {
      // The chosen node fails NodeResourcesFit; every other node fails KubeFlux's Filter.
      // FitError lists "<count> <reason>" sorted as strings.
      std::vector<std::string> parts{"1 " + reason};
      if (store_.node_count() > 1) parts.push_back(std::to_string(store_.node_count() - 1) + " pod is not permitted");
      std::sort(parts.begin(), parts.end());
      cycle_message_ = "0/" + all + " nodes are available: " + parts[0];
      for (std::size_t i = 1; i < parts.size(); ++i) cycle_message_ += ", " + parts[i];
      cycle_message_ += ".";
    } else {
      cycle_node_ = node;
    }
  }
  const Duration d = config_.cycle.sample(latency_rng_);
  if (d == Duration()) {
    finish_cycle(now);
  } else {
    host_.post(now + d, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kCycleEnd, cycle_pod_, NodeId()});
  }
}

void FluxionScheduler::finish_cycle(SimTime now) {
  in_cycle_ = false;
  const PodId pod = cycle_pod_;
  if (cycle_node_.valid()) {
    account(pod, cycle_node_);  // assume
    const Duration b = config_.bind.sample(latency_rng_);
    host_.post(now + b, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kBindDone, pod, cycle_node_});
  } else {
    // handleSchedulingFailure: "Unable to schedule pod; no fit; waiting", back to the queue
    // (KubeFlux registers no events: any cluster event moves it), PodScheduled=False.
    queue_.add_unschedulable_if_not_present(pod, 0, cycle_number_, now);
    arm_ticks(now);
    if (store_.pod(pod).unschedulable_message != cycle_message_)
      host_.client().set_unschedulable(pod, cycle_message_, now);
  }
  schedule_next_cycle(now);
}

void FluxionScheduler::arm_ticks(SimTime now) { ticks_.arm(queue_, config_.queue, now, host_); }

void FluxionScheduler::on_event(const SchedulerEvent& event, SimTime now) {
  switch (event.kind) {
    case SchedulerEvent::Kind::kCycle: start_cycle(now); break;
    case SchedulerEvent::Kind::kCycleEnd: finish_cycle(now); break;
    case SchedulerEvent::Kind::kBindDone:
      // The graph's GPU vertices are its own matching; the binding records no devices.
      if (!host_.client().bind(Binding{event.pod, event.node, {}}, now)) {
        unaccount(event.pod);  // deleted or bound meanwhile: forget the assumption
        break;
      }
      ++bindings_;
      break;
    case SchedulerEvent::Kind::kBackoffTick:
    case SchedulerEvent::Kind::kLeftoverTick:
      ticks_.on_tick(queue_, event.kind == SchedulerEvent::Kind::kBackoffTick, now);
      schedule_next_cycle(now);
      arm_ticks(now);
      break;
    case SchedulerEvent::Kind::kPatchDone:
    case SchedulerEvent::Kind::kTimer:
    case SchedulerEvent::Kind::kBindJob:
    case SchedulerEvent::Kind::kDeleteVictim:
    case SchedulerEvent::Kind::kPreemptionDone: break;  // not posted by this model
  }
}

}  // namespace kubesim
