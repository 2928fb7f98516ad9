// Kubernetes resource quantities ("1.5", "500m", "4Gi", "8G", "1e3"), parsed with the grammar
// and rounding of k8s.io/apimachinery/pkg/api/resource/quantity.go (ParseQuantity,
// parseQuantityString, suffix.go). Values are exact: no floating point is involved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kubesim {

class Quantity {
 public:
  // Parses `text`; on failure returns nullopt and sets *error to upstream's reason
  // ("quantities must match the regular expression ..." / "unable to parse quantity's suffix").
  static std::optional<Quantity> parse(std::string_view text, std::string* error);

  bool negative() const { return negative_; }
  bool is_zero() const { return digits_ == 0; }
  // ceil(value) and ceil(value * 1000) as Quantity.Value() / MilliValue() give them for
  // non-negative values, saturated at INT64_MAX (upstream caps at maxAllowed = 2^63-1).
  std::int64_t value() const { return scaled(0); }
  std::int64_t milli_value() const { return scaled(3); }
  // kubesim keeps amounts as int64 units (memory, ...) or milli-units (cpu): an amount whose
  // value reaches 2^63-1 cannot be represented, so the readers refuse it
  // (parse_resource_quantity) rather than saturate; larger milli-values saturate, and every
  // sum of amounts saturates too (Resources), so nothing wraps.
  bool out_of_range() const { return scaled(0) == kMaxAmount; }

  static constexpr std::int64_t kMaxAmount = 9223372036854775807;  // INT64_MAX

 private:
  std::int64_t scaled(int decimal_shift) const;

  bool negative_ = false;
  unsigned __int128 digits_ = 0;  // significant digits of the number, as an integer
  int exponent10_ = 0;            // value = digits * 10^exponent10 * 2^exponent2
  int exponent2_ = 0;
  bool truncated_nonzero_ = false;  // digits beyond int128 precision were dropped; all were not zero
};

// Parses a quantity that must be a non-negative resource amount below 2^63-1 milli-units
// (out_of_range); throws InputError naming file:line and the offending text.
Quantity parse_resource_quantity(std::string_view text, const std::string& file, int line, std::string_view what);

}  // namespace kubesim

namespace kubesim {

// Quantity.String() for an amount kubesim keeps as an integer (milli-units when `milli`):
// apimachinery's canonical form, the largest suffix that keeps an integer mantissa
// (quantity.go CanonicalizeBytes): 4000m -> "4", 500m -> "500m", 8000000000 -> "8G",
// 8589934592 -> "8Gi". Upstream keeps the format the quantity was written in; kubesim does
// not store it and prints decimal suffixes when they are exact, else binary ones.
std::string format_quantity(std::int64_t amount, bool milli);

}  // namespace kubesim
