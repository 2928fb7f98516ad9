// The store of one registered kind (model/kind_registry.hpp): its objects with their
// metadata, behind a type-erased base so that the ObjectStore (and the API layer, through
// its codec hook) can list and read any kind without knowing its C++ type. The typed
// accessors check the type (a registration's type is fixed).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
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
  // The object, as the kind's C++ type (for the codec hook).
  virtual const void* object(std::uint32_t id) const = 0;
  virtual void* object(std::uint32_t id) = 0;

 protected:
  std::uint32_t add_meta(ObjectMeta meta) {
    meta_.push_back(std::move(meta));
    return static_cast<std::uint32_t>(meta_.size() - 1);
  }

 private:
  KindInfo info_;
  const std::type_info* type_;
  std::vector<ObjectMeta> meta_;
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

 private:
  std::vector<T> objects_;
};

}  // namespace kubesim
