// Seeded random streams. Every component draws from its own named stream derived from the
// run's seed, so adding draws in one component never shifts another's (ns-3's seed + stream
// idea). The generator and the distributions are implemented here, not taken from <random>,
// whose distributions differ between standard libraries: outputs must be byte-identical.
#pragma once

#include <cstdint>
#include <string_view>

namespace kubesim {

// splitmix64 (Steele, Lea, Flood): advances the state `x` by the golden gamma and returns the
// mix of the new state; the seeder of RandomStream, and a 64-bit hash of a word.
std::uint64_t splitmix64(std::uint64_t& x);

class RandomStream {
 public:
  RandomStream() = default;
  RandomStream(std::uint64_t seed, std::string_view name);

  // Defined below, inline: kube-scheduler's tie-break draws one per tied node (issue 30).
  std::uint64_t next_u64();
  // Uniform integer in [0, n) (Lemire's unbiased method); n > 0.
  std::uint64_t uniform_below(std::uint64_t n);
  // Uniform double in [0, 1) with 53 random bits.
  double uniform01();
  // Standard normal (Marsaglia polar method, no cached second value, so draws stay aligned).
  double standard_normal();

 private:
  std::uint64_t s_[4] = {1, 2, 3, 4};  // xoshiro256** state
};

// xoshiro256** (Blackman and Vigna, https://prng.di.unimi.it/xoshiro256starstar.c).
inline std::uint64_t RandomStream::next_u64() {
  const auto rotl = [](std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

inline std::uint64_t RandomStream::uniform_below(std::uint64_t n) {
  unsigned __int128 m = static_cast<unsigned __int128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace kubesim
