#include "core/time.hpp"

#include <charconv>

namespace kubesim {

void append_seconds(std::string& out, std::int64_t micros) {
  // Integer formatting: printf("%f") of micros/1e6 can round the last digit differently; no
  // printf either, which costs more than the rest of a pods.csv row.
  const bool negative = micros < 0;
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(micros) : static_cast<std::uint64_t>(micros);
  char buf[32];
  char* p = std::to_chars(buf, buf + sizeof buf, magnitude / 1'000'000).ptr;
  *p++ = '.';
  std::uint64_t frac = magnitude % 1'000'000;
  for (int i = 5; i >= 0; --i, frac /= 10) p[i] = static_cast<char>('0' + frac % 10);
  p += 6;
  if (negative) out += '-';
  out.append(buf, p);
}

std::string format_seconds(std::int64_t micros) {
  std::string out;
  append_seconds(out, micros);
  return out;
}

}  // namespace kubesim
