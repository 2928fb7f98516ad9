#include "core/time.hpp"

#include <charconv>

namespace kubesim {

char* write_seconds(char* out, std::int64_t micros) {
  // Integer formatting: printf("%f") of micros/1e6 can round the last digit differently; no
  // printf either, which costs more than the rest of a pods.csv row.
  const bool negative = micros < 0;
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(micros) : static_cast<std::uint64_t>(micros);
  if (negative) *out++ = '-';
  out = std::to_chars(out, out + 20, magnitude / 1'000'000).ptr;
  *out++ = '.';
  std::uint64_t frac = magnitude % 1'000'000;
  for (int i = 5; i >= 0; --i, frac /= 10) out[i] = static_cast<char>('0' + frac % 10);
  return out + 6;
}

void append_seconds(std::string& out, std::int64_t micros) {
  char buf[kMaxSecondsChars];
  out.append(buf, write_seconds(buf, micros));
}

std::string format_seconds(std::int64_t micros) {
  std::string out;
  append_seconds(out, micros);
  return out;
}

}  // namespace kubesim
