// Seeded random streams. Every component draws from its own named stream derived from the
// run's seed, so adding draws in one component never shifts another's (ns-3's seed + stream
// idea). The generator and the distributions are implemented here, not taken from <random>,
// whose distributions differ between standard libraries: outputs must be byte-identical.
#pragma once

#include <cstdint>
#include <string_view>

namespace kubesim {

class RandomStream {
 public:
  RandomStream() = default;
  RandomStream(std::uint64_t seed, std::string_view name);

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

}  // namespace kubesim
