// Reading and writing a traced program's memory, and searching its code: what the shim's
// patches of the Go runtime (timeshim.cpp, go_clock.hpp) share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <sys/types.h>
#include <vector>

namespace kubesim::timeshim {

// Another process's memory (process_vm_readv / writev: no stop needed, pages must be
// readable / writable); false unless all `n` bytes moved.
bool read_memory(pid_t pid, std::uint64_t addr, void* out, std::size_t n);
bool write_memory(pid_t pid, std::uint64_t addr, const void* in, std::size_t n);

// Writes `n` bytes at `addr` (any alignment) into read-only memory of the stopped thread
// `tid` (text, the vDSO): PTRACE_POKETEXT writes such pages, process_vm_writev would not.
bool poke_text(pid_t tid, std::uint64_t addr, const unsigned char* bytes, std::size_t n);
inline bool poke_text(pid_t tid, std::uint64_t addr, std::initializer_list<unsigned char> bytes) {
  return poke_text(tid, addr, bytes.begin(), bytes.size());
}

// The program's executable mappings (start address and bytes, mappings up to 1 GiB), read
// once at its exec stop and searched by every patch.
struct TextRegion {
  std::uint64_t lo;
  std::vector<unsigned char> bytes;
};
std::vector<TextRegion> read_text(pid_t tid);

// The address of the first occurrence of `pattern` in `text`; 0 if none.
std::uint64_t find_in_text(const std::vector<TextRegion>& text, const unsigned char* pattern, std::size_t size);

}  // namespace kubesim::timeshim
