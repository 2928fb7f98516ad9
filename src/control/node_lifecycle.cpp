#include "control/node_lifecycle.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace kubesim {

namespace {

constexpr const char* kUnreachableTaint = "node.kubernetes.io/unreachable";  // v1.TaintNodeUnreachable

}  // namespace

const char* to_string(ClusterAction::Kind k) {
  switch (k) {
    case ClusterAction::Kind::kFail: return "fail";
    case ClusterAction::Kind::kRecover: return "recover";
    case ClusterAction::Kind::kCordon: return "cordon";
    case ClusterAction::Kind::kUncordon: return "uncordon";
    case ClusterAction::Kind::kDrain: return "drain";
  }
  return "";
}

std::int32_t disruptions_allowed(const ObjectStore& store, const PodDisruptionBudget& pdb) {
  std::int32_t expected = 0;
  std::int32_t healthy = 0;
  for (std::size_t i = 0; i < store.pod_count(); ++i) {
    const Pod& p = store.pod(PodId(static_cast<std::uint32_t>(i)));
    if (p.deleted || p.ns != pdb.ns || is_terminal(p.phase)) continue;
    if (!pdb.selector.matches(store.spec(p.spec).labels)) continue;
    ++expected;
    if (p.phase == PodPhase::kRunning && !p.terminating()) ++healthy;
  }
  return pdb.disruptions_allowed(expected, healthy);
}

NodeLifecycle::NodeLifecycle(ObjectStore& store, Kubelets& kubelets, NodeLifecycleConfig config,
                             std::vector<ClusterAction> actions, NodeLifecycleHost& host)
    : store_(store), kubelets_(kubelets), config_(config), actions_(std::move(actions)), host_(host) {
  epoch_.assign(store_.node_count(), 0);
  for (const auto& a : actions_) {
    NodeId found;
    for (std::size_t i = 0; i < store_.node_count() && !found.valid(); ++i)
      if (store_.node(NodeId(static_cast<std::uint32_t>(i))).name == a.node) found = NodeId(static_cast<std::uint32_t>(i));
    if (!found.valid()) throw InputError("", static_cast<int>(a.line), "no node named \"" + a.node + "\" for action " + to_string(a.kind));
    action_nodes_.push_back(found);
  }
}

void NodeLifecycle::start() {
  for (std::uint32_t i = 0; i < actions_.size(); ++i)
    host_.post(actions_[i].at, Phase::kArrival, NodeLifecycleEvent{NodeLifecycleEvent::Kind::kAction, i, 0});
}

void NodeLifecycle::set_unschedulable(NodeId node, bool value) {
  if (store_.node(node).unschedulable == value) return;
  store_.update_node(node, [&](Node& n) { n.unschedulable = value; });
}

void NodeLifecycle::fail(NodeId node, SimTime now) {
  if (!kubelets_.node_up(node)) return;
  const std::uint32_t epoch = ++epoch_[node.value()];
  kubelets_.on_node_down(node, now);
  host_.post(now + config_.node_monitor_grace_period, Phase::kController,
             NodeLifecycleEvent{NodeLifecycleEvent::Kind::kMarkUnreachable, node.value(), epoch});
}

void NodeLifecycle::recover(NodeId node, SimTime now) {
  if (kubelets_.node_up(node)) return;
  ++epoch_[node.value()];
  const Node& n = store_.node(node);
  const bool tainted = std::any_of(n.taints.begin(), n.taints.end(), [](const Taint& t) { return t.key == kUnreachableTaint; });
  if (tainted || !n.ready)
    store_.update_node(node, [&](Node& x) {
      x.ready = true;
      std::erase_if(x.taints, [](const Taint& t) { return t.key == kUnreachableTaint; });
    });
  kubelets_.on_node_up(node, now);
}

void NodeLifecycle::drain(NodeId node, SimTime now) {
  set_unschedulable(node, true);
  bool blocked = false;
  for (std::size_t i = 0; i < store_.pod_count(); ++i) {
    const PodId pod(static_cast<std::uint32_t>(i));
    const Pod& p = store_.pod(pod);
    if (p.node != node || p.deleted || p.terminating() || is_terminal(p.phase)) continue;
    const PodTemplate& spec = store_.spec(p.spec);
    // eviction.go: refused (429) while a PDB selecting the pod has no disruption left.
    bool allowed = true;
    for (const auto& pdb : store_.pod_disruption_budgets())
      if (pdb.ns == p.ns && pdb.selector.matches(spec.labels) && disruptions_allowed(store_, pdb) <= 0) allowed = false;
    if (!allowed) {
      blocked = true;
      continue;
    }
    store_.delete_pod(pod, now, Duration::seconds(spec.termination_grace_period_seconds),
                      DisruptionReason::kEvictionByEvictionAPI);
  }
  if (blocked)
    host_.post(now + config_.drain_retry, Phase::kController,
               NodeLifecycleEvent{NodeLifecycleEvent::Kind::kDrainRetry, node.value(), epoch_[node.value()]});
}

void NodeLifecycle::on_event(const NodeLifecycleEvent& e, SimTime now) {
  switch (e.kind) {
    case NodeLifecycleEvent::Kind::kAction: {
      const NodeId node = action_nodes_[e.index];
      switch (actions_[e.index].kind) {
        case ClusterAction::Kind::kFail: fail(node, now); return;
        case ClusterAction::Kind::kRecover: recover(node, now); return;
        case ClusterAction::Kind::kCordon: set_unschedulable(node, true); return;
        case ClusterAction::Kind::kUncordon: set_unschedulable(node, false); return;
        case ClusterAction::Kind::kDrain: drain(node, now); return;
      }
      return;
    }
    case NodeLifecycleEvent::Kind::kMarkUnreachable: {
      const NodeId node(e.index);
      if (e.epoch != epoch_[node.value()]) return;  // recovered meanwhile
      store_.update_node(node, [&](Node& n) {
        n.ready = false;
        n.taints.push_back(Taint{kUnreachableTaint, "", TaintEffect::kNoSchedule});
        n.taints.push_back(Taint{kUnreachableTaint, "", TaintEffect::kNoExecute});
      });
      host_.post(now + config_.default_toleration_seconds, Phase::kController,
                 NodeLifecycleEvent{NodeLifecycleEvent::Kind::kTaintEviction, node.value(), e.epoch});
      return;
    }
    case NodeLifecycleEvent::Kind::kTaintEviction: {
      const NodeId node(e.index);
      if (e.epoch != epoch_[node.value()]) return;
      const Taint no_execute{kUnreachableTaint, "", TaintEffect::kNoExecute};
      for (std::size_t i = 0; i < store_.pod_count(); ++i) {
        const PodId pod(static_cast<std::uint32_t>(i));
        const Pod& p = store_.pod(pod);
        if (p.node != node || p.deleted || p.terminating() || is_terminal(p.phase)) continue;
        const PodTemplate& spec = store_.spec(p.spec);
        // A pod's own toleration of the taint (no tolerationSeconds modelled) keeps it.
        if (std::any_of(spec.tolerations.begin(), spec.tolerations.end(),
                        [&](const Toleration& t) { return t.tolerates(no_execute); }))
          continue;
        store_.delete_pod(pod, now, Duration::seconds(spec.termination_grace_period_seconds),
                          DisruptionReason::kDeletionByTaintManager);
      }
      return;
    }
    case NodeLifecycleEvent::Kind::kDrainRetry:
      drain(NodeId(e.index), now);
      return;
  }
}

}  // namespace kubesim
