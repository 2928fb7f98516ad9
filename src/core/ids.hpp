// Dense integer ids for simulated objects: an object's id is its index in the store's table,
// which keeps per-object data in flat arrays and iteration order deterministic.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace kubesim {

template <class Tag>
class Id {
 public:
  static constexpr std::uint32_t kInvalid = std::numeric_limits<std::uint32_t>::max();
  constexpr Id() = default;
  constexpr explicit Id(std::uint32_t v) : v_(v) {}
  constexpr std::uint32_t value() const { return v_; }
  constexpr bool valid() const { return v_ != kInvalid; }
  constexpr auto operator<=>(const Id&) const = default;

 private:
  std::uint32_t v_ = kInvalid;
};

using PodId = Id<struct PodTag>;
using NodeId = Id<struct NodeTag>;
using NamespaceId = Id<struct NamespaceTag>;
using PodTemplateId = Id<struct PodTemplateTag>;
using JobId = Id<struct JobTag>;
using QuotaId = Id<struct QuotaTag>;

}  // namespace kubesim
