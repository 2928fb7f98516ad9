#include "core/time.hpp"

#include <cinttypes>
#include <cstdio>

namespace kubesim {

std::string format_seconds(std::int64_t micros) {
  // Integer formatting: printf("%f") of micros/1e6 can round the last digit differently.
  char buf[48];
  const bool negative = micros < 0;
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(micros) : static_cast<std::uint64_t>(micros);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%06" PRIu64, negative ? "-" : "", magnitude / 1'000'000,
                magnitude % 1'000'000);
  return buf;
}

}  // namespace kubesim
