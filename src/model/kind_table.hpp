// The store of one registered kind (model/kind_registry.hpp): its objects with their
// metadata, behind a type-erased base so that the ObjectStore (and the API layer, through
// its codec hook) can list and read any kind without knowing its C++ type. The typed
// accessors check the type (a registration's type is fixed).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "model/kind_registry.hpp"

namespace kubesim {

// The part of metav1.ObjectMeta the store keeps for an object of a registered kind.
struct ObjectMeta {
  std::string name;
  NamespaceId ns;  // invalid for cluster-scoped kinds
  std::uint64_t resource_version = 0;
  bool deleted = false;  // removed from the API (the slot stays: ids are never reused)
};

class KindTable {
 public:
  explicit KindTable(KindInfo info, const std::type_info& type) : info_(std::move(info)), type_(&type) {}
  virtual ~KindTable() = default;
  KindTable(const KindTable&) = delete;
  KindTable& operator=(const KindTable&) = delete;

  const KindInfo& info() const { return info_; }
  KindInfo& info() { return info_; }
  const std::type_info& type() const { return *type_; }
  std::size_t size() const { return meta_.size(); }
  const ObjectMeta& meta(std::uint32_t id) const { return meta_[id]; }
  ObjectMeta& meta(std::uint32_t id) { return meta_[id]; }
  // The live object of that namespace and name (an index: no string is built).
  std::optional<std::uint32_t> find(NamespaceId ns, std::string_view name) const {
    const auto it = by_name_.find(NameRef{ns.value(), name});
    return it == by_name_.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  }
  // Removed from the API: leaves the name index (the first other live object of that name,
  // if any, takes its place: find() returns the first live one, as a scan would).
  void mark_deleted(std::uint32_t id) {
    ObjectMeta& m = meta_[id];
    m.deleted = true;
    const auto it = by_name_.find(NameRef{m.ns.value(), m.name});
    if (it == by_name_.end() || it->second != id) return;
    by_name_.erase(it);
    for (std::uint32_t i = 0; i < meta_.size(); ++i)
      if (!meta_[i].deleted && meta_[i].ns == m.ns && meta_[i].name == m.name) {
        by_name_.emplace(NameKey{m.ns.value(), m.name}, i);
        return;
      }
  }
  // The object, as the kind's C++ type (for the codec hook).
  virtual const void* object(std::uint32_t id) const = 0;
  virtual void* object(std::uint32_t id) = 0;
  // Writes through the codec hook (the API's create and update of a typed kind): `fill` is
  // given a default-constructed object (add) or a copy of the current one (replace) as the
  // kind's C++ type, and the result is stored only when it returns true.
  using Fill = std::function<bool(void* object)>;
  virtual std::optional<std::uint32_t> add_filled(ObjectMeta meta, const Fill& fill) = 0;
  virtual bool replace_filled(std::uint32_t id, const Fill& fill) = 0;

 protected:
  std::uint32_t add_meta(ObjectMeta meta) {
    const auto id = static_cast<std::uint32_t>(meta_.size());
    by_name_.emplace(NameKey{meta.ns.value(), meta.name}, id);  // a second of one name: the first stays found
    meta_.push_back(std::move(meta));
    return id;
  }

 private:
  // (namespace, name) -> id, looked up with a string_view of the name.
  using NameKey = std::pair<std::uint32_t, std::string>;
  using NameRef = std::pair<std::uint32_t, std::string_view>;
  struct NameOrder {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      if (a.first != b.first) return a.first < b.first;
      return std::string_view(a.second) < std::string_view(b.second);
    }
  };

  KindInfo info_;
  const std::type_info* type_;
  std::vector<ObjectMeta> meta_;
  std::map<NameKey, std::uint32_t, NameOrder> by_name_;  // live objects; lookups only
};

template <class T>
class TypedKindTable final : public KindTable {
 public:
  explicit TypedKindTable(KindInfo info) : KindTable(std::move(info), typeid(T)) {}
  std::uint32_t add(ObjectMeta meta, T object) {
    objects_.push_back(std::move(object));
    return add_meta(std::move(meta));
  }
  const T& get(std::uint32_t id) const { return objects_[id]; }
  T& get(std::uint32_t id) { return objects_[id]; }
  const void* object(std::uint32_t id) const override { return &objects_[id]; }
  void* object(std::uint32_t id) override { return &objects_[id]; }
  std::optional<std::uint32_t> add_filled(ObjectMeta meta, const Fill& fill) override {
    T object{};
    if (!fill(&object)) return std::nullopt;
    return add(std::move(meta), std::move(object));
  }
  bool replace_filled(std::uint32_t id, const Fill& fill) override {
    T object = objects_[id];
    if (!fill(&object)) return false;
    objects_[id] = std::move(object);
    return true;
  }

 private:
  std::vector<T> objects_;
};

}  // namespace kubesim
