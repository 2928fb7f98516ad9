// Go 1.22+'s runtime random source pinned to one value per --seed (timeshim.cpp,
// pin_go_runtime, says why; Shim::pin_rand applies it).
//
// Go 1.22 replaced the runtime's per-thread fastrand by two per-thread generators
// (runtime/rand.go): rand(), a ChaCha8 stream per M (m.chacha8), which picks where a map
// iteration starts (map.go mapiterinit), a map's hash seed (makemap, mapclear, mapdelete) and
// is the source of the unseeded math/rand and math/rand/v2 functions; and cheaprand(), a
// wyrand state per M (m.cheaprand), inlined like 1.19's fastrand, which picks select's poll
// order (select.go selectgo), the P to steal from (proc.go stealWork) and sampling decisions.
// Each M's ChaCha8 key is drawn from the global generator when the M is made (mrandinit), so
// which M draws, in what order the Ms were made and how many draws came before all change
// the values from run to run. rand() is not inlined anywhere (it loops over Refill): its
// entry is patched to return one constant; cheaprand's inlined loads are pinned as 1.19's
// fastrand (Shim::pin_fastrand).
#pragma once

#include <cstdint>
#include <string_view>
#include <sys/types.h>

namespace kubesim::timeshim {

// A symbol of an executable: where it is and how many bytes it spans.
struct ElfSymbol {
  std::uint64_t address = 0, size = 0;
};

// The function `name` (or with `data`, the data object) in the ELF symbol table of the
// executable of `pid` (/proc/PID/exe); address 0 if the file is not a fixed-address (ET_EXEC)
// x86-64 ELF file, has no symbol table (stripped) or no such symbol.
ElfSymbol elf_symbol(pid_t pid, std::string_view name, bool data = false);
inline std::uint64_t elf_function(pid_t pid, std::string_view name) { return elf_symbol(pid, name).address; }

// The value every call of the pinned runtime.rand returns, derived from `seed`. Unseeded
// math/rand (v1) draws Int63 = v & (2^63-1), Int31 = Int63 >> 32, Uint32 = Int63 >> 31;
// math/rand/v2 and hash/maphash take v itself. Several of their callers retry until a draw
// passes a test, which a constant passes always or never, so v is chosen to pass them all:
// - v1 Int31n/Int63n retry while the draw exceeds the largest multiple of n below 2^31 / 2^63
//   (math/rand/rand.go): Int31 < 2^11 and Int63 < 2^43 pass for any n they take;
// - Lemire's bounded draws (v1 int31n for Shuffle, v2 uint64n/uint32n) retry while the low
//   half of draw * n is below (2^k - n) % n, never when 1 <= draw and draw * n < 2^k:
//   1 <= Uint32 < 2^12 and 2^31 <= v < 2^43 pass for every n below 2^20 (a larger n may
//   retry forever: not checked for the binaries run here);
// - hash/maphash MakeSeed retries while the draw is 0: v != 0;
// - v1 NormFloat64 / ExpFloat64 retry on a table entry 0 (kn[1], ke[0], ke[1]): Uint32's
//   low 7 bits are at least 2.
// Map iteration starts (v & bucket mask, then (v >> B) & 7) and hash seeds (uint32(v)) take
// the low bits, which come from the seed; v is odd, so runtime.(*hmap).incrnoverflow's
// uint32(v) & mask is never 0 (it only estimates overflow buckets of maps with 2^16+ buckets).
std::uint64_t pinned_rand_value(std::uint64_t seed);

// splitmix64 (Steele, Lea, Flood): advances `x` by the golden gamma and returns the mix of the
// new state; how the shim derives its values from --seed.
inline std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace kubesim::timeshim
