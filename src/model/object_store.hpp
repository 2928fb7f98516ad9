// The object store: the simulated API server's storage. Every write bumps the global
// resourceVersion, stamps it on the object, and is announced on the change feed, which
// controllers, schedulers and metrics consume (through informers that may add delay).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "model/objects.hpp"

namespace kubesim {

enum class ObjectKind : std::uint8_t { kNamespace, kNode, kPod };
enum class ChangeType : std::uint8_t { kAdded, kModified, kDeleted };

// One entry of the change feed. It carries a snapshot of the pod fields that change over a
// pod's life, so a consumer that hears of it late still sees the state as of this change.
struct Change {
  ObjectKind kind;
  ChangeType type;
  std::uint32_t id;
  std::uint64_t resource_version;
  NodeId node;      // pods: spec.nodeName at this change
  PodPhase phase;   // pods: status.phase at this change
  PodPhase old_phase;
  NodeId old_node;
};

class ChangeListener {
 public:
  virtual ~ChangeListener() = default;
  virtual void on_change(const Change& change) = 0;
};

class ObjectStore {
 public:
  NamespaceId ensure_namespace(const std::string& name);
  NodeId create_node(Node node);
  PodTemplateId add_template(PodTemplate spec);  // finalizes the derived requests
  PodId create_pod(Pod pod);

  // Applies `mutate` to the pod, then stamps a new resourceVersion and announces it.
  template <class Mutate>
  void update_pod(PodId id, Mutate&& mutate) {
    Pod& p = pods_[id.value()];
    const PodPhase old_phase = p.phase;
    const NodeId old_node = p.node;
    mutate(p);
    p.resource_version = ++resource_version_;
    announce(Change{ObjectKind::kPod, ChangeType::kModified, id.value(), p.resource_version, p.node, p.phase,
                    old_phase, old_node});
  }
  template <class Mutate>
  void update_node(NodeId id, Mutate&& mutate) {
    Node& n = nodes_[id.value()];
    mutate(n);
    n.resource_version = ++resource_version_;
    announce(Change{ObjectKind::kNode, ChangeType::kModified, id.value(), n.resource_version, id, PodPhase::kPending,
                    PodPhase::kPending, id});
  }
  // Simulator statistics that are not API fields: no new resourceVersion, no change event.
  Pod& pod_statistics(PodId id) { return pods_[id.value()]; }

  const Pod& pod(PodId id) const { return pods_[id.value()]; }
  const Node& node(NodeId id) const { return nodes_[id.value()]; }
  const Namespace& namespace_(NamespaceId id) const { return namespaces_[id.value()]; }
  const PodTemplate& spec(PodTemplateId id) const { return templates_[id.value()]; }
  const PodTemplate& spec_of(PodId id) const { return templates_[pods_[id.value()].spec.value()]; }

  std::size_t pod_count() const { return pods_.size(); }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t namespace_count() const { return namespaces_.size(); }
  std::uint64_t resource_version() const { return resource_version_; }
  ResourceNames& resource_names() { return resource_names_; }
  const ResourceNames& resource_names() const { return resource_names_; }

  void add_listener(ChangeListener* listener) { listeners_.push_back(listener); }
  void reserve_pods(std::size_t n) { pods_.reserve(n); }

 private:
  void announce(const Change& change) {
    for (auto* l : listeners_) l->on_change(change);
  }

  std::vector<Namespace> namespaces_;
  std::unordered_map<std::string, NamespaceId> namespace_index_;  // lookups only, never iterated
  std::vector<Node> nodes_;
  std::vector<PodTemplate> templates_;
  std::vector<Pod> pods_;
  std::vector<ChangeListener*> listeners_;
  ResourceNames resource_names_;
  std::uint64_t resource_version_ = 0;
};

}  // namespace kubesim
