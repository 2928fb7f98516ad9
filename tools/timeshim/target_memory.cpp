// See target_memory.hpp.
#include "target_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sys/ptrace.h>
#include <sys/uio.h>

namespace kubesim::timeshim {

bool read_memory(pid_t pid, std::uint64_t addr, void* out, std::size_t n) {
  iovec local{out, n}, remote{reinterpret_cast<void*>(addr), n};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

bool write_memory(pid_t pid, std::uint64_t addr, const void* in, std::size_t n) {
  iovec local{const_cast<void*>(in), n}, remote{reinterpret_cast<void*>(addr), n};
  return process_vm_writev(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

bool poke_text(pid_t tid, std::uint64_t addr, const unsigned char* bytes, std::size_t n) {
  // Whole words around the bytes: the first and last keep the target's other bytes.
  const std::uint64_t first = addr & ~std::uint64_t{7};
  const std::size_t off = addr - first, words = (off + n + 7) / 8;
  std::vector<unsigned char> image(words * 8);
  if (!read_memory(tid, first, image.data(), image.size())) return false;
  std::copy(bytes, bytes + n, image.begin() + static_cast<std::ptrdiff_t>(off));
  for (std::size_t w = 0; w < words; ++w) {
    long value = 0;
    std::memcpy(&value, image.data() + 8 * w, 8);
    if (ptrace(PTRACE_POKETEXT, tid, reinterpret_cast<void*>(first + 8 * w), reinterpret_cast<void*>(value)) != 0)
      return false;
  }
  return true;
}

std::vector<TextRegion> read_text(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/maps", tid);
  FILE* maps = std::fopen(path, "r");
  if (!maps) return {};
  std::vector<TextRegion> text;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 && perms[0] == 'r' && perms[2] == 'x' && hi > lo &&
        hi - lo <= (std::uint64_t{1} << 30)) {
      text.push_back({lo, std::vector<unsigned char>(hi - lo)});
      if (!read_memory(tid, lo, text.back().bytes.data(), hi - lo)) text.pop_back();
    }
  }
  std::fclose(maps);
  return text;
}

std::uint64_t find_in_text(const std::vector<TextRegion>& text, const unsigned char* pattern, std::size_t size) {
  for (const auto& region : text) {
    auto it = std::search(region.bytes.begin(), region.bytes.end(), pattern, pattern + size);
    if (it != region.bytes.end()) return region.lo + static_cast<std::uint64_t>(it - region.bytes.begin());
  }
  return 0;
}

}  // namespace kubesim::timeshim
