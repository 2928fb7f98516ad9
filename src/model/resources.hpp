// Resource vectors. Slot 0 is cpu (millicores), slot 1 memory (bytes), slot 2
// ephemeral-storage (bytes); further slots hold extended resources (e.g. nvidia.com/gpu),
// whose names a ResourceNames table owned by the object store maps to slots. A fixed array
// keeps per-node arithmetic branch-free and allocation-free.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace kubesim {

inline constexpr std::size_t kMaxResources = 8;
inline constexpr std::size_t kCpu = 0;
inline constexpr std::size_t kMemory = 1;
inline constexpr std::size_t kEphemeralStorage = 2;

struct Resources {
  std::array<std::int64_t, kMaxResources> amount{};

  std::int64_t& operator[](std::size_t i) { return amount[i]; }
  std::int64_t operator[](std::size_t i) const { return amount[i]; }
  // Saturating at the int64 bounds: readers refuse amounts of 2^63-1 milli-units or more
  // (Quantity::out_of_range), but sums over many nodes or pods of huge amounts must still
  // never wrap (a wrapped sum turns "plenty" into "none").
  Resources& operator+=(const Resources& o) {
    for (std::size_t i = 0; i < kMaxResources; ++i) amount[i] = saturating_add(amount[i], o.amount[i]);
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    for (std::size_t i = 0; i < kMaxResources; ++i) amount[i] = saturating_sub(amount[i], o.amount[i]);
    return *this;
  }
  static std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  }
  static std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (!__builtin_sub_overflow(a, b, &r)) return r;
    return b < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  }
  bool operator==(const Resources&) const = default;
};

// v1helper.IsExtendedResourceName (v1.26): a name with a "/" outside kubernetes.io/ (not
// native) that is not a quota "requests." name.
inline bool is_extended_resource_name(std::string_view name) {
  return name.find('/') != std::string_view::npos && name.find("kubernetes.io/") == std::string_view::npos &&
         name.rfind("requests.", 0) != 0;
}

// Name <-> slot table. "cpu", "memory" and "ephemeral-storage" are pre-registered.
class ResourceNames {
 public:
  ResourceNames()
      : names_{"cpu", "memory", "ephemeral-storage"},
        reasons_{"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"} {}
  // Returns the slot for `name`, registering it; returns -1 when all slots are taken.
  int slot(std::string_view name);
  int find(std::string_view name) const;
  const std::string& name(std::size_t slot) const { return names_[slot]; }
  // NodeResourcesFit's filter reason for the slot: "Insufficient <name>".
  const std::string& insufficient_reason(std::size_t slot) const { return reasons_[slot]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::vector<std::string> reasons_;
};

}  // namespace kubesim
