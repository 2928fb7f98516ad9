// YuniKorn's resource maps (yunikorn-core pkg/common/resources/resources.go) over kubesim's
// fixed resource slots plus one slot for "pods". A Go map knows which keys it holds, and
// several rules depend on that (types missing from a max are unlimited), so the vector
// carries a mask of the types present.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/resources.hpp"

namespace kubesim::yunikorn {

// Slots 0..kMaxResources-1 are kubesim's (cpu as vcore in milli, memory in bytes, ...);
// kPods is the shim's "pods" type (k8shim pkg/common/resource.go GetPodResource adds pods: 1
// to every pod's request).
inline constexpr std::size_t kPods = kMaxResources;
inline constexpr std::size_t kSlots = kMaxResources + 1;

struct Res {
  std::array<std::int64_t, kSlots> v{};
  std::uint32_t mask = 0;  // bit i: type i is a key of the map

  bool empty() const { return mask == 0; }
  bool has(std::size_t i) const { return (mask >> i) & 1U; }
  void set(std::size_t i, std::int64_t x) {
    v[i] = x;
    mask |= 1U << i;
  }
  // resources.Add / Sub: the result holds the keys of both.
  Res& operator+=(const Res& o) {
    for (std::size_t i = 0; i < kSlots; ++i) v[i] += o.v[i];
    mask |= o.mask;
    return *this;
  }
  Res& operator-=(const Res& o) {
    for (std::size_t i = 0; i < kSlots; ++i) v[i] -= o.v[i];
    mask |= o.mask;
    return *this;
  }
  friend Res operator+(Res a, const Res& b) { return a += b; }
  friend Res operator-(Res a, const Res& b) { return a -= b; }
};

// Whether some type held is positive: how the model asks whether anything is pending or
// allocated.
inline bool any_positive(const Res& r) {
  for (std::size_t i = 0; i < kSlots; ++i)
    if (r.has(i) && r.v[i] > 0) return true;
  return false;
}

// The ask of a pod: its effective requests (non-zero types) plus pods: 1.
Res pod_resource(const Resources& requests);
// A node's capacity as the shim reports it: allocatable plus pods = allowed pods.
Res node_resource(const Resources& allocatable, std::int64_t allowed_pods);

// resources.go FitInMaxUndef (receiver = max/headroom): every type of `ask` that `max` holds
// is <= max's; types missing from max are unlimited.
bool fit_in_max_undef(const Res& max, const Res& ask);
// resources.go FitIn: every type of `ask` is <= `avail`'s value, a missing one counting 0.
bool fit_in(const Res& avail, const Res& ask);
// ComponentWiseMinPermissive: the min where both hold a type, else whichever holds it.
Res min_permissive(const Res& a, const Res& b);
// StrictlyGreaterThanOrEquals(larger, smaller) over the union of keys.
bool greater_or_equal(const Res& larger, const Res& smaller);
// StrictlyGreaterThan(larger, smaller): >= everywhere and not equal.
bool strictly_greater(const Res& larger, const Res& smaller);
// Resource.FitInScore (receiver = ask): sum over the ask's positive types of the missing
// fraction of the available amount (1 for a type with nothing available).
double fit_in_score(const Res& ask, const Res& avail);

// getShares(res, total) sorted ascending into `out`: v/total[k] where total holds a non-zero
// value, the raw v otherwise (<= 1.5). `ratios_only` (1.6, YUNIKORN-2678) drops the types
// without a total instead of using raw values.
void shares(const Res& res, const Res& total, bool ratios_only, std::vector<double>& out);
// compareShares: from the largest share down, the first difference decides; then the rest
// of the longer list by sign. <0: left is smaller (sorted first).
int compare_shares(const std::vector<double>& l, const std::vector<double>& r);

}  // namespace kubesim::yunikorn
