// Object kinds: the five built-in kinds keep their typed, fast tables in the ObjectStore;
// any other kind (a typed kind such as scheduling.x-k8s.io PodGroup, or an opaque custom
// resource) is one registration, after which the store keeps its objects (create / get /
// list / update / delete, each write stamped with the global resourceVersion) and announces
// their changes on the change feed to the subscribers that asked for that kind.
//
// Upstream: kube-apiserver builds one generic REST storage per resource from a strategy
// (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go: Store{NewFunc,
// NewListFunc, DefaultQualifiedResource, ...} and its Create/Get/List/Update/Delete/Watch),
// registered under its group/version/resource; apiextensions-apiserver serves a
// CustomResourceDefinition's objects as unstructured JSON through that same Store
// (staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/etcd.go,
// unstructured objects). Here a typed kind is Store with NewFunc = T, an opaque kind keeps
// its object as JSON text (OpaqueObject), and the codec that turns objects into JSON is a
// hook the API layer sets (model/ does not know JSON).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace kubesim {

// A kind id. The named values are the built-in kinds; registered kinds take the ids after
// them (ObjectKind(5), ObjectKind(6), ...), so a Change still carries one byte of kind.
enum class ObjectKind : std::uint8_t { kNamespace, kNode, kPod, kJob, kQuota };
inline constexpr std::size_t kBuiltinKinds = 5;
inline constexpr std::size_t kMaxKinds = 256;
inline constexpr bool is_builtin(ObjectKind k) { return static_cast<std::size_t>(k) < kBuiltinKinds; }

// A set of kinds: what a change-feed subscriber or a controller asks to be delivered.
class KindSet {
 public:
  constexpr KindSet() = default;
  constexpr KindSet(std::initializer_list<ObjectKind> kinds) {
    for (const ObjectKind k : kinds) add(k);
  }
  // The five built-in kinds (what ObjectStore::add_listener(listener) subscribes to).
  static constexpr KindSet builtins() {
    return {ObjectKind::kNamespace, ObjectKind::kNode, ObjectKind::kPod, ObjectKind::kJob, ObjectKind::kQuota};
  }
  // Every kind id, those registered later included (the Simulation's own subscription).
  static constexpr KindSet all() {
    KindSet s;
    for (auto& b : s.bits_) b = ~std::uint64_t{0};
    return s;
  }
  constexpr void add(ObjectKind k) {
    const auto i = static_cast<std::size_t>(k);
    bits_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  constexpr bool contains(ObjectKind k) const {
    const auto i = static_cast<std::size_t>(k);
    return (bits_[i / 64] >> (i % 64)) & 1u;
  }

 private:
  std::array<std::uint64_t, kMaxKinds / 64> bits_{};
};

// The codec hook of a kind, set by the API layer (api/ owns JSON): a registered kind's
// object to JSON and back. Empty until the API layer sets it; opaque kinds need none (their
// object is JSON text already).
struct KindCodec {
  // The object's JSON (its whole body but metadata, which the API layer writes from
  // ObjectMeta). `object` points to the kind's C++ type.
  std::function<std::string(const void* object)> encode;
  // Reads `json` into `object` (the kind's C++ type); returns an error message, empty on success.
  std::function<std::string(std::string_view json, void* object)> decode;
};

enum class KindStorage : std::uint8_t {
  kBuiltin,  // the store's own typed tables (Namespace, Node, Pod, Job, ResourceQuota)
  kTyped,    // ObjectStore::register_kind<T>: objects of type T
  kOpaque,   // ObjectStore::register_custom_kind: OpaqueObject (JSON text)
};

// What kube-apiserver's discovery says of a resource (metav1.APIResource) and what a
// CustomResourceDefinition's spec.names / spec.scope declare.
struct KindInfo {
  std::string group;    // "" for the core group
  std::string version;  // "v1", "v1alpha1", ...
  std::string kind;     // "PodGroup"
  std::string plural;   // "podgroups": the resource, in URLs
  bool namespaced = true;
  KindStorage storage = KindStorage::kTyped;  // set by the registration
  KindCodec codec;                            // set by the API layer (ObjectStore::set_codec)

  // "group/version", or "version" for the core group: a manifest's apiVersion.
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

// The object of an opaque custom resource: its JSON text (everything but metadata), as
// apiextensions-apiserver keeps an unstructured object.
struct OpaqueObject {
  std::string json;
};

}  // namespace kubesim
