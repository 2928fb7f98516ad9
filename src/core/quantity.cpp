#include "core/quantity.hpp"

#include <limits>

#include "core/error.hpp"

namespace kubesim {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

constexpr const char* kFormatError =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

struct Suffix {
  int base = 10;
  int exponent = 0;
};

// suffix.go: quantitySuffixer.interpret.
std::optional<Suffix> interpret_suffix(std::string_view s) {
  struct Entry { std::string_view name; int base; int exponent; };
  static constexpr Entry kTable[] = {
      {"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},   {"M", 10, 6},
      {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10},  {"Mi", 2, 20},
      {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
  };
  for (const auto& e : kTable)
    if (s == e.name) return Suffix{e.base, e.exponent};
  // "e"/"E" followed by a signed integer is a decimal exponent (strconv.ParseInt(s[1:], 10, 64)).
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::string_view rest = s.substr(1);
    bool neg = false;
    if (rest[0] == '+' || rest[0] == '-') {
      neg = rest[0] == '-';
      rest = rest.substr(1);
    }
    if (rest.empty() || rest.size() > 9) return std::nullopt;
    int value = 0;
    for (char c : rest) {
      if (!is_digit(c)) return std::nullopt;
      value = value * 10 + (c - '0');
    }
    return Suffix{10, neg ? -value : value};
  }
  return std::nullopt;
}

constexpr unsigned __int128 kInt128Limit = (static_cast<unsigned __int128>(1) << 124);

}  // namespace

std::optional<Quantity> Quantity::parse(std::string_view str, std::string* error) {
  // quantity.go: parseQuantityString, transcribed loop by loop.
  if (str.empty()) {
    if (error) *error = kFormatError;  // ErrFormatWrong, as upstream
    return std::nullopt;
  }
  Quantity q;
  std::size_t pos = 0;
  const std::size_t end = str.size();
  if (str[0] == '-') {
    q.negative_ = true;
    ++pos;
  } else if (str[0] == '+') {
    ++pos;
  }
  while (pos < end && str[pos] == '0') ++pos;  // leading zeros
  std::size_t num_begin = pos;
  while (pos < end && is_digit(str[pos])) ++pos;
  std::string_view num = str.substr(num_begin, pos - num_begin);
  std::string_view denom;
  if (pos < end && str[pos] == '.') {
    ++pos;
    std::size_t denom_begin = pos;
    while (pos < end && is_digit(str[pos])) ++pos;
    denom = str.substr(denom_begin, pos - denom_begin);
  }
  const std::size_t suffix_begin = pos;
  while (pos < end && std::string_view("eEinumkKMGTP").find(str[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  while (pos < end && is_digit(str[pos])) ++pos;
  if (pos != end) {
    if (error) *error = kFormatError;
    return std::nullopt;
  }
  std::string_view suffix = str.substr(suffix_begin);
  auto interpreted = interpret_suffix(suffix);
  if (!interpreted) {
    if (error) *error = "unable to parse quantity's suffix";
    return std::nullopt;
  }

  // Exact value = digits(num denom) * 10^(exponent - len(denom)) [* 2^exponent for binary SI].
  int exponent10 = -static_cast<int>(denom.size());
  auto take = [&](char c) {
    if (q.digits_ >= kInt128Limit / 10) {  // keep precision; remember dropped non-zero digits for ceil
      if (c != '0') q.truncated_nonzero_ = true;
      ++exponent10;
      return;
    }
    q.digits_ = q.digits_ * 10 + static_cast<unsigned>(c - '0');
  };
  for (char c : num) take(c);
  for (char c : denom) take(c);
  if (interpreted->base == 10) {
    exponent10 += interpreted->exponent;
  } else {
    q.exponent2_ = interpreted->exponent;
  }
  q.exponent10_ = exponent10;
  if (q.digits_ == 0 && !q.truncated_nonzero_) q.negative_ = false;
  return q;
}

std::int64_t Quantity::scaled(int decimal_shift) const {
  constexpr auto kMax = static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max());
  if (digits_ == 0 && !truncated_nonzero_) return 0;
  unsigned __int128 v = digits_;
  bool inexact = truncated_nonzero_;
  int e10 = exponent10_ + decimal_shift;
  // Apply the binary exponent first (it only grows the value), saturating.
  // Saturating keeps the sign: a huge negative amount is INT64_MIN, never a positive one
  // (found by fuzz/quantity_fuzz: "-9Ei" once gave +INT64_MAX).
  const std::int64_t saturated = negative_ ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < exponent2_; ++i) {
    if (v > kInt128Limit) return saturated;
    v <<= 1;
  }
  for (; e10 > 0; --e10) {
    if (v > kInt128Limit / 10) return saturated;
    v *= 10;
  }
  for (; e10 < 0; ++e10) {
    if (v % 10 != 0) inexact = true;
    v /= 10;
    if (v == 0) break;
  }
  if (inexact) v += 1;  // upstream rounds resource amounts up ("if you want some, you get some")
  if (v > kMax) return saturated;
  const auto result = static_cast<std::int64_t>(v);
  return negative_ ? -result : result;
}

Quantity parse_resource_quantity(std::string_view text, const std::string& file, int line, std::string_view what) {
  std::string error;
  auto q = Quantity::parse(text, &error);
  if (!q) throw InputError(file, line, "invalid quantity \"" + std::string(text) + "\" for " + std::string(what) + ": " + error);
  if (q->negative()) throw InputError(file, line, std::string(what) + " must not be negative, got \"" + std::string(text) + "\"");
  if (q->out_of_range())
    throw InputError(file, line,
                     std::string(what) + " \"" + std::string(text) + "\" is too large: expected at most 9223372036854775806");
  return *q;
}

}  // namespace kubesim

namespace kubesim {

std::string format_quantity(std::int64_t amount, bool milli) {
  if (amount == 0) return "0";
  const bool negative = amount < 0;
  std::uint64_t v = negative ? static_cast<std::uint64_t>(-(amount + 1)) + 1 : static_cast<std::uint64_t>(amount);
  std::string sign = negative ? "-" : "";
  if (milli) {
    if (v % 1000 != 0) return sign + std::to_string(v) + "m";
    v /= 1000;
  }
  static const char* const kDecimal[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char* const kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (v % 1000 == 0 || v % 1024 != 0) {
    int e = 0;
    while (e < 6 && v % 1000 == 0) {
      v /= 1000;
      ++e;
    }
    return sign + std::to_string(v) + kDecimal[e];
  }
  int e = 0;
  while (e < 6 && v % 1024 == 0) {
    v /= 1024;
    ++e;
  }
  return sign + std::to_string(v) + kBinary[e];
}

}  // namespace kubesim
