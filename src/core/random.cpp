#include "core/random.hpp"

#include <cmath>

namespace kubesim {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::string_view name) {
  std::uint64_t x = seed ^ fnv1a(name);
  for (auto& word : s_) word = splitmix64(x);
}

double RandomStream::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double RandomStream::standard_normal() {
  for (;;) {
    const double u = 2.0 * uniform01() - 1.0;
    const double v = 2.0 * uniform01() - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

}  // namespace kubesim
