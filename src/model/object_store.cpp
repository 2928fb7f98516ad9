#include "model/object_store.hpp"

namespace kubesim {

NamespaceId ObjectStore::ensure_namespace(const std::string& name) {
  if (auto it = namespace_index_.find(name); it != namespace_index_.end()) return it->second;
  const NamespaceId id(static_cast<std::uint32_t>(namespaces_.size()));
  namespaces_.push_back(Namespace{name, ++resource_version_});
  namespace_index_.emplace(name, id);
  announce(Change{ObjectKind::kNamespace, ChangeType::kAdded, id.value(), resource_version_, NodeId(), PodPhase::kPending,
                  PodPhase::kPending, NodeId()});
  return id;
}

NodeId ObjectStore::create_node(Node node) {
  const NodeId id(static_cast<std::uint32_t>(nodes_.size()));
  node.resource_version = ++resource_version_;
  nodes_.push_back(std::move(node));
  announce(Change{ObjectKind::kNode, ChangeType::kAdded, id.value(), resource_version_, id, PodPhase::kPending,
                  PodPhase::kPending, id});
  return id;
}

PodTemplateId ObjectStore::add_template(PodTemplate spec) {
  spec.finalize();
  templates_.push_back(std::move(spec));
  return PodTemplateId(static_cast<std::uint32_t>(templates_.size() - 1));
}

PodId ObjectStore::create_pod(Pod pod) {
  KUBESIM_ASSERT(pod.spec.valid() && pod.spec.value() < templates_.size());
  const PodId id(static_cast<std::uint32_t>(pods_.size()));
  pod.resource_version = ++resource_version_;
  pods_.push_back(std::move(pod));
  const Pod& p = pods_.back();
  announce(Change{ObjectKind::kPod, ChangeType::kAdded, id.value(), p.resource_version, p.node, p.phase, p.phase,
                  p.node});
  return id;
}

}  // namespace kubesim
